// A program written against the CUDA 13.0 nvrtc.h, as users write one: compiles a small kernel
// with NVRTC and prints what it got as key=value lines (the PTX's .version, NVRTC's version, the
// answer of a 13.0-only entry). Built twice: linked with cudyn's NVRTC drop-in instead of -lnvrtc,
// and linked with the real libnvrtc.so.13 directly (tests/real_nvrtc/BUILD).
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <string>

int main() {
  int major = 0, minor = 0;
  const nvrtcResult vrc = nvrtcVersion(&major, &minor);
  std::printf("version_rc=%d\nnvrtc=%d.%d\n", static_cast<int>(vrc), major, minor);
  const char* src =
      "extern \"C\" __global__ void scale(float* x, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] *= a;\n"
      "}\n";
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, src, "scale.cu", 0, nullptr, nullptr);
  std::printf("create_rc=%d\n", static_cast<int>(rc));
  if (rc == NVRTC_SUCCESS) {
    rc = nvrtcCompileProgram(prog, 0, nullptr);
    std::printf("compile_rc=%d\n", static_cast<int>(rc));
    size_t size = 0;
    if (rc == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &size) == NVRTC_SUCCESS) {
      std::string ptx(size, '\0');
      if (nvrtcGetPTX(prog, &ptx[0]) == NVRTC_SUCCESS) {
        const size_t at = ptx.find("\n.version ");
        if (at != std::string::npos) {
          std::printf("ptx_version=%s\n", ptx.substr(at + 10, ptx.find('\n', at + 1) - at - 10).c_str());
        }
      }
    }
    nvrtcDestroyProgram(&prog);
  }
  // 13.0-only: an older NVRTC answers the clean error instead of crashing.
  size_t heap = 0;
  std::printf("pch_heap_rc=%d\n", static_cast<int>(nvrtcGetPCHHeapSize(&heap)));
  std::printf("error_string=%s\n", nvrtcGetErrorString(rc));
  return 0;
}
