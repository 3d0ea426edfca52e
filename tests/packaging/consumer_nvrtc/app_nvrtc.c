/* A C program written against the CUDA 13.0 nvrtc.h, built against the installed cudyn NVRTC
 * drop-in (CMake cudyn::nvrtc / cudyn::nvrtc_static, pkg-config cudyn-nvrtc / cudyn-nvrtc-static)
 * instead of -lnvrtc: compiles a small kernel and prints the NVRTC version and the PTX's .version. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  int major = 0, minor = 0;
  nvrtcResult rc = nvrtcVersion(&major, &minor);
  printf("nvrtcVersion: rc=%d version=%d.%d\n", (int)rc, major, minor);
  const char* src =
      "extern \"C\" __global__ void scale(float* x, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] *= a;\n"
      "}\n";
  nvrtcProgram prog = NULL;
  rc = nvrtcCreateProgram(&prog, src, "scale.cu", 0, NULL, NULL);
  if (rc != NVRTC_SUCCESS) {
    printf("nvrtcCreateProgram: rc=%d\n", (int)rc);
    return 1;
  }
  rc = nvrtcCompileProgram(prog, 0, NULL);
  printf("nvrtcCompileProgram: rc=%d\n", (int)rc);
  size_t size = 0;
  if (rc == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &size) == NVRTC_SUCCESS) {
    char* ptx = (char*)calloc(size + 1, 1);
    if (ptx != NULL && nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS) {
      const char* v = strstr(ptx, "\n.version ");
      if (v != NULL) {
        v += 10;
        printf("ptx_version=%.*s\n", (int)strcspn(v, "\r\n"), v);
      }
    }
    free(ptx);
  }
  nvrtcDestroyProgram(&prog);
  return rc == NVRTC_SUCCESS ? 0 : 1;
}
