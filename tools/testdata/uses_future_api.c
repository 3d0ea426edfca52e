/* Imports cuFutureThing_v9 from libcuda.so.1 (the stand-in). Built, never run. */
int cuFutureThing_v9(void);

int main(int argc, char** argv) {
  (void)argv;
  return argc > 5 ? cuFutureThing_v9() : 0;
}
