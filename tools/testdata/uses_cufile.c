/* Imports cuFileDriverOpen from the libcufile stand-in; with -DWITH_DRIVER also cuInit from
 * libcuda. Built, never run; each call sits on its own path so no optimiser drops it. */
int cuFileDriverOpen(void);
#ifdef WITH_DRIVER
int cuInit(unsigned int flags);
#endif

int main(int argc, char** argv) {
  (void)argv;
#ifdef WITH_DRIVER
  if (argc == 9) return cuInit(0);
#endif
  if (argc == 8) return cuFileDriverOpen();
  return 0;
}
