// The NVRTC proof on a GPU (tests/gpu/run_nvrtc.sh). NOT YET RUN on a GPU. A program written
// against the CUDA 13.0 nvrtc.h and cuda.h, as users write one: compiles a small kernel with
// NVRTC to PTX, loads the PTX with cuModuleLoadData, launches it and checks the result. Prints
// key=value lines: the NVRTC version used, the PTX's .version, each step's result, and
// `result=ok` or `result=FAIL`. Exit status 0 only when the kernel ran and computed the right
// values; the load's CUdresult (222 for PTX too new for the driver) is printed as load_rc.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int Fail(const char* step, int rc) {
  std::printf("%s_rc=%d\nresult=FAIL\n", step, rc);
  return 1;
}

}  // namespace

int main() {
  int major = 0, minor = 0;
  nvrtcResult nrc = nvrtcVersion(&major, &minor);
  std::printf("nvrtc_version_rc=%d\nnvrtc=%d.%d\n", static_cast<int>(nrc), major, minor);
  const char* src =
      "extern \"C\" __global__ void axpb(float* x, float a, float b, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] = a * x[i] + b;\n"
      "}\n";
  nvrtcProgram prog = nullptr;
  nrc = nvrtcCreateProgram(&prog, src, "axpb.cu", 0, nullptr, nullptr);
  if (nrc != NVRTC_SUCCESS) return Fail("create", nrc);
  // compute_75: every NVRTC 11.2-13.x targets it and every GPU since Turing JITs it.
  const char* opts[] = {"--gpu-architecture=compute_75"};
  nrc = nvrtcCompileProgram(prog, 1, opts);
  std::printf("compile_rc=%d\n", static_cast<int>(nrc));
  if (nrc != NVRTC_SUCCESS) {
    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      std::string log(log_size, '\0');
      nvrtcGetProgramLog(prog, &log[0]);
      std::printf("compile_log=%s\n", log.c_str());
    }
    return Fail("compile", nrc);
  }
  size_t size = 0;
  nrc = nvrtcGetPTXSize(prog, &size);
  if (nrc != NVRTC_SUCCESS) return Fail("ptx_size", nrc);
  std::string ptx(size, '\0');
  nrc = nvrtcGetPTX(prog, &ptx[0]);
  if (nrc != NVRTC_SUCCESS) return Fail("ptx", nrc);
  nvrtcDestroyProgram(&prog);
  const size_t at = ptx.find("\n.version ");
  std::printf("ptx_version=%s\n",
              at == std::string::npos
                  ? "?"
                  : ptx.substr(at + 10, ptx.find('\n', at + 1) - at - 10).c_str());

  CUresult rc = cuInit(0);
  if (rc != CUDA_SUCCESS) return Fail("init", rc);
  int driver = 0;
  cuDriverGetVersion(&driver);
  std::printf("driver_version=%d\n", driver);
  CUdevice dev = 0;
  if ((rc = cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) return Fail("device", rc);
  CUcontext ctx = nullptr;
  if ((rc = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS) return Fail("ctx", rc);
  if ((rc = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return Fail("ctx_current", rc);
  CUmodule module = nullptr;
  rc = cuModuleLoadData(&module, ptx.c_str());
  std::printf("load_rc=%d\n", static_cast<int>(rc));
  if (rc != CUDA_SUCCESS) return Fail("load", rc);
  CUfunction fn = nullptr;
  if ((rc = cuModuleGetFunction(&fn, module, "axpb")) != CUDA_SUCCESS) return Fail("function", rc);

  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  CUdeviceptr d = 0;
  if ((rc = cuMemAlloc(&d, n * sizeof(float))) != CUDA_SUCCESS) return Fail("alloc", rc);
  if ((rc = cuMemcpyHtoD(d, host.data(), n * sizeof(float))) != CUDA_SUCCESS) return Fail("htod", rc);
  float a = 2.0f, b = 1.0f;
  int count = n;
  void* args[] = {&d, &a, &b, &count};
  rc = cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);
  if (rc != CUDA_SUCCESS) return Fail("launch", rc);
  if ((rc = cuCtxSynchronize()) != CUDA_SUCCESS) return Fail("sync", rc);
  if ((rc = cuMemcpyDtoH(host.data(), d, n * sizeof(float))) != CUDA_SUCCESS) return Fail("dtoh", rc);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != 2.0f * static_cast<float>(i) + 1.0f;
  cuMemFree(d);
  cuModuleUnload(module);
  cuDevicePrimaryCtxRelease(dev);
  std::printf("wrong=%d\nresult=%s\n", wrong, wrong == 0 ? "ok" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
