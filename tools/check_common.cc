#include "tools/check_common.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "nlohmann/json.hpp"
#include "tools/deps/library_search.h"
#include "tools/elf/elf_reader.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string StripRoot(const std::string& path, const std::string& root) {
  if (!root.empty() && path.compare(0, root.size(), root) == 0) {
    std::string rest = path.substr(root.size());
    return rest.empty() ? "/" : rest;
  }
  return path;
}

std::string Prefixed(const std::string& root, const std::string& path) {
  if (root.empty()) return path;
  return root + path;
}

void ParseLdSoConf(const std::string& file, const std::string& root, int depth,
                   std::set<std::string>* visited, std::vector<SearchDir>* out) {
  if (depth > 16) return;
  std::string real = RealPath(file);
  if (!visited->insert(real).second) return;  // include cycle
  std::ifstream in(file);
  if (!in) return;
  std::string line;
  int lines = 0;
  while (std::getline(in, line) && ++lines < 100000) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    if (line.compare(0, 7, "include") == 0 && line.size() > 7 &&
        (line[7] == ' ' || line[7] == '\t')) {
      std::istringstream words(line.substr(8));
      std::string pattern;
      while (words >> pattern) {
        std::string full = pattern[0] == '/' ? Prefixed(root, pattern)
                                             : DirName(file) + "/" + pattern;
        for (const std::string& included : Glob(full)) {
          ParseLdSoConf(included, root, depth + 1, visited, out);
        }
      }
      continue;
    }
    if (line.compare(0, 5, "hwcap") == 0) continue;
    // ldconfig accepts several directories per line, separated by blanks, ':' or ','; the old
    // "dir=TYPE" form carries a library type after '='.
    for (char& c : line) {
      if (c == ':' || c == ',' || c == '\t') c = ' ';
    }
    std::istringstream words(line);
    std::string dir;
    while (words >> dir) {
      size_t eq = dir.find('=');
      if (eq != std::string::npos) dir.resize(eq);
      if (dir.empty() || dir[0] != '/') continue;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      out->push_back({Prefixed(root, dir), {"ld.so.conf (" + StripRoot(file, root) + ")"}});
    }
  }
}

}  // namespace

std::string JsonText(const Json& json, bool pretty) {
  std::string text = json.dump(pretty ? 2 : -1, ' ', false, Json::error_handler_t::replace);
  if (pretty) text.push_back('\n');
  return text;
}

bool ParseJson(const std::string& text, Json* out, std::string* error) {
  try {
    *out = Json::parse(text);
    return true;
  } catch (const Json::exception& e) {
    *error = e.what();
    return false;
  }
}

