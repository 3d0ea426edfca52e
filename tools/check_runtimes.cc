// `cudyn-check runtimes`: every CUDA runtime (libcudart) on the system — its SONAME family and
// version read from the file without running it, the driver its family needs and whether the
// driver in front can run it — and the one cudyn's runtime loader (cudyn::Runtime) picks, opened
// in a child process.
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_set>

#include "loader/cudart.h"
#include "loader/cudart_family.h"
#include "nlohmann/json.hpp"
#include "tools/commands.h"
#include "tools/deps/library_search.h"
#include "tools/elf/elf_reader.h"
#include "tools/layers/runtime_layer.h"
#include "version_tables/cudart_table.h"

namespace cudyn {
namespace check {
namespace {

#if defined(__aarch64__)
constexpr uint16_t kHostMachine = 183;  // EM_AARCH64
constexpr const char* kHostTargetDir = "aarch64-linux";
#else
constexpr uint16_t kHostMachine = 62;  // EM_X86_64
constexpr const char* kHostTargetDir = "x86_64-linux";
#endif

// Bounds of the --search-root walk.
constexpr int kMaxWalkDepth = 32;
constexpr size_t kMaxWalkDirectories = 20000;
constexpr size_t kMaxWalkEntries = 1000000;

// ---- Where runtimes are looked for ------------------------------------------------------------

// Appends `dir` (when it exists) to `out`, merging one reached several ways (by realpath).
class DirList {
 public:
  void Add(const std::string& dir, const std::string& source) {
    if (dir.empty() || !IsDirectory(dir)) return;
    std::string real = RealPath(dir);
    auto it = seen_.find(real);
    if (it == seen_.end()) {
      seen_[real] = dirs_.size();
      dirs_.push_back({dir, {source}});
    } else {
      AddUnique(&dirs_[it->second].sources, source);
    }
  }
  std::vector<SearchDir> Take() { return std::move(dirs_); }

