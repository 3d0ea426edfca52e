// NVRTC's traits for the toolkit library template. See nvrtc.h.
#include "loader/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>

#include "loader/core.h"
#include "loader/nvrtc_rule.h"

namespace cudyn {
namespace {

#include "version_tables/generated_nvrtc/nvrtc_table.inc"

std::string IsaText(int isa) { return std::to_string(isa / 10) + "." + std::to_string(isa % 10); }

bool ReadNvrtcVersion(const ToolkitTraits&, void*, void* version_function, ToolkitVersion* out,
                      std::string* answer) {
  int major = 0, minor = 0;
  const int rc = reinterpret_cast<int (*)(int*, int*)>(version_function)(&major, &minor);
  out->version = major * 1000 + minor * 10;
  *answer = std::to_string(rc) + " (" + std::to_string(major) + "." + std::to_string(minor) + ")";
  return rc == 0 && internal::IsPlausibleCudaVersion(out->version);
}

// NVRTC's version is its CUDA release; a release newer than the facts is its own (it may emit an
// ISA the facts do not know: NvrtcMinDriver answers the release itself).
int NvrtcRelease(const ToolkitTraits&, const ToolkitVersion& version) { return version.version; }

std::string EmitsIsa(int release) { return "emits PTX ISA " + IsaText(NvrtcPtxIsa(release)); }

// The oldest release under a SONAME: libnvrtc.so.12 -> 12.0, libnvrtc.so.11.2 -> 11.2 (every
// later release emits the same ISA or a newer one).
int OldestNvrtcOfSoname(const std::string& soname) {
  static constexpr char kPrefix[] = "libnvrtc.so.";
  if (soname.rfind(kPrefix, 0) != 0) return 0;
  const char* digits = soname.c_str() + sizeof(kPrefix) - 1;
  char* end = nullptr;
  const long major = std::strtol(digits, &end, 10);
  long minor = 0;
  if (end != digits && *end == '.') minor = std::strtol(end + 1, nullptr, 10);
  const long oldest = major * 1000 + minor * 10;
  return end != digits && minor >= 0 && minor <= 99 && internal::IsPlausibleCudaVersion(oldest)
             ? static_cast<int>(oldest)
             : 0;
}

// NVRTC dlopens libnvrtc-builtins.so.<major.minor> by its bare name at its first compile: the
// copy in the chosen NVRTC's own directory is loaded here first, so that name is then found.
std::string LoadBuiltins(Toolkit& nvrtc, bool) {
  const int v = nvrtc.version();
  const std::string name =
      "libnvrtc-builtins.so." + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  if (void* loaded = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
    dlclose(loaded);  // one is loaded already; NVRTC will find it
    return name + " (already loaded)";
  }
  const std::string& path = nvrtc.path();
  const std::string file = path.substr(0, path.rfind('/') + 1) + name;
  if (path.find('/') == std::string::npos || !internal::FileExists(file)) {
    return name + " (not beside " + path + ": left to NVRTC's own search)";
  }
  if (dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL) != nullptr) return file;
  const char* why = dlerror();
  const std::string failed = file + " (dlopen failed: " + (why != nullptr ? why : "?") + ")";
  nvrtc.AddWarning("NVRTC's builtins " + failed);
  return failed;
}

constexpr ToolkitTraits MakeTraits() {
  ToolkitTraits t{};
  t.name = "NVRTC";
  t.library = "nvrtc";
  t.file = "libnvrtc";
  t.env_name = "CUDYN_NVRTC_PATH";
  t.wheel_before_13 = "/nvidia/cuda_nvrtc/lib";
  t.version_symbol = "nvrtcVersion";
  t.cudyn_marker = "cudynNvrtcEntryCount";
  t.not_the_library = "not_nvrtc";
  t.too_new = "ptx_too_new";
  t.no_library_status = kNvrtcErrorInternalError;
  t.not_supported_status = kNvrtcErrorInvalidInput;
  t.not_supported_name = "NVRTC_ERROR_INVALID_INPUT";
  CUDYN_TOOLKIT_TABLE(t);
  t.read_version = &ReadNvrtcVersion;
  t.version_text = &CudaVersionText;
  t.release_of = &NvrtcRelease;
  t.min_driver = &NvrtcMinDriver;
  t.requirement = &EmitsIsa;
  t.oldest_release_of_soname = &OldestNvrtcOfSoname;
  t.after_accept = &LoadBuiltins;
  return t;
}

}  // namespace

constexpr ToolkitTraits kNvrtcTraits = MakeTraits();
CUDYN_DEFINE_TOOLKIT(Nvrtc, nvrtc, kNvrtcEntryCount)

}  // namespace cudyn