std::string ShortVersion(int version) {
  if (version <= 0) return "";
  int major = version / 1000;
  int minor = (version % 1000) / 10;
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string VersionText(int version) {
  if (version <= 0) return "unknown";
  return ShortVersion(version) + " (" + std::to_string(version) + ")";
}

std::optional<int> ParseVersionOption(const std::string& text) { return ParseCudaVersion(text); }

std::string ResultNameText(int result) {
  const char* name = nullptr;
  if (ResultName(result, &name) == kCudaSuccess && name != nullptr) return name;
  return "CUresult " + std::to_string(result);
}

std::string ResultDescriptionText(int result) {
  const char* text = nullptr;
  if (ResultString(result, &text) == kCudaSuccess && text != nullptr) return text;
  return "";
}

std::string CuInitRemedy(int result) {
  switch (result) {
    case 0:
      return "";
    case 100:
      return "No NVIDIA GPU is visible to this process. Check `nvidia-smi` on the host; in a "
             "container, start it with GPU access (docker run --gpus all, or the NVIDIA "
             "Container Toolkit / device plugin); check that CUDA_VISIBLE_DEVICES is not empty "
             "or wrong.";
    case 101:
      return "CUDA_VISIBLE_DEVICES names a device that does not exist; unset it or fix the "
             "ordinals/UUIDs.";
    case 803:
      return "The NVIDIA kernel module is older than (or otherwise does not match) this "
             "user-space libcuda: typically a driver upgrade without a reboot or module reload, "
             "or a container whose libcuda is newer than the host's driver. Reboot or reload the "
             "nvidia module, or use the host's libcuda (nvidia-container-toolkit mounts it).";
    case 804:
      return "This libcuda is a forward-compatibility (cuda-compat) library, which works only on "
             "supported data-center GPUs. Remove the cuda-compat directory (e.g. "
             "/usr/local/cuda/compat) from LD_LIBRARY_PATH / ld.so.conf and use the system "
             "driver.";
    case 34:
      return "The loaded libcuda is the CUDA toolkit's link-time stub, which cannot run "
             "anything. Remove .../lib64/stubs from LD_LIBRARY_PATH and install the NVIDIA "
             "driver.";
    case 35:
      return "The installed driver is older than the CUDA version required. Upgrade the NVIDIA "
             "driver (or install the cuda-compat package on a data-center GPU).";
    case 999:
      return "An unknown driver error, usually a kernel module or device problem: check `dmesg` "
             "for NVRM/Xid messages, `nvidia-smi`, and permissions on /dev/nvidia*.";
    case 304:
      return "An operating-system call failed: check permissions on /dev/nvidia* (is the user in "
             "the video/render group?) and that /dev/nvidia-uvm exists (modprobe nvidia-uvm).";
    case 46:
      return "The GPUs are busy or unavailable (exclusive-process or prohibited compute mode, "
             "or in use by another process): check `nvidia-smi -q -d COMPUTE`.";
    case 2:
      return "The driver ran out of memory while initialising: check for other processes on the "
             "GPU (`nvidia-smi`) and the host's memory.";
    case 805:
      return "The MPS client could not connect to the MPS server: check that nvidia-cuda-mps-"
             "control is running and CUDA_MPS_PIPE_DIRECTORY matches.";
    case 302:
      return "This driver does not export cuInit: it is not a usable CUDA driver.";
    default:
      return "cuInit failed; see the error name above and `nvidia-smi` / `dmesg`.";
  }
}

bool IsDriverCompatibilityError(int result) {
  return result == 34 || result == 35 || result == 803 || result == 804;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g;
  std::memset(&g, 0, sizeof(g));
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return out;  // glob sorts by default
}

void AddUnique(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

bool IsLibraryName(const std::string& name, const std::string& base) {
  return name.compare(0, base.size(), base) == 0 &&
         (name.size() == base.size() || name[base.size()] == '.');
}

std::vector<std::string> ListLibraryNames(const std::string& dir, const std::string& base) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (IsLibraryName(name, base)) names.push_back(name);
    if (names.size() > 1000) break;  // a directory of junk is not worth reading further
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) != nullptr) return buf;
  return path;
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string LibcudaFileVersion(const std::string& path) {
  std::string name = BaseName(RealPath(path));
  const std::string prefix = "libcuda.so.";
  if (name.compare(0, prefix.size(), prefix) != 0) return "";
  std::string version = name.substr(prefix.size());
  if (version.empty() || version.find('.') == std::string::npos ||
      version.find_first_not_of("0123456789.") != std::string::npos) {
    return "";
  }
  // Driver versions are 3-digit branches (418.226.00, 580.159.04); WSL's libcuda.so.1.1 is not.
  if (std::atoi(version.c_str()) < 100) return "";
  return version;
}

int CompareDottedVersions(const std::string& a, const std::string& b) {
  const int order = strverscmp(a.c_str(), b.c_str());  // GNU: digit runs compare as numbers
  return (order > 0) - (order < 0);
}

// ---- Opening a driver -------------------------------------------------------------------------

