// The CUDA library family through cudyn in one program (tests/gpu/run_family.sh): written against
// the CUDA 13.0 headers as users write one, linked with -lcudart -lnvrtc -lcublas -lcuda. It
//   1. allocates and copies with the runtime (cudaMalloc / cudaMemcpy),
//   2. compiles a kernel with NVRTC to PTX, loads it with cuModuleLoadData into the runtime's
//      primary context and launches it on the runtime's buffer (the driver API and the runtime in
//      one process),
//   3. multiplies 64x64 matrices with cuBLAS: SGEMM and GemmEx (FP16 inputs, FP32 accumulate).
// Prints key=value lines: which runtime, driver, NVRTC, PTX .version and cuBLAS answered, the
// library files mapped, each step's result, an FNV-1a hash of every output value (equal across runs
// means bit-identical results), and `result=ok` when every value equals the CPU's. Exit 0 only then.
// The NVRTC kernel, its compile and launch: axpb_nvrtc.h, shared with nvrtc_probe.cc.
//   g++ -O2 -I$CUDA/include family_probe.cc -L$CUDA/lib64 -lcublas -lnvrtc -lcudart -lcuda
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "axpb_nvrtc.h"
#include "probe_util.h"

namespace {

using probe::Fail;

constexpr int kN = 64;

// FNV-1a over the bytes of every value: equal hashes across runs mean bit-identical outputs.
uint64_t Hash(const void* data, size_t size, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// IEEE half of a float that half represents exactly (the inputs below: multiples of 1/8).
uint16_t ToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  if ((x & 0x7fffffffu) == 0) return sign;
  const int exponent = static_cast<int>((x >> 23) & 0xffu) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((x >> 13) & 0x3ffu));
}

// The file names of the mapped CUDA libraries (runtime, driver, NVRTC, cuBLAS, cudyn's drop-ins).
void PrintMapped() {
  std::set<std::string> seen;
  for (const char* lib : {"libcudart", "libcuda.", "libnvrtc", "libcublas", "libcudyn"}) {
    const std::set<std::string> files = probe::MappedFiles(lib, /*prefix=*/true);
    seen.insert(files.begin(), files.end());
  }
  for (const std::string& file : seen) std::printf("mapped=%s\n", file.c_str());
}

}  // namespace

