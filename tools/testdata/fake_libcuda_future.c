/* A stand-in libcuda.so.1 that defines an entry point no cudyn table knows (as a future driver
 * might), so a program can import it: cudyn-check must call it unknown (no known driver has it). */
int cuFutureThing_v9(void) { return 0; }
