// A binary with known imports for the ELF reader tests. Linked against libelftest_cuda.so.1
// (fake_cuda.c) and libc. Never run by the tests, only parsed. Its dynamic imports are exactly:
//   from libelftest_cuda.so.1, version ELFTEST_1.0: cuInit, cuDriverGetVersion, cuMemAdvise_v2
//   weak, unversioned:                              cuGetProcAddress_v2
//   from libc.so.6:                                 getenv, getpid
// plus whatever the C runtime start files add (__libc_start_main, __cxa_finalize, ...).
// (getenv and getpid because no sanitizer runtime intercepts them: under --config=asan/tsan the
// imports of this file keep their GLIBC versions.)
#include <stdlib.h>
#include <unistd.h>

int cuInit(unsigned int flags);
int cuDriverGetVersion(int* version);
int cuMemAdvise_v2(unsigned long long ptr, unsigned long count, int advice, long location);
extern int cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                               unsigned long long flags, int* status) __attribute__((weak));

int main(void) {
  int version = 0;
  if (getenv("CUDYN_ELFTEST_RUN") != NULL) {
    cuInit(0);
    cuDriverGetVersion(&version);
    cuMemAdvise_v2(0, 0, 0, 0);
    if (cuGetProcAddress_v2 != NULL) cuGetProcAddress_v2("cuInit", NULL, 0, 0, NULL);
  }
  return version + (int)(getpid() & 1);
}