int main() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::printf("runtime_version=%d\ndriver_version=%d\n", runtime, driver);

  // 1. The runtime: the input vector.
  const int n = 1000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.25f;
  float* dx = nullptr;
  cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&dx), n * sizeof(float));
  if (err != cudaSuccess) return Fail("cudaMalloc", err);
  if ((err = cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice)) != cudaSuccess)
    return Fail("cudaMemcpy_htod", err);

  // 2. NVRTC: compile, load into the runtime's current (primary) context, launch.
  int nv_major = 0, nv_minor = 0;
  nvrtcVersion(&nv_major, &nv_minor);
  std::printf("nvrtc=%d.%d\n", nv_major, nv_minor);
  std::string ptx;
  probe::Step step = probe::Step::kNone;
  const nvrtcResult nrc = probe::CompileAxpb(&ptx, &step, /*log=*/false);
  if (nrc != NVRTC_SUCCESS) return Fail((std::string("nvrtc_") + probe::StepName(step)).c_str(), nrc);
  std::printf("ptx_version=%s\n", probe::PtxVersion(ptx).c_str());
  CUmodule module = nullptr;
  CUresult rc = cuModuleLoadData(&module, ptx.c_str());
  std::printf("load_rc=%d\n", static_cast<int>(rc));
  if (rc != CUDA_SUCCESS) return Fail("cuModuleLoadData", rc);
  if ((rc = probe::LaunchAxpb(module, reinterpret_cast<CUdeviceptr>(dx), 2.0f, 1.0f, n, &step)) !=
      CUDA_SUCCESS)
    return Fail(probe::StepName(step), rc);
  if ((err = cudaDeviceSynchronize()) != cudaSuccess) return Fail("cudaDeviceSynchronize", err);
  std::vector<float> y(n);
  if ((err = cudaMemcpy(y.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return Fail("cudaMemcpy_dtoh", err);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[i] != 2.0f * x[i] + 1.0f;
  std::printf("kernel_wrong=%d\n", wrong);
  uint64_t hash = Hash(y.data(), n * sizeof(float));
  cudaFree(dx);
  cuModuleUnload(module);

  // 3. cuBLAS: SGEMM and GemmEx FP16 against the CPU.
  cublasHandle_t handle = nullptr;
  cublasStatus_t st = cublasCreate(&handle);
  std::printf("cublasCreate=%d\n", static_cast<int>(st));
  if (st != CUBLAS_STATUS_SUCCESS) {
    PrintMapped();
    return Fail("cublasCreate", st);
  }
  int cublas_version = 0;
  cublasGetVersion(handle, &cublas_version);
  std::printf("cublas_version=%d\n", cublas_version);
  std::vector<float> ma(kN * kN), mb(kN * kN), mc(kN * kN), want(kN * kN);
  std::vector<uint16_t> ha(kN * kN), hb(kN * kN);
  for (int i = 0; i < kN * kN; ++i) {
    ma[i] = static_cast<float>((i * 7) % 13) / 8.0f - 0.75f;  // exact in FP16
    mb[i] = static_cast<float>((i * 5) % 11) / 4.0f - 1.25f;
    ha[i] = ToHalf(ma[i]);
    hb[i] = ToHalf(mb[i]);
  }
  for (int col = 0; col < kN; ++col)  // column-major C = A * B
    for (int row = 0; row < kN; ++row) {
      double s = 0;
      for (int k = 0; k < kN; ++k) s += static_cast<double>(ma[k * kN + row]) * mb[col * kN + k];
      want[col * kN + row] = static_cast<float>(s);
    }
  const size_t fbytes = kN * kN * sizeof(float), hbytes = kN * kN * sizeof(uint16_t);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  uint16_t *dha = nullptr, *dhb = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&da), fbytes);
  cudaMalloc(reinterpret_cast<void**>(&db), fbytes);
  cudaMalloc(reinterpret_cast<void**>(&dc), fbytes);
  cudaMalloc(reinterpret_cast<void**>(&dha), hbytes);
  cudaMalloc(reinterpret_cast<void**>(&dhb), hbytes);
  cudaMemcpy(da, ma.data(), fbytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, mb.data(), fbytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dha, ha.data(), hbytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dhb, hb.data(), hbytes, cudaMemcpyHostToDevice);
  const float one = 1.0f, zero = 0.0f;
  st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one, da, kN, db, kN, &zero, dc, kN);
  cudaMemcpy(mc.data(), dc, fbytes, cudaMemcpyDeviceToHost);
  double max_error = 0;
  for (int i = 0; i < kN * kN; ++i) max_error = std::fmax(max_error, std::fabs(mc[i] - want[i]));
  std::printf("sgemm=%d max_error=%.2g\n", static_cast<int>(st), max_error);
  bool bad = st != CUBLAS_STATUS_SUCCESS || max_error > 1e-3;
  hash = Hash(mc.data(), fbytes, hash);
  cudaMemset(dc, 0, fbytes);
  st = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one, dha, CUDA_R_16F, kN, dhb,
                    CUDA_R_16F, kN, &zero, dc, CUDA_R_32F, kN, CUBLAS_COMPUTE_32F,
                    CUBLAS_GEMM_DEFAULT);
  cudaMemcpy(mc.data(), dc, fbytes, cudaMemcpyDeviceToHost);
  max_error = 0;
  for (int i = 0; i < kN * kN; ++i) max_error = std::fmax(max_error, std::fabs(mc[i] - want[i]));
  std::printf("gemm_ex_fp16=%d max_error=%.2g\n", static_cast<int>(st), max_error);
  bad = bad || st != CUBLAS_STATUS_SUCCESS || max_error > 1e-2;
  hash = Hash(mc.data(), fbytes, hash);
  cublasDestroy(handle);
  for (void* p : {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dc),
                  static_cast<void*>(dha), static_cast<void*>(dhb)})
    cudaFree(p);

  PrintMapped();
  std::printf("hash=%016llx\n", static_cast<unsigned long long>(hash));
  const bool ok = wrong == 0 && !bad;
  std::printf("result=%s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
