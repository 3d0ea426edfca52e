/* Imports cuFileDriverOpen from the libcufile stand-in; with -DWITH_DRIVER also cuInit from
 * libcuda. Built, never run. */
int cuFileDriverOpen(void);
#ifdef WITH_DRIVER
int cuInit(unsigned int flags);
#endif

int main(int argc, char** argv) {
  (void)argv;
  if (argc > 5) return cuFileDriverOpen();
#ifdef WITH_DRIVER
  if (argc > 6) return cuInit(0);
#endif
  return 0;
}
