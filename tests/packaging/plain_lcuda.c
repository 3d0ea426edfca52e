/* An unmodified program linked with plain -lcuda (against a fake libcuda.so.1 at build time, as
 * `gcc app.c -lcuda` would link against the driver): calls cuDriverGetVersion and
 * cuMemAdvise_v2. When cudyn is its libcuda.so.1 (cudyn run), cudyn's C API is visible through
 * dlsym(RTLD_DEFAULT) and reports how cuMemAdvise_v2 was bound. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct {
  int type;
  int id;
} CUmemLocation;
CUresult cuDriverGetVersion(int* version);
CUresult cuMemAdvise_v2(CUdeviceptr ptr, size_t count, int advice, CUmemLocation location);

int main(void) {
  int version = 0;
  CUresult rc = cuDriverGetVersion(&version);
  printf("cuDriverGetVersion: rc=%d version=%d\n", rc, version);
  CUmemLocation location = {1 /* CU_MEM_LOCATION_TYPE_DEVICE */, 0};
  CUresult advise = cuMemAdvise_v2(0x1000, 4096, 1 /* SET_READ_MOSTLY */, location);
  printf("cuMemAdvise_v2: rc=%d\n", advise);

  typedef int (*FindFn)(const char*);
  typedef const char* (*TextFn)(int);
  typedef const char* (*PathFn)(void);
  typedef int (*ErrorFn)(char*, size_t);
  FindFn find = (FindFn)dlsym(RTLD_DEFAULT, "cudynFindEntry");
  if (find == NULL) {
    printf("cudyn: absent\n");
  } else {
    TextFn status = (TextFn)dlsym(RTLD_DEFAULT, "cudynEntryStatus");
    PathFn path = (PathFn)dlsym(RTLD_DEFAULT, "cudynDriverPath");
    ErrorFn last_error = (ErrorFn)dlsym(RTLD_DEFAULT, "cudynLastError");
    int index = find("cuMemAdvise_v2");
    printf("cudyn: present; driver=%s cuMemAdvise_v2=%s\n", path(), index >= 0 ? status(index) : "?");
    char text[4096];
    last_error(text, sizeof(text));
    printf("cudyn last error: %s\n", text);
  }
  return 0;
}
