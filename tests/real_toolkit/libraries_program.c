/* A program built against the 13.0 toolkit's cuFFT, cuRAND, cuSPARSE, cuSOLVER and nvJitLink
   (NEEDED libcufft.so.12, libcurand.so.10, libcusparse.so.12, libcusolver.so.12,
   libnvJitLink.so.13; DT_RPATH to the toolkit), knowing nothing of cudyn: it prints each library's
   own version call and the real files of those libraries it has mapped (/proc/self/maps). */
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <string.h>

static int Property(int (*get)(libraryPropertyType, int*)) {
  int major = 0, minor = 0, patch = 0;
  if (get(MAJOR_VERSION, &major) != 0 || get(MINOR_VERSION, &minor) != 0 ||
      get(PATCH_LEVEL, &patch) != 0) {
    return -1;
  }
  return major * 1000 + minor * 100 + patch;
}

static int CusparseProperty(libraryPropertyType type, int* value) {
  return (int)cusparseGetProperty(type, value);
}
static int CusolverProperty(libraryPropertyType type, int* value) {
  return (int)cusolverGetProperty(type, value);
}

int main(void) {
  int v = -1;
  printf("cufft_version=%d\n", cufftGetVersion(&v) == CUFFT_SUCCESS ? v : -1);
  v = -1;
  printf("curand_version=%d\n", curandGetVersion(&v) == CURAND_STATUS_SUCCESS ? v : -1);
  printf("cusparse_version=%d\n", Property(CusparseProperty));
  printf("cusolver_version=%d\n", Property(CusolverProperty));
  unsigned major = 0, minor = 0;
  printf("nvjitlink_version=%d\n", nvJitLinkVersion(&major, &minor) == NVJITLINK_SUCCESS
                                       ? (int)(major * 1000 + minor * 10)
                                       : -1);
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096], last[4096] = "";
  static const char* const kNames[] = {"libcufft.so", "libcurand.so", "libcusparse.so",
                                       "libcusolver.so", "libnvJitLink.so"};
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
    char* path = strchr(line, '/');
    if (path == NULL) continue;
    path[strcspn(path, "\n")] = '\0';
    if (strcmp(path, last) == 0) continue;
    for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
      if (strstr(path, kNames[i]) != NULL) {
        printf("mapped=%s\n", path);
        break;
      }
    }
    snprintf(last, sizeof last, "%s", path);
  }
  if (maps != NULL) fclose(maps);
  return 0;
}
