// A stand-in "driver" for the ELF reader tests: a tiny shared library that defines a few
// driver-API names under the version node ELFTEST_1.0 (fake_cuda.lds), so that a binary linked
// against it (elftest_app.c) imports known symbols with a known version from a known library.
// Never loaded by the tests, only parsed.

int cudyn_elftest_counter = 3;  // exported data object

// Neither of these is exported: one has hidden visibility, the other is static.
__attribute__((visibility("hidden"))) int cudyn_elftest_hidden(int x) { return x + 1; }
static int cudyn_elftest_local(int x) { return x * 2; }

int cuInit(unsigned int flags) { return (int)flags + cudyn_elftest_local(cudyn_elftest_counter); }
int cuDriverGetVersion(int* version) {
  *version = 12020;
  return cudyn_elftest_hidden(-1);
}
int cuMemAdvise(unsigned long long ptr, unsigned long count, int advice, int device) {
  return (int)(ptr + count) + advice + device;
}
int cuMemAdvise_v2(unsigned long long ptr, unsigned long count, int advice, long location) {
  return (int)(ptr + count) + advice + (int)location;
}
