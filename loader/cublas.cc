// cuBLAS (libcublas) on the toolkit library template (loader/toolkit.h): the newest cuBLAS whose
// CUDA major the driver in front of the program runs, every entry of the 13.0 cublas_v2.h
// (version_tables/cublas_api_table.tsv) bound to that cuBLAS's own function.
//  * Status: CUBLAS_STATUS_NOT_INITIALIZED (1) when no cuBLAS the driver runs was found (what
//    cublasCreate answers when the CUDA side cannot start); CUBLAS_STATUS_NOT_SUPPORTED (15) for an
//    entry the chosen cuBLAS lacks (the _64 variants before 12.x, the 13.x emulation calls before 13).
//  * Version: cublasGetProperty (130100 for 13.1.0) and cublasGetCudartVersion; cuBLAS of major M
//    embeds the CUDA M runtime, so it runs on any CUDA M.0+ driver (loader/cudart_family.h).
//  * libcublasLt: every real libcublas needs libcublasLt.so.<major> by bare name, and its RUNPATH
//    $ORIGIN comes after LD_LIBRARY_PATH: the one beside a cuBLAS file is dlopen'ed by its path
//    first, so the cuBLAS binds its own. companion() names the libcublasLt the process has, with a
//    warning when it is not the one beside the cuBLAS (one of that SONAME was loaded before).
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
  // cudyn's own cuBLASLt drop-in (`cudyn run --libraries` preloads it under this SONAME): it
  // forwards to the release its loader picks by the same rule, so nothing is amiss.
  const bool cudyn_lt = dlsym(lt, "cudynCublasLtEntryCount") != nullptr;
  dlclose(lt);
  if (cudyn_lt) return loaded + " (cudyn's cuBLASLt drop-in)";
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
  ToolkitTraits t = BaseCublasTraits();
  CUDYN_TOOLKIT_TABLE(t);
  t.release_of = &CublasRelease;
  t.open_before = &OpenCublasLtBeside;
  t.after_accept = &NoteCublasLt;
  return t;
}

}  // namespace

constexpr ToolkitTraits kCublasTraits = MakeTraits();
CUDYN_DEFINE_TOOLKIT(Cublas, cublas, kCublasEntryCount)

}  // namespace cudyn
