// A runtime-only program, as `cudyn run --cudart` meets it: it never names libcuda.so.1 before its
// first runtime call (no -lcuda), so the real runtime behind cudyn's runtime drop-in is the first
// to ask for the driver. Prints, for runtime_only_clamp_test.sh:
//   device_count_rc=<cudaGetDeviceCount's result>   driver_version=<cudaDriverGetVersion>
//   libcuda_is_cudyn=<1 when the process's libcuda.so.1 (what the runtime's dlopen got) is cudyn's
//                     driver drop-in, 0 when it is another libcuda.so.1, -1 when none is loaded>
// Usage: runtime_only_probe   (exit 2: no libcudart.so.13 or an entry missing from it)
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  if (runtime == NULL) {
    fprintf(stderr, "libcudart.so.13: %s\n", dlerror());
    return 2;
  }
  int (*get_device_count)(int*) = (int (*)(int*))dlsym(runtime, "cudaGetDeviceCount");
  int (*driver_get_version)(int*) = (int (*)(int*))dlsym(runtime, "cudaDriverGetVersion");
  if (get_device_count == NULL || driver_get_version == NULL) {
    fprintf(stderr, "libcudart.so.13: %s\n", dlerror());
    return 2;
  }
  int count = 0;
  printf("device_count_rc=%d\n", get_device_count(&count));  // no GPU on a CPU machine
  int version = 0;
  const int version_rc = driver_get_version(&version);
  printf("driver_version=%d (rc %d)\n", version, version_rc);
  // RTLD_NOLOAD: the object the runtime's own dlopen("libcuda.so.1") matched, not a new one.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  printf("libcuda_is_cudyn=%d\n",
         driver == NULL ? -1 : (dlsym(driver, "cudynEntryCount") != NULL ? 1 : 0));
  return 0;
}
