// The NVRTC proof on a GPU (tests/gpu/run_nvrtc.sh). NOT YET RUN on a GPU. A program written
// against the CUDA 13.0 nvrtc.h and cuda.h, as users write one: compiles a small kernel with
// NVRTC to PTX, loads the PTX with cuModuleLoadData, launches it and checks the result. Prints
// key=value lines: the NVRTC version used, the PTX's .version, each step's result, and
// `result=ok` or `result=FAIL`. Exit status 0 only when the kernel ran and computed the right
// values; the load's CUdresult (222 for PTX too new for the driver) is printed as load_rc.
// The kernel and its NVRTC compile: axpb_nvrtc.h (carried next to this file).
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>
#include <vector>

#include "axpb_nvrtc.h"
#include "probe_util.h"

using probe::Fail;

int main() {
  int major = 0, minor = 0;
  nvrtcResult nrc = nvrtcVersion(&major, &minor);
  std::printf("nvrtc_version_rc=%d\nnvrtc=%d.%d\n", static_cast<int>(nrc), major, minor);
  std::string ptx;
  probe::Step step = probe::Step::kNone;
  nrc = probe::CompileAxpb(&ptx, &step, /*log=*/true);
  if (step == probe::Step::kCreate) return Fail(probe::StepName(step), nrc);
  std::printf("compile_rc=%d\n", step == probe::Step::kCompile ? static_cast<int>(nrc) : 0);
  if (nrc != NVRTC_SUCCESS) return Fail(probe::StepName(step), nrc);
  std::printf("ptx_version=%s\n", probe::PtxVersion(ptx).c_str());

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

  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  CUdeviceptr d = 0;
  if ((rc = cuMemAlloc(&d, n * sizeof(float))) != CUDA_SUCCESS) return Fail("alloc", rc);
  if ((rc = cuMemcpyHtoD(d, host.data(), n * sizeof(float))) != CUDA_SUCCESS) return Fail("htod", rc);
  if ((rc = probe::LaunchAxpb(module, d, 2.0f, 1.0f, n, &step)) != CUDA_SUCCESS)
    return Fail(probe::StepName(step), rc);
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