std::vector<std::string> PreloadDriverCompanions(const std::string& driver_path) {
  std::vector<std::string> loaded;
  elf::ElfResult elf = elf::ReadElf(driver_path);
  if (!elf.ok()) return loaded;
  std::vector<std::string> dirs = {DirName(driver_path)};
  std::string real_dir = DirName(RealPath(driver_path));
  if (real_dir != dirs[0]) dirs.push_back(real_dir);
  for (const std::string& needed : elf.value().needed) {
    if (needed.compare(0, 10, "libnvidia-") != 0 || needed.find('/') != std::string::npos) {
      continue;
    }
    if (void* already = dlopen(needed.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      dlclose(already);
      continue;
    }
    for (const std::string& dir : dirs) {
      std::string candidate = dir + "/" + needed;
      if (!Exists(candidate)) continue;
      // Kept loaded for the life of the process, like the driver that needs it.
      if (dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) {
        loaded.push_back(candidate);
        break;
      }
    }
  }
  return loaded;
}

void KeepDriverLoaded(std::unique_ptr<Driver> driver) {
  static std::mutex* const mutex = new std::mutex();
  static std::vector<Driver*>* const kept = new std::vector<Driver*>();
  if (driver == nullptr) return;
  std::lock_guard<std::mutex> lock(*mutex);
  // One kept Driver per loaded libcuda (dlopen hands out one handle per object): a process that
  // runs many checks (the Python API) would otherwise keep one Driver, and one of the loader's
  // adapter slots, per check. The duplicate is destroyed: its dlclose only drops a reference, the
  // kept one holds the library.
  for (const Driver* k : *kept) {
    if (driver->handle() != nullptr && k->handle() == driver->handle()) return;
  }
  kept->push_back(driver.release());
}

std::string FoundByText(CandidateSource found_by) {
  switch (found_by) {
    case CandidateSource::kOption: return "the --driver option";
    case CandidateSource::kEnvironment: return "the CUDYN_DRIVER_PATH environment variable";
    case CandidateSource::kAlreadyLoaded: return "a libcuda.so.1 already loaded in this process";
    case CandidateSource::kWsl: return "the WSL driver directory /usr/lib/wsl/lib";
    case CandidateSource::kDefaultSearch:
      return "the dynamic linker's default search for libcuda.so.1 (LD_LIBRARY_PATH, "
             "ld.so.cache, /lib, /usr/lib)";
    case CandidateSource::kWellKnownDirectory:
      return "a well-known driver directory (the default search found no usable libcuda.so.1)";
    case CandidateSource::kSearchPath: return "the search order re-created under --search-root";
  }
  return CandidateSourceName(found_by);
}

OpenedDriver OpenDriverForCheck(const OpenRequest& request) {
  OpenedDriver opened;
  DriverOptions options;
  options.use_environment = true;
  options.max_cuda_version = request.max_cuda_version;
  std::string explicit_path = request.driver_path;
  if (explicit_path.empty()) {
    const char* env = std::getenv("CUDYN_DRIVER_PATH");
    if (env != nullptr && env[0] == '/') explicit_path = env;
  }
  if (!request.driver_path.empty()) {
    options.driver_path = request.driver_path;
  } else if (!request.search_root.empty() && explicit_path.empty()) {
    opened.simulated_search = SimulatedSearchOrder(request.search_root, &opened.search_note);
    std::vector<std::string> paths;
    for (const auto& entry : opened.simulated_search) {
      paths.push_back(entry.first);
      for (const std::string& p : PreloadDriverCompanions(entry.first)) {
        opened.preloaded.push_back(p);
      }
    }
    options.search_paths = paths;
  }
  if (!explicit_path.empty()) opened.preloaded = PreloadDriverCompanions(explicit_path);
  opened.driver = Driver::Open(options);
  if (opened.driver != nullptr && opened.driver->ok()) {
    opened.found_by_text = FoundByText(opened.driver->found_by());
    if (opened.driver->found_by() == CandidateSource::kSearchPath) {
      for (const auto& entry : opened.simulated_search) {
        if (RealPath(entry.first) == RealPath(opened.driver->path())) {
          opened.found_by_text += ": " + entry.second;
          break;
        }
      }
    }
  }
  return opened;
}

Json CandidatesJson(const std::vector<DriverCandidate>& candidates) {
  Json list = Json::array();
  for (const DriverCandidate& c : candidates) {
    Json item = Json::object();
    item["path"] = c.path;
    item["source"] = CandidateSourceName(c.source);
    item["accepted"] = c.accepted();
    item["rejection"] = RejectionName(c.rejection);
    item["cuda_version"] = c.cuda_version;
    item["reason"] = c.reason;
    list.push_back(std::move(item));
  }
  return list;
}

Json DriverJson(const OpenedDriver& opened) {
  const Driver& d = *opened.driver;
  Json j = Json::object();
  j["path"] = d.path();
  j["realpath"] = RealPath(d.path());
  std::string file_version = LibcudaFileVersion(d.path());
  j["library_version"] = file_version.empty() ? Json() : Json(file_version);
  j["found_by"] = CandidateSourceName(d.found_by());
  j["found_by_text"] = opened.found_by_text;
  j["cuda_version"] = d.cuda_version();
  j["cuda_version_text"] = ShortVersion(d.cuda_version());
  j["effective_version"] = d.effective_version();
  j["effective_version_text"] = ShortVersion(d.effective_version());
  j["clamped"] = d.effective_version() != d.cuda_version();
  j["strategy"] = StrategyName(d.strategy());
  j["per_thread_default_stream"] = d.per_thread_default_stream();
  Json preloaded = Json::array();
  for (const std::string& p : opened.preloaded) preloaded.push_back(p);
  j["preloaded"] = std::move(preloaded);
  Json warnings = Json::array();
  for (const std::string& w : d.warnings()) warnings.push_back(w);
  j["warnings"] = std::move(warnings);
  return j;
}

Json DriverErrorJson(const Driver& driver) {
  Json j = Json::object();
  j["result"] = driver.error();
  j["name"] = ResultNameText(driver.error());
  j["message"] = driver.last_error();
  return j;
}

void PrintCandidates(std::ostream& out, const std::vector<DriverCandidate>& candidates,
                     const std::string& indent) {
  if (candidates.empty()) {
    out << indent << "(none)\n";
    return;
  }
  for (const DriverCandidate& c : candidates) {
    out << indent << (c.accepted() ? "accepted  " : "rejected  ") << c.path << "  ["
        << CandidateSourceName(c.source) << "]";
    if (c.accepted()) {
      out << "  CUDA " << VersionText(c.cuda_version) << "\n";
    } else {
      out << "\n" << indent << "          " << c.reason << "\n";
    }
  }
}

void PrintNoDriver(std::ostream& out, const OpenedDriver& opened) {
  if (opened.driver == nullptr) {
    out << "no driver: out of memory while opening it\n";
    return;
  }
  const Driver& d = *opened.driver;
  bool stub = d.error() == kCudaErrorStubLibrary;
  out << (stub ? "no usable driver: only the CUDA toolkit's stub libcuda was found"
               : "no usable driver: no loadable NVIDIA driver (libcuda.so.1) was found")
      << " (" << d.error() << " " << ResultNameText(d.error()) << ")\n";
  out << "candidates tried:\n";
  PrintCandidates(out, d.candidates(), "  ");
  if (stub) {
    out << "remedy: the stub (usually .../lib64/stubs/libcuda.so) is only for linking; install "
           "the NVIDIA driver and remove the stubs directory from LD_LIBRARY_PATH.\n";
  } else {
    out << "remedy: install the NVIDIA driver (libcuda.so.1), or point --driver / "
           "CUDYN_DRIVER_PATH at an absolute path to it.\n";
  }
  for (const std::string& w : d.warnings()) out << "warning: " << w << "\n";
}

// ---- System library directories ---------------------------------------------------------------

std::vector<FoundLibrary> FindLibraryFiles(const std::vector<SearchDir>& dirs,
                                           const std::string& base) {
  std::vector<FoundLibrary> files;
  std::map<std::string, size_t> by_real;
  for (const SearchDir& dir : dirs) {
    for (const std::string& name : ListLibraryNames(dir.path, base)) {
      std::string path = dir.path + "/" + name;
      struct stat st;
      bool resolvable = stat(path.c_str(), &st) == 0;
      if (resolvable && S_ISDIR(st.st_mode)) continue;
      std::string real = resolvable ? RealPath(path) : path;  // dangling links stay apart
      auto it = by_real.find(real);
      if (it == by_real.end()) {
        it = by_real.emplace(real, files.size()).first;
        FoundLibrary f;
        f.path = path;
        f.realpath = real;
        files.push_back(std::move(f));
      }
      FoundLibrary& f = files[it->second];
      AddUnique(&f.aliases, path);
      // A directory reached several ways lists each way: keep each once per file.
      for (const std::string& source : dir.sources) AddUnique(&f.sources, source);
    }
  }
  return files;
}

std::string SearchDir::SourcesText() const {
  std::string text;
  for (const std::string& s : sources) text += (text.empty() ? "" : ", ") + s;
  return text;
}

RootLdCache ReadRootLdCache(const std::string& root) {
  RootLdCache cache;
  cache.path = Prefixed(root, "/etc/ld.so.cache");
  struct stat st;
  if (stat(cache.path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) return cache;
  cache.present = true;
  std::vector<deps::CacheEntry> entries;
  if (!deps::ReadLdCacheFile(cache.path, &entries, &cache.error)) {
    if (cache.error.empty()) cache.error = "unreadable";
    return cache;
  }
  for (const deps::CacheEntry& e : entries) {
    if (e.name != "libcuda.so.1" || !deps::CacheEntryMatches(e, 64, 62)) continue;
    if (e.path.empty() || e.path[0] != '/') continue;  // ldconfig writes absolute paths only
    cache.drivers.push_back(Prefixed(root, e.path));
  }
  return cache;
}

std::string LdCacheNote(const RootLdCache& cache, const std::string& root) {
  if (cache.read()) return "";
  if (root.empty()) {
    return cache.present ? cache.path + " is unreadable (" + cache.error +
                               "): its directories are not scanned"
                         : "";
  }
  if (!cache.present) {
    return "no ld.so.cache in " + root + ": the default search is modelled from " + root +
           "/etc/ld.so.conf, as ldconfig would write the cache (the dynamic linker itself reads "
           "only the cache; ldconfig -r " + root + " creates it)";
  }
  return cache.path + " is unreadable (" + cache.error + "): the default search is modelled from " +
         root + "/etc/ld.so.conf instead (the dynamic linker would skip this cache; ldconfig -r " +
         root + " rebuilds it)";
}

std::vector<SearchDir> LdSoConfDirs(const std::string& root) {
  std::vector<SearchDir> out;
  std::set<std::string> visited;
  ParseLdSoConf(Prefixed(root, "/etc/ld.so.conf"), root, 0, &visited, &out);
  return out;
}

std::vector<SearchDir> LdLibraryPathDirs() {
  std::vector<SearchDir> out;
  // ld.so's reading of the variable (tools/deps): an empty entry is the working directory.
  for (const std::string& dir : deps::SplitPathList(std::getenv("LD_LIBRARY_PATH"))) {
    out.push_back({dir.empty() ? "." : dir, {"LD_LIBRARY_PATH"}});
  }
  return out;
}

std::vector<SearchDir> DriverScanDirs(const std::string& root, std::string* note) {
  std::vector<SearchDir> all;
  for (const SearchDir& d : LdLibraryPathDirs()) all.push_back(d);
  all.push_back({Prefixed(root, "/usr/lib/wsl/lib"), {"wsl"}});
  const RootLdCache cache = ReadRootLdCache(root);
  if (note != nullptr) *note = LdCacheNote(cache, root);
  for (const std::string& path : cache.drivers) all.push_back({DirName(path), {"ld.so.cache"}});
  for (const SearchDir& d : LdSoConfDirs(root)) all.push_back(d);
  for (const std::string& dir : deps::DefaultSystemDirs()) {
    all.push_back({Prefixed(root, dir), {"system directory"}});
  }
  for (int i = 0; i < cudyn::kWellKnownDriverDirCount; ++i) {
    const char* dir = cudyn::kWellKnownDriverDirs[i];
    all.push_back({Prefixed(root, dir), {"well-known directory"}});
  }
  for (const char* pattern : {"/usr/lib/x86_64-linux-gnu/nvidia/*", "/usr/lib64/nvidia",
                              "/usr/lib64/nvidia/*"}) {
    for (const std::string& dir : Glob(Prefixed(root, pattern))) {
      all.push_back({dir, {"distribution driver directory"}});
    }
  }
  for (const std::string& dir : Glob(Prefixed(root, "/usr/local/cuda*/compat"))) {
    all.push_back({dir, {"cuda-compat (forward compatibility)"}});
  }
  for (const char* pattern :
       {"/usr/local/cuda*/lib64/stubs", "/usr/local/cuda*/targets/*/lib/stubs"}) {
    for (const std::string& dir : Glob(Prefixed(root, pattern))) {
      all.push_back({dir, {"CUDA toolkit stubs"}});
    }
  }
  // One entry per real directory; a directory reached several ways lists every way.
  std::vector<SearchDir> out;
  std::map<std::string, size_t> seen;
  for (const SearchDir& d : all) {
    if (!IsDirectory(d.path)) continue;
    std::string real = RealPath(d.path);
    auto it = seen.find(real);
    if (it == seen.end()) {
      seen[real] = out.size();
      out.push_back(d);
    } else {
      std::vector<std::string>& sources = out[it->second].sources;
      for (const std::string& s : d.sources) {
        if (std::find(sources.begin(), sources.end(), s) == sources.end()) sources.push_back(s);
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> SimulatedSearchOrder(const std::string& root,
                                                                      std::string* note) {
  std::vector<std::pair<std::string, std::string>> all;
  const RootLdCache cache = ReadRootLdCache(root);
  if (note != nullptr) *note = LdCacheNote(cache, root);
  // The loader's own plan, each step expanded inside the root.
  for (CandidateSource step : cudyn::kDriverSearchPlan) {
    switch (step) {
      case CandidateSource::kAlreadyLoaded:
        break;  // nothing of the root is loaded in this process
      case CandidateSource::kWsl:
        all.emplace_back(Prefixed(root, cudyn::kWslDriverPath), "wsl");
        break;
      case CandidateSource::kDefaultSearch:
        for (const SearchDir& d : LdLibraryPathDirs()) {
          all.emplace_back(d.path + "/libcuda.so.1", "default search (LD_LIBRARY_PATH)");
        }
        if (cache.read()) {
          // ld.so reads the cache, never ld.so.conf: only the cache's entries are candidates.
          for (const std::string& path : cache.drivers) {
            all.emplace_back(path, "default search (ld.so.cache)");
          }
        } else {
          // No readable cache: ld.so.conf's directories, as ldconfig would list them.
          const char* why = cache.present ? "ld.so.cache unreadable" : "no ld.so.cache in the root";
          for (const SearchDir& d : LdSoConfDirs(root)) {
            all.emplace_back(d.path + "/libcuda.so.1",
                             "default search (" + d.SourcesText() + "; " + why + ")");
          }
        }
        for (const std::string& dir : deps::DefaultSystemDirs()) {
          all.emplace_back(Prefixed(root, dir) + "/libcuda.so.1", "default search (system directory)");
        }
        break;
      case CandidateSource::kWellKnownDirectory:
        for (int i = 0; i < cudyn::kWellKnownDriverDirCount; ++i) {
          const char* dir = cudyn::kWellKnownDriverDirs[i];
          all.emplace_back(Prefixed(root, dir) + "/libcuda.so.1", "well-known directory");
        }
        break;
      default:
        break;
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& entry : all) {
    struct stat st;
    if (stat(entry.first.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
    if (!seen.insert(RealPath(entry.first)).second) continue;
    out.push_back(entry);
  }
  return out;
}

// ---- Kernel module ----------------------------------------------------------------------------

KernelModule ReadKernelModule(const std::string& root) {
  KernelModule km;
  km.source = Prefixed(root, "/proc/driver/nvidia/version");
  std::ifstream in(km.source);
  if (!in) return km;
  km.present = true;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("NVRM version") == std::string::npos) continue;
    km.line = Trim(line);
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      if (word.find('.') == std::string::npos ||
          word.find_first_not_of("0123456789.") != std::string::npos ||
          std::atoi(word.c_str()) < 100) {
        continue;
      }
      km.version = word;
      break;
    }
    break;
  }
  return km;
}

// ---- Child processes --------------------------------------------------------------------------

std::optional<Json> RunInChild(const std::function<Json()>& fn, int timeout_seconds,
                               std::string* failure) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *failure = std::string("pipe failed: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    *failure = std::string("fork failed: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(fds[0]);
    // The driver must not write into the tool's stdout (which may be JSON).
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) dup2(devnull, STDOUT_FILENO);
    alarm(static_cast<unsigned>(timeout_seconds));
    std::string text;
    try {
      text = JsonText(fn(), false);
    } catch (...) {
      _exit(70);
    }
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(71);
      p += n;
      left -= static_cast<size_t>(n);
    }
    _exit(0);  // no atexit handlers, no static destructors of the probed driver
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  while (true) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    *failure = sig == SIGALRM ? "timed out after " + std::to_string(timeout_seconds) + " s"
                              : "crashed with signal " + std::to_string(sig) + " (" +
                                    strsignal(sig) + ")";
    return std::nullopt;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *failure = "exited with status " + std::to_string(WEXITSTATUS(status));
    return std::nullopt;
  }
  Json result;
  std::string error;
  if (!ParseJson(text, &result, &error)) {
    *failure = "returned unreadable output: " + error;
    return std::nullopt;
  }
  return result;
}

Json ProbeDriverFile(const std::string& path) {
  std::string failure;
  std::optional<Json> result = RunInChild(
      [&path]() {
        Json j = Json::object();
        std::vector<std::string> preloaded = PreloadDriverCompanions(path);
        DriverOptions options;
        options.driver_path = path;
        options.use_environment = true;  // CUDYN_LOG; the explicit path wins over the rest
        std::unique_ptr<Driver> driver = Driver::Open(options);
        if (driver == nullptr) {
          j["accepted"] = false;
          j["error"] = kCudaErrorSharedObjectInitFailed;
          j["cuda_version"] = 0;
          j["rejection"] = "out_of_memory";
          j["reason"] = "out of memory";
          return j;
        }
        j["accepted"] = driver->ok();
        j["error"] = driver->error();
        j["cuda_version"] = driver->cuda_version();
        // An explicit path is the one and only candidate.
        Rejection rejection = Rejection::kNone;
        std::string reason = driver->ok() ? "accepted" : driver->last_error();
        if (!driver->candidates().empty()) {
          rejection = driver->candidates().back().rejection;
          reason = driver->candidates().back().reason;
        }
        j["rejection"] = RejectionName(rejection);
        j["reason"] = reason;
        j["loaded_path"] = driver->ok() ? driver->path() : std::string();
        Json pre = Json::array();
        for (const std::string& p : preloaded) pre.push_back(p);
        j["preloaded"] = std::move(pre);
        return j;
      },
      20, &failure);
  if (result) return *result;
  Json j = Json::object();
  j["accepted"] = false;
  j["error"] = kCudaErrorSharedObjectInitFailed;
  j["cuda_version"] = 0;
  j["rejection"] = "probe_failed";
  j["reason"] = "probing it " + failure;
  j["loaded_path"] = "";
  j["preloaded"] = Json::array();
  return j;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

namespace {

// Plain C types of the driver functions asked for the devices' compute capabilities.
using CuInitFn = int (*)(unsigned);
using CuDeviceGetCountFn = int (*)(int*);
using CuDeviceGetFn = int (*)(int*, int);
using CuDeviceGetAttributeFn = int (*)(int*, int, int);
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;

}  // namespace

std::vector<layers::GpuArch> DriverGpus(Driver& d, std::string* note, int* device_count) {
  std::vector<layers::GpuArch> gpus;
  auto init = reinterpret_cast<CuInitFn>(d.Resolve(kEntry_cuInit));
  int rc = init != nullptr ? init(0) : -1;
  if (rc != 0) {
    *note = "cuInit(0) returned " + (rc < 0 ? std::string("nothing (no cuInit)")
                                           : std::to_string(rc) + " " + ResultNameText(rc));
    return gpus;
  }
  auto count_fn = reinterpret_cast<CuDeviceGetCountFn>(d.Resolve(kEntry_cuDeviceGetCount));
  auto get_fn = reinterpret_cast<CuDeviceGetFn>(d.Resolve(kEntry_cuDeviceGet));
  auto attr_fn = reinterpret_cast<CuDeviceGetAttributeFn>(d.Resolve(kEntry_cuDeviceGetAttribute));
  int count = 0;
  if (device_count != nullptr) *device_count = 0;
  if (count_fn == nullptr || get_fn == nullptr || attr_fn == nullptr || count_fn(&count) != 0) {
    *note = "cuDeviceGetCount failed";
    return gpus;
  }
  if (device_count != nullptr) *device_count = count;
  for (int ordinal = 0; ordinal < count && ordinal < 1024; ++ordinal) {
    int handle = 0, major = 0, minor = 0;
    if (get_fn(&handle, ordinal) != 0 ||
        attr_fn(&major, kAttrComputeCapabilityMajor, handle) != 0 ||
        attr_fn(&minor, kAttrComputeCapabilityMinor, handle) != 0 || major <= 0) {
      continue;
    }
    layers::GpuArch arch{major, minor, '\0'};
    if (std::find(gpus.begin(), gpus.end(), arch) == gpus.end()) gpus.push_back(arch);
  }
  if (gpus.empty()) *note = "the driver reports no device";
  return gpus;
}

}  // namespace check
}  // namespace cudyn