 private:
  std::vector<SearchDir> dirs_;
  std::map<std::string, size_t> seen_;
};

// Every directory the runtime loader searches, in its order (loader/cudart.h, RuntimeSearchPlan:
// the same function the loader walks): the dynamic linker's default search (LD_LIBRARY_PATH, the
// ld.so.cache entries named libcudart.so.*, the trusted directories; not under --root, whose
// tree the dynamic linker does not search), then the plan's directories for every family.
std::vector<SearchDir> SystemRuntimeDirs(const RuntimeSearchInputs& inputs,
                                         std::string* cache_note) {
  DirList list;
  if (inputs.root.empty()) {
    deps::SearchEnvironment env = deps::SystemSearchEnvironment();
    for (const std::string& dir : env.ld_library_path) list.Add(dir, "LD_LIBRARY_PATH");
    if (!env.cache_error.empty()) *cache_note = "ld.so.cache not read: " + env.cache_error;
    for (const deps::CacheEntry& e : env.cache) {
      if (!IsLibraryName(e.name, "libcudart.so") || !deps::CacheEntryMatches(e, 64, kHostMachine)) {
        continue;
      }
      list.Add(deps::DirName(e.path), "ld.so.cache");
    }
    for (const std::string& dir : env.system_dirs) list.Add(dir, "system directory");
  }
  for (const PlannedRuntime& p : RuntimeSearchPlan(inputs, 0)) {
    if (p.source == RuntimeSource::kDefaultSearch) continue;
    list.Add(DirName(p.path), RuntimeSourceName(p.source));
  }
  return list.Take();
}

// The loader's order for the driver in front: every planned file, whether it exists (the loader
// skips those that do not; a default-search entry is the dynamic linker's to find).
Json SearchPlanJson(const RuntimeSearchInputs& inputs, int driver_version) {
  Json plan = Json::array();
  for (const PlannedRuntime& p : RuntimeSearchPlan(inputs, driver_version)) {
    Json e = Json::object();
    e["path"] = p.path;
    e["source"] = RuntimeSourceName(p.source);
    e["family"] = p.family;
    struct stat st;
    e["exists"] = p.source == RuntimeSource::kDefaultSearch ? Json()
                                                             : Json(stat(p.path.c_str(), &st) == 0);
    plan.push_back(std::move(e));
  }
  return plan;
}

// A wheel's runtime directory: .../site-packages/nvidia/cu13/lib or .../nvidia/cuda_runtime/lib.
bool IsWheelLayout(const std::string& dir) {
  size_t at = dir.rfind("/nvidia/");
  if (at == std::string::npos) return false;
  std::string rest = dir.substr(at + 8);
  if (rest == "cuda_runtime/lib") return true;
  return rest.size() > 6 && rest.compare(0, 2, "cu") == 0 &&
         rest.compare(rest.size() - 4, 4, "/lib") == 0 &&
         rest.find_first_not_of("0123456789", 2) == rest.size() - 4;
}

// The directories under each root holding a libcudart.so*: a bounded, sorted walk that does not
// follow symlinked directories (files may be symlinks).
std::vector<SearchDir> WalkRoots(const std::vector<std::string>& roots, std::string* note) {
  DirList list;
  size_t directories = 0, entries = 0;
  bool truncated = false;
  for (const std::string& root : roots) {
    std::vector<std::pair<std::string, int>> stack = {{root, 0}};
    while (!stack.empty()) {
      auto [dir, depth] = stack.back();
      stack.pop_back();
      if (++directories > kMaxWalkDirectories) {
        truncated = true;
        break;
      }
      DIR* d = opendir(dir.c_str());
      if (d == nullptr) continue;
      std::vector<std::string> names;
      while (struct dirent* e = readdir(d)) {
        if (++entries > kMaxWalkEntries) {
          truncated = true;
          break;
        }
        std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      closedir(d);
      std::sort(names.begin(), names.end());
      bool has_runtime = false;
      std::vector<std::string> subdirs;
      for (const std::string& name : names) {
        std::string path = dir + "/" + name;
        struct stat st;
        if (lstat(path.c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
          if (depth < kMaxWalkDepth) {
            subdirs.push_back(path);
          } else {
            truncated = true;
          }
          continue;
        }
        if (IsLibraryName(name, "libcudart.so")) has_runtime = true;
      }
      if (has_runtime) {
        list.Add(dir, IsWheelLayout(dir) ? "python wheel (--search-root " + root + ")"
                                         : "--search-root " + root);
      }
      // Sorted order, depth first: push in reverse.
      for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) {
        stack.emplace_back(*it, depth + 1);
      }
    }
  }
  if (truncated) {
    *note = "the --search-root walk stopped at its bounds (depth " +
            std::to_string(kMaxWalkDepth) + ", " + std::to_string(kMaxWalkDirectories) +
            " directories, " + std::to_string(kMaxWalkEntries) + " entries)";
  }
  return list.Take();
}

// ---- One file ---------------------------------------------------------------------------------

enum class FileKind { kRuntime, kCudyn, kInvalid };

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kRuntime: return "runtime";
    case FileKind::kCudyn: return "cudyn";
    case FileKind::kInvalid: return "invalid";
  }
  return "invalid";
}

// path: the name the loader opens (the SONAME alias when there is one).
struct RuntimeFile : FoundLibrary {
  FileKind kind = FileKind::kInvalid;
  std::string error;   // why it is not a usable runtime ("" for a runtime)
  std::string soname;
  std::string machine;
  int family = 0;
  int minor = -1;
  int version = 0;
  std::string version_source;  // "entry_point_table" | "soname_and_symbols" | ""
  size_t table_records = 0;
  int min_driver = 0;
  bool runnable = false;
  bool picked = false;
};

// Reads `f.path` without loading it: ELF headers, SONAME, exported names, and the newest
// record of the runtime's versioned entry-point table (tools/layers/runtime_layer.h).
void ReadRuntimeFile(RuntimeFile* f) {
  const int fd = open(f->path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    f->error = std::string("cannot open: ") + std::strerror(errno);
    return;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    close(fd);
    f->error = "not a regular, non-empty file";
    return;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    f->error = std::string("cannot map: ") + std::strerror(errno);
    return;
  }
  const auto* data = static_cast<const uint8_t*>(map);
  struct Unmap {
    void* map;
    size_t size;
    ~Unmap() { munmap(map, size); }
  } unmap{map, size};

  elf::ElfResult er = elf::ParseElf(data, size);
  if (!er.ok()) {
    f->error = "not a usable ELF file: " + er.error().message;
    return;
  }
  const elf::ElfInfo& info = er.value();
  f->soname = info.soname;
  f->machine = info.machine_name;
  std::unordered_set<std::string> defined(info.defined.begin(), info.defined.end());
  if (defined.count("cudynCudartEntryCount") != 0 ||
      info.soname.compare(0, 18, "libcudyn_cudart.so") == 0) {
    f->kind = FileKind::kCudyn;
    f->error = "cudyn's own drop-in (libcudyn_cudart.so) under a libcudart name, not a runtime";
    return;
  }
  if (info.elf_class != 64 || info.machine != kHostMachine) {
    f->error = "an ELF" + std::to_string(info.elf_class) + " " + info.machine_name +
               " file: this machine cannot load it";
    return;
  }
  if (defined.count("cudaRuntimeGetVersion") == 0) {
    f->error = "exports no cudaRuntimeGetVersion: not a CUDA runtime";
    return;
  }
  ParseCudartSoname(info.soname, &f->family, &f->minor);
  if (f->family == 0) {
    f->error = info.soname.empty()
                   ? "has no SONAME: its runtime family is unknown"
                   : "its SONAME '" + info.soname + "' is not libcudart.so.<major>[.<minor>]";
    return;
  }
  f->min_driver = CudartFamilyMinDriver(f->family, f->minor);
  f->kind = FileKind::kRuntime;
  size_t records = 0;
  int table = layers::FindRuntimeVersionTable(data, size, &records);
  if (table > 0 && table / 1000 == f->family) {
    f->version = table;
    f->version_source = "entry_point_table";
    f->table_records = records;
    return;
  }
  // No table: at least the family's first release, raised by the generated marker symbols
  // (what the loader does when cudaRuntimeGetVersion cannot answer).
  int best = f->min_driver;
  for (int i = 0; i < kCudartMarkerCount; ++i) {
    const CudartMarker& m = kCudartMarkers[i];
    if (m.version / 1000 == f->family && m.version > best && defined.count(m.symbol) != 0) {
      best = m.version;
    }
  }
  f->version = best;
  f->version_source = "soname_and_symbols";
}

std::string VersionSourceText(const RuntimeFile& f) {
  if (f.version_source == "entry_point_table") {
    return "from its versioned entry-point table (" + std::to_string(f.table_records) +
           " functions)";
  }
  if (f.version_source == "soname_and_symbols") {
    return "at least: from its SONAME and the symbols it exports";
  }
  return "";
}

// ---- The loader's pick, in a child -------------------------------------------------------------

std::string CudartErrorName(int error) {
  switch (error) {
    case kCudartSuccess: return "cudaSuccess";
    case kCudartErrorInvalidValue: return "cudaErrorInvalidValue";
    case kCudartErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case kCudartErrorSymbolNotFound: return "cudaErrorSharedObjectSymbolNotFound";
    case kCudartErrorInitFailed: return "cudaErrorSharedObjectInitFailed";
    case kCudartErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "cudaError_t " + std::to_string(error);
}

Json FailedPick(int error, const std::string& message) {
  Json j = Json::object();
  j["ok"] = false;
  j["path"] = Json();
  j["family"] = Json();
  j["version"] = Json();
  j["version_source"] = Json();
  j["found_by"] = Json();
  j["candidates"] = Json::array();
  j["message"] = message;
  j["error"] = error;
  j["error_name"] = CudartErrorName(error);
  j["driver_version"] = Json();
  j["warnings"] = Json::array();
  return j;
}

// What Runtime::Open picks for this driver: from the environment (use_environment) and the
// search plan's inputs this listing used, or from the directories found under --search-root
// (search_paths). A child process, so the runtime it
// loads (and runs: cudaRuntimeGetVersion) never shares a process with the tool.
Json PickInChild(int driver_version, const std::vector<std::string>* search_paths,
                 const RuntimeSearchInputs& inputs) {
  std::string failure;
  std::optional<Json> result = RunInChild(
      [driver_version, search_paths, &inputs]() {
        RuntimeOptions options;
        options.driver_version = driver_version;
        if (search_paths != nullptr) {
          options.search_paths = *search_paths;
        } else {
          options.use_environment = true;
          options.search_inputs = inputs;
        }
        std::unique_ptr<Runtime> runtime = Runtime::Open(options);
        if (runtime == nullptr) return FailedPick(kCudartErrorInitFailed, "out of memory");
        const Runtime& r = *runtime;
        Json j = Json::object();
        j["ok"] = r.ok();
        j["path"] = r.ok() ? Json(r.path()) : Json();
        j["family"] = r.ok() ? Json(r.family()) : Json();
        j["version"] = r.ok() ? Json(r.version()) : Json();
        j["version_source"] = r.ok() ? Json(r.version_source()) : Json();
        j["found_by"] = r.ok() ? Json(RuntimeSourceName(r.found_by())) : Json();
        Json candidates = Json::array();
        for (const RuntimeCandidate& c : r.candidates()) {
          Json e = Json::object();
          e["path"] = c.path;
          e["source"] = RuntimeSourceName(c.source);
          e["rejection"] = RuntimeRejectionName(c.rejection);
          e["family"] = c.family;
          e["version"] = c.version;
          e["reason"] = c.reason;
          candidates.push_back(std::move(e));
        }
        j["candidates"] = std::move(candidates);
        j["message"] = r.ok() ? Json() : Json(r.last_error());
        j["error"] = r.error();
        j["error_name"] = CudartErrorName(r.error());
        j["driver_version"] = r.driver_version();
        Json warnings = Json::array();
        for (const std::string& w : r.warnings()) warnings.push_back(w);
        j["warnings"] = std::move(warnings);
        // The runtime stays loaded (see ~Runtime); the child ends with _exit.
        runtime.release();
        return j;
      },
      60, &failure);
  if (result) return *result;
  return FailedPick(kCudartErrorInitFailed, "opening the runtime " + failure);
}

void PrintIndented(std::ostream& out, const std::string& text, const std::string& indent) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out << indent << text.substr(start, end - start) << "\n";
    start = end + 1;
  }
}

}  // namespace

