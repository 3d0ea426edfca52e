/* Opens the framework (framework/fw.c) as Python opens an extension module (dlopen, RTLD_LOCAL)
 * and reports which runtime answered it, and which runtime files are mapped.
 *   framework_host FRAMEWORK [--torch-preload | --preload-absolute] [--other-runtime PATH]
 * --torch-preload     what torch/__init__.py does: when no file name in /proc/self/maps contains
 *                     "libcudart.so", dlopen the framework's own runtime by absolute path
 *                     (RTLD_GLOBAL) first
 * --preload-absolute  the same dlopen, unconditionally
 * --other-runtime P   first dlopen runtime P by absolute path (RTLD_LOCAL) and call its
 *                     cudaDriverGetVersion (twice) and cudaGetDeviceCount; then, after the
 *                     framework's cudaRuntimeGetVersion, its cudaGetDeviceCount */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first mapped file whose name contains `needle` (static buffer), or NULL. */
static const char* MappedFile(const char* needle) {
  static char found[4096];
  char line[4096 + 128];
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return NULL;
  const char* result = NULL;
  while (result == NULL && fgets(line, sizeof line, maps) != NULL) {
    char* path = strchr(line, '/');
    if (path == NULL || strstr(path, needle) == NULL) continue;
    path[strcspn(path, "\n")] = '\0';
    snprintf(found, sizeof found, "%s", path);
    result = found;
  }
  fclose(maps);
  return result;
}

/* Every mapped file whose name contains "cudart", once each, in map order. */
static void PrintMappedRuntimes(void) {
  char seen[16][4096];
  int n = 0;
  char line[4096 + 128];
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return;
  while (fgets(line, sizeof line, maps) != NULL) {
    char* path = strchr(line, '/');
    if (path == NULL || strstr(path, "cudart") == NULL) continue;
    path[strcspn(path, "\n")] = '\0';
    int known = 0;
    for (int i = 0; i < n; ++i) known |= strcmp(seen[i], path) == 0;
    if (known || n == 16) continue;
    snprintf(seen[n++], sizeof seen[0], "%s", path);
    printf("mapped: %s\n", path);
  }
  fclose(maps);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FRAMEWORK [--torch-preload|--preload-absolute] [--other-runtime PATH]\n", argv[0]);
    return 2;
  }
  const char* framework = argv[1];
  const char* other_runtime = NULL;
  int torch_preload = 0, preload_absolute = 0;
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--torch-preload") == 0) torch_preload = 1;
    else if (strcmp(argv[i], "--preload-absolute") == 0) preload_absolute = 1;
    else if (strcmp(argv[i], "--other-runtime") == 0 && i + 1 < argc) other_runtime = argv[++i];
    else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
  }
  char own_runtime[4096];
  char framework_copy[4096];
  snprintf(framework_copy, sizeof framework_copy, "%s", framework);
  snprintf(own_runtime, sizeof own_runtime, "%s/fwlib/libcudart.so.13", dirname(framework_copy));
  if (torch_preload || preload_absolute) {
    const char* mapped = MappedFile("libcudart.so");
    if (torch_preload && mapped != NULL) {
      printf("preload: skipped (mapped: %s)\n", mapped);
    } else if (dlopen(own_runtime, RTLD_NOW | RTLD_GLOBAL) != NULL) {
      printf("preload: loaded %s\n", own_runtime);
    } else {
      printf("preload: failed: %s\n", dlerror());
      return 1;
    }
  }
  /* The other runtime first: its dlopen("libcuda.so.1") then finds cudyn's driver drop-in (first on
   * LD_LIBRARY_PATH under cudyn run), which sees its calls. */
  if (other_runtime != NULL) {
    void* other = dlopen(other_runtime, RTLD_NOW | RTLD_LOCAL);
    if (other == NULL) {
      printf("dlopen other runtime: %s\n", dlerror());
      return 1;
    }
    int (*driver_version)(int*) = (int (*)(int*))dlsym(other, "cudaDriverGetVersion");
    int (*get_count)(int*) = (int (*)(int*))dlsym(other, "cudaGetDeviceCount");
    if (driver_version == NULL || get_count == NULL) {
      printf("other runtime lacks cudaDriverGetVersion/cudaGetDeviceCount\n");
      return 1;
    }
    for (int i = 0; i < 2; ++i) {
      int v = 0;
      printf("other runtime cudaDriverGetVersion: rc=%d\n", driver_version(&v));
    }
    int count = -1;
    printf("other runtime cudaGetDeviceCount: rc=%d\n", get_count(&count));
  }
  void* fw = dlopen(framework, RTLD_NOW | RTLD_LOCAL);
  if (fw == NULL) {
    printf("dlopen framework: %s\n", dlerror());
    return 1;
  }
  int (*runtime_version)(int*, const char**) =
      (int (*)(int*, const char**))dlsym(fw, "fw_runtime_version");
  int (*device_count)(int*) = (int (*)(int*))dlsym(fw, "fw_device_count");
  if (runtime_version == NULL || device_count == NULL) {
    printf("framework lacks its functions\n");
    return 1;
  }
  int version = 0;
  const char* file = NULL;
  int rc = runtime_version(&version, &file);
  printf("framework cudaRuntimeGetVersion: rc=%d version=%d\n", rc, version);
  printf("framework binds cudaRuntimeGetVersion to %s\n", file);
  if (other_runtime != NULL) {  /* the framework's runtime reaches the driver too (not reported) */
    int count = -1;
    printf("framework cudaGetDeviceCount: rc=%d\n", device_count(&count));
  }
  PrintMappedRuntimes();
  return rc == 0 ? 0 : 1;
}
