// The NVRTC kernel of the GPU probes (family_probe.cc, nvrtc_probe.cc): x[i] = a * x[i] + b,
// compiled by NVRTC to PTX for compute_75 (every NVRTC 11.2-13.x targets it and every GPU since
// Turing JITs it), loaded with cuModuleLoadData into the current context and launched through the
// driver API. Needs nvrtc.h and cuda.h (the toolkit's include folder) and -lnvrtc -lcuda.
#ifndef CUDYN_TESTS_GPU_AXPB_NVRTC_H_
#define CUDYN_TESTS_GPU_AXPB_NVRTC_H_

#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>

namespace probe {

inline constexpr char kAxpbSource[] =
    "extern \"C\" __global__ void axpb(float* x, float a, float b, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = a * x[i] + b;\n"
    "}\n";

// The step of CompileAxpb / LaunchAxpb that failed; StepName: its key in a probe's output.
enum class Step { kNone, kCreate, kCompile, kPtxSize, kPtx, kFunction, kLaunch };
inline const char* StepName(Step step) {
  switch (step) {
    case Step::kNone: return "none";
    case Step::kCreate: return "create";
    case Step::kCompile: return "compile";
    case Step::kPtxSize: return "ptx_size";
    case Step::kPtx: return "ptx";
    case Step::kFunction: return "function";
    case Step::kLaunch: return "launch";
  }
  return "?";
}

// Compiles kAxpbSource to PTX. On failure answers the NVRTC result and the step that failed in
// `*step`; with `log`, a compile failure's log (if any) is printed as compile_log=.
inline nvrtcResult CompileAxpb(std::string* ptx, Step* step, bool log) {
  *step = Step::kNone;
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, kAxpbSource, "axpb.cu", 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    *step = Step::kCreate;
    return rc;
  }
  const char* opts[] = {"--gpu-architecture=compute_75"};
  rc = nvrtcCompileProgram(prog, 1, opts);
  if (rc != NVRTC_SUCCESS) {
    *step = Step::kCompile;
    size_t log_size = 0;
    if (log && nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      std::string text(log_size, '\0');
      nvrtcGetProgramLog(prog, &text[0]);
      std::printf("compile_log=%s\n", text.c_str());
    }
  } else {
    size_t size = 0;
    rc = nvrtcGetPTXSize(prog, &size);
    if (rc != NVRTC_SUCCESS) {
      *step = Step::kPtxSize;
    } else {
      ptx->assign(size, '\0');
      rc = nvrtcGetPTX(prog, &(*ptx)[0]);
      if (rc != NVRTC_SUCCESS) *step = Step::kPtx;
    }
  }
  nvrtcDestroyProgram(&prog);
  return rc;
}

// The `.version` of PTX text ("9.0"), "?" when it has none.
inline std::string PtxVersion(const std::string& ptx) {
  const size_t at = ptx.find("\n.version ");
  if (at == std::string::npos) return "?";
  return ptx.substr(at + 10, ptx.find('\n', at + 1) - at - 10);
}

// Launches axpb of `module` on the n floats at `x` in the current context (one thread each, 128
// a block); the step that failed in `*step`.
inline CUresult LaunchAxpb(CUmodule module, CUdeviceptr x, float a, float b, int n, Step* step) {
  *step = Step::kNone;
  CUfunction fn = nullptr;
  CUresult rc = cuModuleGetFunction(&fn, module, "axpb");
  if (rc != CUDA_SUCCESS) {
    *step = Step::kFunction;
    return rc;
  }
  void* args[] = {&x, &a, &b, &n};
  rc = cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);
  if (rc != CUDA_SUCCESS) *step = Step::kLaunch;
  return rc;
}

}  // namespace probe

#endif  // CUDYN_TESTS_GPU_AXPB_NVRTC_H_