int RunRuntimes(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "runtimes", &request, err)) return kExitUsage;
  // --search-root names where runtimes are looked for (repeatable), not a prefix for the driver.
  request.search_root.clear();
  std::vector<std::string> roots;
  for (std::string root : args.get_all("--search-root")) {
    if (root.empty()) {
      err << "cudyn-check runtimes: --search-root needs a directory\n";
      return kExitUsage;
    }
    if (root[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof(cwd)) != nullptr) root = std::string(cwd) + "/" + root;
    }
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (!IsDirectory(root)) {
      err << "cudyn-check runtimes: --search-root '" << root << "' is not a directory\n";
      return kExitUsage;
    }
    AddUnique(&roots, root);
  }
  std::string root = args.get("--root");
  if (args.has("--root") && root.empty()) {
    err << "cudyn-check runtimes: --root needs a directory\n";
    return kExitUsage;
  }
  if (!root.empty()) {
    if (root[0] != '/' || !IsDirectory(root)) {
      err << "cudyn-check runtimes: --root '" << root << "' is not an absolute directory\n";
      return kExitUsage;
    }
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (!roots.empty()) {
      err << "cudyn-check runtimes: --root and --search-root exclude each other\n";
      return kExitUsage;
    }
  }
  const RuntimeSearchInputs inputs = ReadRuntimeSearchInputs(root);

  // Where runtimes are, and what each file is (read, never loaded here).
  std::string scan_note;
  std::vector<SearchDir> dirs = roots.empty() ? SystemRuntimeDirs(inputs, &scan_note)
                                              : WalkRoots(roots, &scan_note);
  std::vector<RuntimeFile> files;
  for (FoundLibrary& found : FindLibraryFiles(dirs, "libcudart.so")) {
    RuntimeFile f;
    static_cast<FoundLibrary&>(f) = std::move(found);
    files.push_back(std::move(f));
  }
  for (RuntimeFile& f : files) {
    ReadRuntimeFile(&f);
    // Show the name the loader opens (the SONAME) when the file has it.
    if (!f.soname.empty() && BaseName(f.path) != f.soname) {
      for (const std::string& a : f.aliases) {
        if (BaseName(a) == f.soname) {
          f.path = a;
          break;
        }
      }
    }
  }

  // The driver in front, found as `report` finds it.
  OpenedDriver opened = OpenDriverForCheck(request);
  const bool have_driver = opened.driver != nullptr && opened.driver->ok();
  const int driver_version = have_driver ? opened.driver->effective_version() : 0;
  for (RuntimeFile& f : files) {
    f.runnable = f.kind == FileKind::kRuntime && driver_version > 0 &&
                 driver_version >= f.min_driver;
  }

  Json pick;
  bool picked_runnable = false;
  if (have_driver) {
    std::vector<std::string> search_paths;
    for (const SearchDir& d : dirs) search_paths.push_back(d.path);
    pick = PickInChild(driver_version, roots.empty() ? nullptr : &search_paths, inputs);
    if (pick.value("ok", false)) {
      const std::string path = pick["path"].get<std::string>();
      const std::string real = RealPath(path);
      auto it = std::find_if(files.begin(), files.end(),
                             [&](const RuntimeFile& f) { return f.realpath == real; });
      if (it == files.end()) {
        // Found where the scan did not look (the dynamic linker's own search, CUDYN_CUDART_PATH).
        RuntimeFile f;
        f.path = path;
        f.realpath = real;
        f.aliases.push_back(path);
        f.sources.push_back("found by the loader (" + pick.value("found_by", std::string()) +
                            ")");
        ReadRuntimeFile(&f);
        f.runnable = f.kind == FileKind::kRuntime && driver_version >= f.min_driver;
        files.push_back(std::move(f));
        it = files.end() - 1;
      }
      it->picked = true;
      // An explicit CUDYN_CUDART_PATH is taken even when the driver cannot run it.
      const int family = pick["family"].get<int>();
      picked_runnable =
          it->kind == FileKind::kRuntime ? it->runnable : NewestRuntimeFamilyFor(driver_version) >= family;
    }
  }
  const int exit_code = !have_driver ? kExitNoDriver : picked_runnable ? kExitOk
                                                                        : kExitIncompatible;

  if (args.json) {
    Json j = Json::object();
    j["command"] = "runtimes";
    if (have_driver) {
      j["driver"] = DriverJson(opened);
    } else {
      j["driver"] = Json();
      if (opened.driver != nullptr) {
        j["driver_error"] = DriverErrorJson(*opened.driver);
        j["driver_candidates"] = CandidatesJson(opened.driver->candidates());
      }
    }
    Json root_list = Json::array();
    for (const std::string& r : roots) root_list.push_back(r);
    j["search_roots"] = roots.empty() ? Json() : root_list;
    Json dir_list = Json::array();
    for (const SearchDir& d : dirs) {
      Json e = Json::object();
      e["path"] = d.path;
      e["source"] = d.SourcesText();
      dir_list.push_back(std::move(e));
    }
    j["directories"] = std::move(dir_list);
    j["root"] = root.empty() ? Json() : Json(root);
    // Not with --search-root: the loader then searches the directories found there instead.
    j["search_plan"] = roots.empty() ? SearchPlanJson(inputs, driver_version) : Json();
    j["scan_note"] = scan_note.empty() ? Json() : Json(scan_note);
    Json list = Json::array();
    for (const RuntimeFile& f : files) {
      Json e = Json::object();
      e["path"] = f.path;
      e["soname"] = f.soname.empty() ? Json() : Json(f.soname);
      e["family"] = f.family > 0 ? Json(f.family) : Json();
      e["version"] = f.version > 0 ? Json(f.version) : Json();
      e["min_driver"] = f.min_driver > 0 ? Json(f.min_driver) : Json();
      e["runnable"] = f.runnable;
      e["picked"] = f.picked;
      e["realpath"] = f.realpath;
      Json aliases = Json::array();
      for (const std::string& a : f.aliases) aliases.push_back(a);
      e["aliases"] = std::move(aliases);
      Json sources = Json::array();
      for (const std::string& s : f.sources) sources.push_back(s);
      e["sources"] = std::move(sources);
      e["kind"] = FileKindName(f.kind);
      e["version_text"] = f.version > 0 ? Json(ShortVersion(f.version)) : Json();
      e["version_source"] = f.version_source.empty() ? Json() : Json(f.version_source);
      e["min_driver_text"] = f.min_driver > 0 ? Json(ShortVersion(f.min_driver)) : Json();
      e["error"] = f.error.empty() ? Json() : Json(f.error);
      list.push_back(std::move(e));
    }
    j["runtimes"] = std::move(list);
    j["pick"] = have_driver ? pick : Json();
    j["exit_code"] = exit_code;
    if (have_driver) KeepDriverLoaded(std::move(opened.driver));
    out << JsonText(j);
    return exit_code;
  }

  if (!have_driver) {
    PrintNoDriver(out, opened);
    out << "\n";
  } else {
    const Driver& d = *opened.driver;
    out << "driver: " << d.path() << "  CUDA " << VersionText(d.cuda_version());
    if (d.effective_version() != d.cuda_version()) {
      out << ", effective " << VersionText(d.effective_version())
          << " (--max-cuda-version / CUDYN_MAX_CUDA_VERSION)";
    }
    out << "\n";
    KeepDriverLoaded(std::move(opened.driver));
  }
  if (!roots.empty()) {
    out << "search roots:";
    for (const std::string& r : roots) out << " " << r;
    out << "\n";
  }
  if (!root.empty()) out << "root: " << root << "\n";
  out << "libcudart files found: " << files.size() << " (in " << dirs.size()
      << (roots.empty() ? " directories searched" : " directories holding one") << ")\n";
  if (!scan_note.empty()) out << "note: " << scan_note << "\n";
  for (const RuntimeFile& f : files) {
    out << "\n" << (f.picked ? "* " : "  ") << f.path;
    if (f.realpath != f.path) out << " -> " << f.realpath;
    out << "\n";
    for (const std::string& a : f.aliases) {
      if (a != f.path) out << "      also " << a << "\n";
    }
    std::string where;
    for (const std::string& s : f.sources) where += (where.empty() ? "" : ", ") + s;
    out << "      in: " << where << "\n";
    if (f.kind != FileKind::kRuntime) {
      out << "      " << (f.kind == FileKind::kCudyn ? "not a runtime: " : "unusable: ") << f.error
          << "\n";
      continue;
    }
    out << "      " << f.soname << " (family " << f.family << "), CUDA " << VersionText(f.version)
        << " " << VersionSourceText(f) << "\n";
    out << "      needs a CUDA " << ShortVersion(f.min_driver) << " driver: ";
    if (!have_driver) {
      out << "no driver here\n";
    } else if (f.runnable) {
      out << "runs on this driver\n";
    } else {
      out << "NOT runnable on this driver (CUDA " << ShortVersion(driver_version) << ")\n";
    }
  }
  out << "\n";
  if (!have_driver) {
    out << "picked: none (no driver: the runtime's family depends on it)\n";
    return exit_code;
  }
  if (pick.value("ok", false)) {
    out << "picked: " << pick["path"].get<std::string>() << " (family "
        << pick["family"].get<int>() << ", CUDA " << VersionText(pick["version"].get<int>())
        << ", version from " << pick["version_source"].get<std::string>() << ")\n";
    out << "  found by: " << pick["found_by"].get<std::string>() << "\n";
    if (!picked_runnable) {
      out << "  warning: this driver (CUDA " << ShortVersion(driver_version)
          << ") cannot run it: its calls will report 35 cudaErrorInsufficientDriver\n";
    }
  } else {
    const int rc = pick.value("error", 0);
    out << "picked: none (" << rc << " " << CudartErrorName(rc) << ")\n";
    // (The loader's message lists the candidates below once more: not repeated here.)
    bool any_runnable = false;
    for (const RuntimeFile& f : files) any_runnable |= f.runnable;
    if (pick["candidates"].empty()) {
      PrintIndented(out, pick.value("message", std::string()), "  ");
    } else if (any_runnable) {
      out << "  a runtime listed above runs on this driver, but the loader could not open one "
             "(see its candidates)\n";
    } else {
      out << "  no runtime found runs on this driver (CUDA " << ShortVersion(driver_version)
          << "): install a runtime of "
          << (driver_version >= 11000
                  ? "family " + std::to_string(NewestRuntimeFamilyFor(driver_version))
                  : "CUDA " + ShortVersion(driver_version))
          << " or older, or upgrade the driver\n";
    }
  }
  for (const Json& w : pick["warnings"]) out << "  warning: " << w.get<std::string>() << "\n";
  out << "  candidates the loader tried (driver CUDA " << ShortVersion(driver_version) << "):\n";
  if (pick["candidates"].empty()) out << "    (none)\n";
  for (const Json& c : pick["candidates"]) {
    const bool accepted = c["rejection"].get<std::string>() == RuntimeRejectionName(
                                                                  RuntimeRejection::kNone);
    out << "    " << (accepted ? "accepted  " : "rejected  ") << c["path"].get<std::string>()
        << "  [" << c["source"].get<std::string>() << "]";
    if (accepted) {
      out << "  family " << c["family"].get<int>() << ", CUDA "
          << VersionText(c["version"].get<int>()) << "\n";
    } else {
      out << "  " << c["rejection"].get<std::string>() << "\n              "
          << c["reason"].get<std::string>() << "\n";
    }
  }
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
