// Built with -static and -static-pie for the ELF reader tests: no dynamic imports at all.
int main(void) { return 0; }
