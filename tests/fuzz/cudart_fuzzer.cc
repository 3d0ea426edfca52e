// libFuzzer target: the runtime (libcudart) loader's SONAME parsing and environment. The input is
// up to nine lines:
//   a SONAME, CUDYN_CUDART_PATH, CUDYN_MAX_CUDA_VERSION, CUDA_HOME, CUDA_PATH, VIRTUAL_ENV,
//   CONDA_PREFIX, CUDYN_LOG, and a last line whose last byte picks the driver version (10.0, 10.1
//   or 10.2: byte % 3) and which, when it starts with "opt", makes the clamp an explicit option.
// ParseCudartSoname gets the first line (invariants checked), then the whole environment path
// runs: Runtime::Open(use_environment) with the fuzzed variables set (empty lines unset them).
// Nothing is ever loaded: CUDYN_CUDART_PATH is either kept relative (rejected without any file
// access) or put under a directory that does not exist, the other paths always are, with ".."
// removed; and a CUDA 10.x driver makes the search look only for libcudart.so.10.x, which exists
// nowhere on the machines this runs on (the default search, site-packages and /usr/local/cuda-*
// are probed: a 10.x runtime there would make Open succeed and the target trap).
//
// Build and run: tests/fuzz/run_fuzzer.sh cudart [seconds]. Under Bazel: :cudart_fuzzer_smoke.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loader/cudart.h"
#include "loader/cudart_family.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

std::string WithoutDotDot(std::string path) {
  for (size_t dots; (dots = path.find("..")) != std::string::npos;) path.erase(dots, 2);
  return path;
}

// A directory variable: always under the missing directory (relative ones too, so nothing is
// looked up from the working directory).
std::string Harmless(const std::string& value) {
  if (value.empty()) return value;
  std::string path = WithoutDotDot(value);
  return "/nonexistent-cudyn-fuzz" + (path.empty() || path[0] != '/' ? "/" + path : path);
}

void CheckSoname(const std::string& soname) {
  int family = -2, minor = -2;
  cudyn::ParseCudartSoname(soname, &family, &minor);
  if (family != 0 && (family < 1 || family > 99)) __builtin_trap();
  if (family != 0 && soname.rfind("libcudart.so.", 0) != 0) __builtin_trap();
  if (family == 0 && minor != -1) __builtin_trap();
  // A minor needs a '.' after the major, and is 0..99 or none (-1).
  if (soname.find('.', 13) == std::string::npos && minor != -1) __builtin_trap();
  if (minor < -1 || minor > 99) __builtin_trap();
  int family2 = -2, minor2 = -2;
  cudyn::ParseCudartSoname(soname, &family2, &minor2);
  if (family2 != family || minor2 != minor) __builtin_trap();  // deterministic
  if (family != 0) {  // the canonical spelling parses back to the same facts
    std::string canonical = "libcudart.so." + std::to_string(family);
    if (minor != -1) canonical += "." + std::to_string(minor);
    cudyn::ParseCudartSoname(canonical, &family2, &minor2);
    if (family2 != family || minor2 != minor) __builtin_trap();
  }
}

bool IsLogLevel(const std::string& v) {
  for (const char* level :
       {"trace", "debug", "info", "warn", "warning", "error", "critical", "off"}) {
    if (v == level) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> f = cudyn::fuzz::Lines(data, size, 9);
  CheckSoname(f[0]);

  // CUDYN_CUDART_PATH: relative (rejected before any file access) or under a missing directory.
  std::string path = WithoutDotDot(f[1]);
  if (!path.empty() && path[0] == '/') path = "/nonexistent-cudyn-fuzz" + path;

  cudyn::fuzz::SetOrUnset("CUDYN_CUDART_PATH", path);
  cudyn::fuzz::SetOrUnset("CUDYN_MAX_CUDA_VERSION", f[2]);
  cudyn::fuzz::SetOrUnset("CUDA_HOME", Harmless(f[3]));
  cudyn::fuzz::SetOrUnset("CUDA_PATH", Harmless(f[4]));
  cudyn::fuzz::SetOrUnset("VIRTUAL_ENV", Harmless(f[5]));
  cudyn::fuzz::SetOrUnset("CONDA_PREFIX", Harmless(f[6]));
  cudyn::fuzz::SetOrUnset("CUDYN_LOG", f[7]);
  static constexpr int kDrivers[] = {10000, 10010, 10020};
  const int driver = kDrivers[(f[8].empty() ? 0 : static_cast<uint8_t>(f[8].back())) % 3];
  const std::optional<int> version = cudyn::ParseCudaVersion(f[2]);
  cudyn::RuntimeOptions options;
  options.use_environment = true;
  options.driver_version = driver;
  if (f[8].rfind("opt", 0) == 0) options.max_cuda_version = version.value_or(12000);
  // No search_paths: the environment's directories and the system search run (10.x only).
  std::unique_ptr<cudyn::Runtime> runtime = cudyn::Runtime::Open(options);
  if (runtime == nullptr) __builtin_trap();
  if (runtime->ok() || runtime->error() != cudyn::kCudartErrorInitFailed) __builtin_trap();
  if (runtime->Resolve(0) != nullptr) __builtin_trap();
  if (runtime->last_error().empty()) __builtin_trap();
  // The clamp (option, else environment) only ever lowers the driver version.
  const std::optional<int> clamp = options.max_cuda_version ? options.max_cuda_version : version;
  if (runtime->driver_version() != (clamp && *clamp < driver ? *clamp : driver)) __builtin_trap();
  for (const cudyn::RuntimeCandidate& c : runtime->candidates()) {
    if (c.accepted()) __builtin_trap();
  }
  if (!path.empty()) {
    const std::vector<cudyn::RuntimeCandidate>& c = runtime->candidates();
    if (c.size() != 1 || c[0].path != path || c[0].source != cudyn::RuntimeSource::kEnvironment) {
      __builtin_trap();
    }
    if (c[0].rejection != (path[0] == '/' ? cudyn::RuntimeRejection::kUnloadableFile
                                          : cudyn::RuntimeRejection::kNotAbsolute)) {
      __builtin_trap();
    }
  } else {
    // Only skipped families and failed default-search dlopens: no file was found anywhere.
    for (const cudyn::RuntimeCandidate& c : runtime->candidates()) {
      if (c.source != cudyn::RuntimeSource::kFamilyPolicy &&
          c.source != cudyn::RuntimeSource::kDefaultSearch) {
        __builtin_trap();
      }
    }
  }
  // The runtime side warns only about CUDYN_LOG (the driver side owns the clamp's warning).
  const bool log_junk = !f[7].empty() && !IsLogLevel(f[7]);
  if (runtime->warnings().size() != (log_junk ? 1u : 0u)) __builtin_trap();
  if (log_junk && runtime->warnings()[0].rfind("CUDYN_LOG='", 0) != 0) __builtin_trap();
  return 0;
}
