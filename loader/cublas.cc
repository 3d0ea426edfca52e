// cuBLAS's traits for the toolkit library template. See cublas.h.
#include "loader/cublas.h"

#include <dlfcn.h>
#include <link.h>

#include "loader/core.h"

namespace cudyn {
namespace {

#include "version_tables/generated_cublas/cublas_table.inc"

// The libcublasLt.so.<major> beside a cuBLAS file (its SONAME libcublas.so.<major>), dlopen'ed by
// its path when it is one (its own SONAME says so); null for a bare name of the default search
// (the dynamic linker's own search decides), a file of another SONAME, or no Lt beside it.
void* OpenCublasLtBeside(const std::string& path) {
  static constexpr char kPrefix[] = "libcublas.so.";
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return nullptr;
  const std::string soname = internal::ReadElfSoname(path);
  if (soname.rfind(kPrefix, 0) != 0) return nullptr;
  const std::string lt_name = "libcublasLt.so." + soname.substr(sizeof(kPrefix) - 1);
  const std::string lt = path.substr(0, slash + 1) + lt_name;
  if (internal::ReadElfSoname(lt) != lt_name) return nullptr;
  return dlopen(lt.c_str(), RTLD_LAZY | RTLD_LOCAL);
}

// Which libcublasLt the process has for the accepted cuBLAS: the one beside it when it was loaded
// first (`own_lt`), else whatever the dynamic linker found; a warning when it is not the
// neighbour (one of that SONAME was loaded before: the dynamic linker matches the first).
std::string NoteCublasLt(Toolkit& cublas, bool own_lt) {
  const std::string name = "libcublasLt.so." + std::to_string(cublas.version() / 10000);
  void* lt = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (lt == nullptr) return name + " (not loaded)";
  std::string loaded = name;
  struct link_map* map = nullptr;
  if (dlinfo(lt, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    loaded = map->l_name;
  }
  dlclose(lt);
  const std::string& path = cublas.path();
  const std::string beside = path.substr(0, path.rfind('/') + 1) + name;
  if (path.find('/') != std::string::npos && internal::FileExists(beside) &&
      internal::RealPath(beside) != internal::RealPath(loaded)) {
    cublas.AddWarning("cuBLAS " + path + " uses " + loaded + ", not the " + name +
                      " beside it (one of that name was loaded first)");
  } else if (own_lt) {
    internal::LogAt(internal::LogLevel::kDebug, "cuBLAS ", path, ": its own ", loaded,
                    " loaded first, by its path");
  }
  return loaded;
}

// cuBLAS 11.11 is of CUDA 11.8, 13.1 of the 13.0 toolkit: the newest release of its major at or
// below 1000*major + 10*minor; a cuBLAS of a major the facts know no release of at or below it
// (12.2) is of M.0 (its runtime's driver rule; it binds by the older facts).
int CublasRelease(const ToolkitTraits& traits, const ToolkitVersion& version) {
  const int major = version.version / 10000;
  const int as_cuda = major * 1000 + version.version % 10000 / 100 * 10;
  int best = 0;
  for (int i = 0; i < traits.release_count; ++i) {
    const int r = traits.releases[i].release;
    if (r / 1000 == major && r <= as_cuda && r > best) best = r;
  }
  return best != 0 ? best : major * 1000;
}

constexpr ToolkitTraits MakeTraits() {
  ToolkitTraits t{};
  t.name = "cuBLAS";
  t.library = "cublas";
  t.file = "libcublas";
  t.env_name = "CUDYN_CUBLAS_PATH";
  t.wheel_before_13 = "/nvidia/cublas/lib";
  t.version_symbol = "cublasGetProperty";
  t.cudyn_marker = "cudynCublasEntryCount";
  t.not_the_library = "not_cublas";
  t.too_new = "driver_too_old";
  t.no_library_status = kCublasStatusNotInitialized;
  t.not_supported_status = kCublasStatusNotSupported;
  t.not_supported_name = "CUBLAS_STATUS_NOT_SUPPORTED";
  CUDYN_TOOLKIT_TABLE(t);
  t.runtime_version_symbol = "cublasGetCudartVersion";
  t.read_version = &ReadPropertyVersion;
  t.version_text = &PropertyVersionText;
  t.release_of = &CublasRelease;
  t.oldest_release_of_soname = &SonameMajorRelease;
  t.open_before = &OpenCublasLtBeside;
  t.after_accept = &NoteCublasLt;
  return t;
}

}  // namespace

constexpr ToolkitTraits kCublasTraits = MakeTraits();
CUDYN_DEFINE_TOOLKIT(Cublas, cublas, kCublasEntryCount)

}  // namespace cudyn
