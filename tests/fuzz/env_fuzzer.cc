// libFuzzer target: cudyn's environment and version parsing. The input is up to seven lines:
//   CUDYN_MAX_CUDA_VERSION, CUDYN_PER_THREAD_DEFAULT_STREAM, CUDYN_LOG, CUDYN_DRIVER_PATH, a
//   line that, when it starts with "opt", makes the clamp an explicit option instead, then
//   CUDYN_NVRTC_PATH and CUDYN_CUBLAS_PATH.
// ParseCudaVersion / ParseBool get the raw lines (invariants checked), then the whole environment
// path runs: Driver::Open(use_environment) with the fuzzed variables set. CUDYN_DRIVER_PATH is
// always made harmless: either kept relative (rejected without any file access) or put under a
// directory that does not exist, with ".." removed, so no library is ever loaded. NVRTC and cuBLAS
// then run their discovery (the toolkit template's, loader/toolkit.h Toolkit::Open) on the same
// variables, their paths made harmless alike, with a fixed driver version and no search after the
// explicit path.
//
// Build and run: tests/fuzz/run_fuzzer.sh env [seconds]. Under Bazel: :env_fuzzer_smoke.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loader/cublas.h"
#include "loader/cudyn.h"
#include "loader/nvrtc.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

// A fuzzed library path that loads nothing: relative (rejected before any file access) or under a
// directory that does not exist, with ".." removed.
std::string Harmless(std::string path) {
  for (size_t dots; (dots = path.find("..")) != std::string::npos;) path.erase(dots, 2);
  if (!path.empty() && path[0] == '/') path = "/nonexistent-cudyn-fuzz" + path;
  return path;
}

// Opens a toolkit library (NVRTC, cuBLAS) from the environment, whose explicit path variable
// holds `path`: nothing is found, and the one candidate recorded is that path.
void CheckToolkit(const cudyn::ToolkitTraits& traits, cudyn::ToolkitOptions options,
                  const std::string& path, int no_library) {
  options.use_environment = true;
  options.driver_version = 12080;  // the default driver is not opened
  if (path.empty()) options.search_paths = std::vector<std::string>{};
  std::unique_ptr<cudyn::Toolkit> lib = cudyn::Toolkit::Open(traits, options);
  if (lib == nullptr) __builtin_trap();
  if (lib->ok() || lib->error() != no_library || lib->missing_result() != no_library) {
    __builtin_trap();
  }
  if (lib->Resolve(0) != nullptr || lib->last_error().empty()) __builtin_trap();
  if (!path.empty()) {
    if (lib->candidates().size() != 1 || lib->candidates()[0].path != path) __builtin_trap();
    if (lib->candidates()[0].accepted()) __builtin_trap();
  } else if (!lib->candidates().empty()) {
    __builtin_trap();
  }
  // The clamp applies to the driver version the choice uses, never raises it.
  if (lib->driver_version() > 12080 || lib->driver_version() <= 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> f = cudyn::fuzz::Lines(data, size, 7);

  std::optional<int> version = cudyn::ParseCudaVersion(f[0]);
  if (version && (*version < 1000 || *version > 99999)) __builtin_trap();
  if (version && f[0].find_first_not_of("0123456789.") != std::string::npos) __builtin_trap();
  if (cudyn::ParseCudaVersion(f[0]) != version) __builtin_trap();  // deterministic
  std::optional<bool> flag = cudyn::ParseBool(f[1]);
  if (flag && f[1].size() > 5) __builtin_trap();

  // CUDYN_DRIVER_PATH: relative (rejected before any file access) or under a missing directory.
  const std::string path = Harmless(f[3]);

  cudyn::fuzz::SetOrUnset("CUDYN_MAX_CUDA_VERSION", f[0]);
  cudyn::fuzz::SetOrUnset("CUDYN_PER_THREAD_DEFAULT_STREAM", f[1]);
  cudyn::fuzz::SetOrUnset("CUDYN_LOG", f[2]);
  cudyn::fuzz::SetOrUnset("CUDYN_DRIVER_PATH", path);
  cudyn::DriverOptions options;
  options.use_environment = true;
  if (f[4].rfind("opt", 0) == 0) options.max_cuda_version = version.value_or(12000);
  // Without CUDYN_DRIVER_PATH the loader would search the system: give it an empty search list.
  if (path.empty()) options.search_paths = std::vector<std::string>{};
  std::unique_ptr<cudyn::Driver> driver = cudyn::Driver::Open(options);
  if (driver == nullptr) __builtin_trap();
  if (driver->ok() || driver->error() != cudyn::kCudaErrorSharedObjectInitFailed) __builtin_trap();
  if (driver->Resolve(cudyn::kEntry_cuInit) != nullptr) __builtin_trap();
  if (driver->last_error().empty()) __builtin_trap();
  if (!path.empty()) {
    if (driver->candidates().size() != 1 || driver->candidates()[0].path != path) __builtin_trap();
  }
  // A rejected value is reported, an accepted one is not.
  bool clamp_warning = false, stream_warning = false;
  for (const std::string& w : driver->warnings()) {
    clamp_warning |= w.rfind("CUDYN_MAX_CUDA_VERSION=", 0) == 0;
    stream_warning |= w.rfind("CUDYN_PER_THREAD_DEFAULT_STREAM=", 0) == 0;
  }
  bool clamp_from_env = f[4].rfind("opt", 0) != 0 && !f[0].empty();
  if (clamp_warning != (clamp_from_env && !version)) __builtin_trap();
  if (stream_warning != (!f[1].empty() && !flag)) __builtin_trap();

  const std::string nvrtc_path = Harmless(f[5]), cublas_path = Harmless(f[6]);
  cudyn::fuzz::SetOrUnset("CUDYN_NVRTC_PATH", nvrtc_path);
  cudyn::fuzz::SetOrUnset("CUDYN_CUBLAS_PATH", cublas_path);
  cudyn::ToolkitOptions nvrtc_options;
  cudyn::ToolkitOptions cublas_options;
  if (f[4].rfind("opt", 0) == 0) {
    nvrtc_options.max_cuda_version = version.value_or(12000);
    cublas_options.max_cuda_version = version.value_or(12000);
  }
  CheckToolkit(cudyn::kNvrtcTraits, nvrtc_options, nvrtc_path, cudyn::kNvrtcNoLibrary);
  CheckToolkit(cudyn::kCublasTraits, cublas_options, cublas_path,
               cudyn::kCublasNoLibrary);
  return 0;
}
