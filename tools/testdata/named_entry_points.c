// Looks driver entry points up by name at run time (dlopen + dlsym) instead of importing them:
// no libcuda DT_NEEDED, no cu* imports; the names are strings in .rodata.
#include <dlfcn.h>
#include <stdio.h>

static const char* const kNames[] = {"cuInit", "cuMemAdvise_v2", "cuCtxCreate_v4"};

int main(void) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return 1;
  for (unsigned i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
    printf("%s: %s\n", kNames[i], dlsym(lib, kNames[i]) != NULL ? "found" : "missing");
  }
  return 0;
}
