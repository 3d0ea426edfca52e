// NVRTC (libnvrtc) on the toolkit library template (loader/toolkit.h): the newest NVRTC whose PTX
// the driver in front of the program can JIT, every entry of the 13.0 nvrtc.h
// (version_tables/nvrtc_api_table.tsv) bound to that NVRTC's own function.
//  * Status: NVRTC_ERROR_INTERNAL_ERROR (11) when no acceptable NVRTC was found;
//    NVRTC_ERROR_INVALID_INPUT (3) for an entry the chosen NVRTC lacks (nvrtcGetLTOIR before 12.x,
//    the PCH functions and nvrtcSetFlowCallback before 13.0): the call cannot be carried out with
//    what the caller passed, which every caller already handles as a refusal, and it never means
//    success or "retry". With no NVRTC at all the drop-in's nvrtcGetErrorString answers cudyn's
//    own text (stubs/toolkit_trampoline.h).
//  * Acceptance (loader/nvrtc_rule.h): its release's PTX ISA was introduced at or before the
//    driver's CUDA version (13.0 NVRTC output on a 12.2 driver fails with
//    CUDA_ERROR_UNSUPPORTED_PTX_VERSION). Version: nvrtcVersion (1000*major + 10*minor).
//  * Builtins: NVRTC dlopens libnvrtc-builtins.so.<major.minor> by bare name at its first compile
//    (no RUNPATH in the real libraries), so the copy beside the chosen NVRTC is loaded at open;
//    otherwise a compile of an NVRTC found outside the linker's search fails with
//    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7). companion() says what was done.
#include "loader/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>

#include "loader/core.h"
#include "loader/nvrtc_rule.h"

namespace cudyn {
namespace {

#include "version_tables/generated_nvrtc/nvrtc_table.inc"

std::string IsaText(int isa) { return std::to_string(isa / 10) + "." + std::to_string(isa % 10); }

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

CUDYN_TOOLKIT_TRAITS(Nvrtc,
                     t.release_of = &NvrtcRelease;
                     t.min_driver = &NvrtcMinDriver;
                     t.requirement = &EmitsIsa;
                     t.oldest_release_of_soname = &OldestNvrtcOfSoname;
                     t.after_accept = &LoadBuiltins;)

}  // namespace

CUDYN_DEFINE_TOOLKIT(Nvrtc, nvrtc, kNvrtcEntryCount)

}  // namespace cudyn
