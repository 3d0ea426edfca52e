// Module-load cost of the clamp's driver emulation (CUDYN_CLAMP_MODE=emulate, loader/emulate.cc):
// cuModuleLoadData of one real nvcc image, in one process and one run, called
//   Direct     through a raw dlsym'd pointer into the driver (RTLD_LOCAL handle),
//   DropIn     through cudyn's static driver drop-in (//stubs:cudyn_cuda, no clamp: plain),
//   Plain      through a cudyn::Driver opened on the same driver, no clamp,
//   Clamp      the same with a clamp (max_cuda_version; versions only, no emulation),
//   Emulate    the same with the clamp and driver emulation: each load judges the image
//              (kernel_rule::ChooseImage on the current GPU) and hands the driver a fatbin with
//              only the chosen entry.
// The Driver instances are what the drop-in calls underneath (it adds one jmp: bench/RESULTS.md);
// three of them in one process give the three modes in one run, so the ratios Emulate / Direct,
// Clamp / Direct, Plain / Direct come from the same run.
//
//   CUDYN_DRIVER_PATH=/abs/fake/libcuda.so.1  the driver (a generated fake answers module loads
//                                             without a GPU; tests/fake_driver)
//   CUDYN_FAKE_GPU=86                         the fake's GPU (compute capability number)
//   CUDYN_BENCH_IMAGE=/abs/image.fatbin       the image (an nvcc fatbin)
//   CUDYN_BENCH_CLAMP=12.2                    the clamp (ParseCudaVersion's forms); default: the
//                                             newest real driver of the table below the driver's
// The fake records every call (a mutex and a copy of the arguments): that cost is in every variant
// alike. Emulation also asks the driver for the current device and its compute capability per
// load (three more calls of the fake): part of what the judgment costs.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "bench/bench_env.h"
#include "benchmark/benchmark.h"
#include "loader/cudyn.h"
#include "tests/fake_driver/fake_driver.h"

