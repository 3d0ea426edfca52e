/* A CUDA 13.0 cublas_v2.h program linked against the real libcublas.so.13 (NEEDED libcublas.so.13,
   DT_RPATH to the toolkit), knowing nothing of cudyn: which cuBLAS serves it, as key=value lines.
   `cudyn run --cublas` must make it cudyn's drop-in (tests/real_cublas/run_cublas_test.sh). */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* Every libcublas.so.* mapped into the process: the real cuBLAS that answers, whoever loaded it. */
static int PrintCublas(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  const char* base = strrchr(info->dlpi_name, '/');
  base = base != NULL ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libcublas.so.", strlen("libcublas.so.")) == 0) printf("mapped=%s\n", info->dlpi_name);
  return 0;
}

int main(void) {
  int version = -1;
  cublasStatus_t rc = cublasGetVersion(NULL, &version); /* the cublasGetVersion_v2 entry */
  printf("version_rc=%d\nversion=%d\ncublas_major=%d\n", (int)rc, version, version / 10000);
  /* The drop-in's marker: found only when cudyn serves libcublas.so.13. */
  printf("cudyn=%s\n", dlsym(RTLD_DEFAULT, "cudynCublasEntryCount") != NULL ? "yes" : "no");
  dl_iterate_phdr(PrintCublas, NULL);
  return rc == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}
