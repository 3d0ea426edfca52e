/* A stand-in for libcufile (GPUDirect Storage): its entry points are named cuFile*, like the
 * driver's cu[A-Z]* ones, but they are not the driver's. */
int cuFileDriverOpen(void) { return 0; }