namespace {

using ModuleLoadDataFn = CUresult (*)(CUmodule*, const void*);
using InitFn = CUresult (*)(unsigned);

std::string g_image;
ModuleLoadDataFn g_direct = nullptr;
std::unique_ptr<cudyn::Driver> g_plain, g_clamp, g_emulate;

// The image the fake's last cuModuleLoadData was handed (its argument 1), or nullptr.
const void* LastImageHanded(const CudynFakeApi& fake) {
  for (int i = fake.call_count() - 1; i >= 0; --i) {
    const CudynFakeCall* call = fake.call(i);
    if (call != nullptr && std::string(call->symbol) == "cuModuleLoadData") {
      return reinterpret_cast<const void*>(call->args[call->arg_word[1]]);
    }
  }
  return nullptr;
}

// The clamp: CUDYN_BENCH_CLAMP, else the newest real driver's CUDA version below `driver`.
int ClampVersion(int driver) {
  const char* env = std::getenv("CUDYN_BENCH_CLAMP");
  if (env != nullptr && env[0] != '\0') return cudyn::ParseCudaVersion(env).value_or(0);
  int best = 0;
  for (int k = 0; k < cudyn::kRealDriverCount; ++k) {
    const int v = cudyn::kRealDrivers[k].cuda_version;
    if (v < driver && v > best) best = v;
  }
  return best;
}

std::unique_ptr<cudyn::Driver> OpenDriver(int clamp, bool emulate) {
  cudyn::DriverOptions options;
  options.driver_path = cudyn_bench::DriverPath();
  if (clamp > 0) options.max_cuda_version = clamp;
  options.emulate_driver = emulate;
  return cudyn::Driver::Open(options);
}

ModuleLoadDataFn LoadDataOf(cudyn::Driver* d) {
  return reinterpret_cast<ModuleLoadDataFn>(d->Resolve(cudyn::kEntry_cuModuleLoadData));
}

void Loop(benchmark::State& state, ModuleLoadDataFn load) {
  const void* image = g_image.data();
  for (auto _ : state) {
    CUmodule module = nullptr;
    benchmark::DoNotOptimize(load(&module, image));
    benchmark::DoNotOptimize(module);
  }
}

void BM_ModuleLoadData_Direct(benchmark::State& state) { Loop(state, g_direct); }
void BM_ModuleLoadData_DropIn(benchmark::State& state) { Loop(state, &cuModuleLoadData); }
void BM_ModuleLoadData_Plain(benchmark::State& state) { Loop(state, LoadDataOf(g_plain.get())); }
void BM_ModuleLoadData_Clamp(benchmark::State& state) { Loop(state, LoadDataOf(g_clamp.get())); }
void BM_ModuleLoadData_Emulate(benchmark::State& state) {
  Loop(state, LoadDataOf(g_emulate.get()));
}

BENCHMARK(BM_ModuleLoadData_Direct);
BENCHMARK(BM_ModuleLoadData_DropIn);
BENCHMARK(BM_ModuleLoadData_Plain);
BENCHMARK(BM_ModuleLoadData_Clamp);
BENCHMARK(BM_ModuleLoadData_Emulate);

int Usage(const char* why) {
  std::fprintf(stderr,
               "module_load_bench: %s\n  set CUDYN_DRIVER_PATH (absolute), CUDYN_FAKE_GPU and "
               "CUDYN_BENCH_IMAGE (see the file's comment)\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // The drop-in reads these at its first call: it must be the plain one.
  unsetenv("CUDYN_MAX_CUDA_VERSION");
  unsetenv("CUDYN_CLAMP_MODE");
  benchmark::Initialize(&argc, argv);
  if (!cudyn_bench::DriverPathIsExplicit()) return Usage("CUDYN_DRIVER_PATH is not absolute");
  const char* image_path = std::getenv("CUDYN_BENCH_IMAGE");
  if (image_path == nullptr) return Usage("no CUDYN_BENCH_IMAGE");
  std::ifstream in(image_path, std::ios::binary);
  g_image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (g_image.empty()) return Usage("cannot read CUDYN_BENCH_IMAGE");

  void* handle = cudyn_bench::ReferenceDriver();
  g_direct = reinterpret_cast<ModuleLoadDataFn>(cudyn_bench::ReferenceSymbol("cuModuleLoadData"));
  auto init = reinterpret_cast<InitFn>(cudyn_bench::ReferenceSymbol("cuInit"));
  if (g_direct == nullptr || init == nullptr) return Usage("the driver lacks cuModuleLoadData");
  const int version = cudyn_bench::DriverVersion(handle);
  const int clamp = ClampVersion(version);
  if (clamp <= 0 || clamp >= version) return Usage("no clamp below the driver's version");
  g_plain = OpenDriver(0, false);
  g_clamp = OpenDriver(clamp, false);
  g_emulate = OpenDriver(clamp, true);
  for (cudyn::Driver* d : {g_plain.get(), g_clamp.get(), g_emulate.get()}) {
    if (d == nullptr || !d->ok() || LoadDataOf(d) == nullptr) return Usage("cudyn cannot open it");
  }
  if (!g_emulate->emulating()) return Usage("driver emulation is off");

  // cuInit through every way (the emulated one decides there whether it offers the GPU), then
  // one load each: every way must answer 0 (the emulated driver chose an image), and the driver
  // must have been handed the image itself, except under emulation (a fatbin of the one chosen
  // entry): the benchmark times the judgment only when that holds.
  CudynFakeApi fake;
  if (!cudynFakeBind(handle, &fake)) return Usage("the driver is not a fake (tests/fake_driver)");
  CUmodule module = nullptr;
  std::printf("driver %d, clamp %d, image %zu bytes; cuInit:", version, clamp, g_image.size());
  std::printf(" direct %d, drop-in %d", init(0), cuInit(0));
  ModuleLoadDataFn ways[5] = {g_direct, &cuModuleLoadData, LoadDataOf(g_plain.get()),
                              LoadDataOf(g_clamp.get()), LoadDataOf(g_emulate.get())};
  for (cudyn::Driver* d : {g_plain.get(), g_clamp.get(), g_emulate.get()}) {
    std::printf(", %d", reinterpret_cast<InitFn>(d->Resolve(cudyn::kEntry_cuInit))(0));
  }
  int results[5] = {};
  bool replaced[5] = {};
  for (int k = 0; k < 5; ++k) {
    results[k] = ways[k](&module, g_image.data());
    replaced[k] = LastImageHanded(fake) != g_image.data();
  }
  std::printf("\ncuModuleLoadData: direct %d, drop-in %d, plain %d, clamp %d, emulate %d\n",
              results[0], results[1], results[2], results[3], results[4]);
  for (int r : results) {
    if (r != CUDA_SUCCESS) return Usage("a load failed: no GPU the image runs on (CUDYN_FAKE_GPU)");
  }
  if (replaced[0] || replaced[1] || replaced[2] || replaced[3] || !replaced[4]) {
    return Usage("only the emulated load should hand the driver another image");
  }
  std::printf("the emulated load handed the driver the chosen entry, the others the image\n");
  cudyn_bench::AddBenchContext("module_load", handle);
  benchmark::AddCustomContext("clamp", std::to_string(clamp));
  benchmark::AddCustomContext("image", image_path);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
