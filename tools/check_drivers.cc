// `cudyn-check drivers`: every libcuda on the system, its version or why it cannot be used, and
// the one cudyn picks (and why).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "nlohmann/json.hpp"
#include "tools/commands.h"
#include "tools/elf/elf_reader.h"

namespace cudyn {
namespace check {
namespace {

// path: the name probed (libcuda.so.1 preferred).
struct DriverFile : FoundLibrary {
  Json probe;
  bool picked = false;
  bool is_cudyn = false;  // cudyn's drop-in installed under a libcuda name
};

enum class FileKind { kDriver, kStub, kCudyn, kInvalid };

// The "kind" field of --json.
const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kDriver: return "driver";
    case FileKind::kStub: return "stub";
    case FileKind::kCudyn: return "cudyn";
    case FileKind::kInvalid: return "invalid";
  }
  return "invalid";
}

// Decided by the loader's typed verdict in the probe (RejectionName), never by its reason text.
FileKind Kind(const DriverFile& f) {
  if (f.is_cudyn) return FileKind::kCudyn;
  if (f.probe.value("accepted", false)) return FileKind::kDriver;
  const std::string rejection = f.probe.value("rejection", std::string());
  if (rejection == RejectionName(Rejection::kStubLibrary)) return FileKind::kStub;
  if (rejection == RejectionName(Rejection::kIsCudyn)) return FileKind::kCudyn;
  return FileKind::kInvalid;
}

bool IsCompat(const DriverFile& f) {
  if (f.realpath.find("/compat/") != std::string::npos) return true;
  for (const std::string& a : f.aliases) {
    if (a.find("/compat/") != std::string::npos) return true;
  }
  return false;
}

// What Driver::Open(use_environment = true) picks, in a child process so the probed drivers and
// the picked one never share a process.
Json PickInChild(const std::string& root) {
  std::string failure;
  std::optional<Json> result = RunInChild(
      [&root]() {
        OpenRequest request;
        request.search_root = root;
        OpenedDriver opened = OpenDriverForCheck(request);
        Json j = Json::object();
        if (opened.driver == nullptr) {
          j["ok"] = false;
          j["error"] = kCudaErrorSharedObjectInitFailed;
          j["message"] = "out of memory";
          j["candidates"] = Json::array();
          return j;
        }
        const Driver& d = *opened.driver;
        j["ok"] = d.ok();
        j["error"] = d.error();
        j["message"] = d.last_error();
        j["path"] = d.path();
        j["found_by"] = CandidateSourceName(d.found_by());
        j["found_by_text"] = opened.found_by_text;
        j["cuda_version"] = d.cuda_version();
        j["effective_version"] = d.effective_version();
        j["candidates"] = CandidatesJson(d.candidates());
        Json warnings = Json::array();
        for (const std::string& w : d.warnings()) warnings.push_back(w);
        j["warnings"] = std::move(warnings);
        return j;
      },
      60, &failure);
  if (result) return *result;
  Json j = Json::object();
  j["ok"] = false;
  j["error"] = kCudaErrorSharedObjectInitFailed;
  j["message"] = "opening the driver " + failure;
  j["candidates"] = Json::array();
  return j;
}

}  // namespace

int RunDrivers(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "drivers", &request, err)) return kExitUsage;
  const std::string& root = request.search_root;

  std::string search_note;  // ROOT's ld.so.cache absent or unreadable (LdCacheNote)
  std::vector<SearchDir> dirs = DriverScanDirs(root, &search_note);
  std::vector<DriverFile> files;
  for (FoundLibrary& found : FindLibraryFiles(dirs, "libcuda.so")) {
    DriverFile f;
    static_cast<FoundLibrary&>(f) = std::move(found);
    // Probe the name the loader would open: libcuda.so.1 wins over other aliases.
    for (const std::string& alias : f.aliases) {
      if (BaseName(alias) == "libcuda.so.1") {
        f.path = alias;
        break;
      }
    }
    files.push_back(std::move(f));
  }
  for (DriverFile& f : files) {
    // cudyn's shared drop-in exports cudyn* next to cu*: installed as libcuda.so.1 it would answer
    // cuDriverGetVersion through whatever driver it finds itself, so recognise it first.
    elf::ElfResult elf = elf::ReadElf(f.path);
    if (elf.ok()) {
      const elf::ElfInfo& info = elf.value();
      f.is_cudyn = info.soname.compare(0, 16, "libcudyn_cuda.so") == 0 ||
                   std::find(info.defined.begin(), info.defined.end(), "cudynInit") !=
                       info.defined.end();
    }
    f.probe = ProbeDriverFile(f.path);
  }

  Json pick = PickInChild(root);
  bool picked = pick.value("ok", false);
  if (picked) {
    std::string real = RealPath(pick.value("path", std::string()));
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const DriverFile& f) { return f.realpath == real; });
    if (it == files.end()) {
      DriverFile f;
      f.path = pick.value("path", std::string());
      f.realpath = real;
      f.aliases.push_back(f.path);
      f.sources.push_back("found by the loader (" + pick.value("found_by", std::string()) + ")");
      f.probe = ProbeDriverFile(f.path);
      files.push_back(std::move(f));
      it = files.end() - 1;
    }
    it->picked = true;
  }
  int exit_code = picked ? kExitOk : kExitNoDriver;

  if (args.json) {
    Json j = Json::object();
    j["command"] = "drivers";
    j["search_root"] = root.empty() ? Json() : Json(root);
    j["search_note"] = search_note.empty() ? Json() : Json(search_note);
    Json dir_list = Json::array();
    for (const SearchDir& d : dirs) {
      Json e = Json::object();
      e["path"] = d.path;
      e["source"] = d.SourcesText();
      dir_list.push_back(std::move(e));
    }
    j["directories"] = std::move(dir_list);
    Json list = Json::array();
    for (const DriverFile& f : files) {
      Json e = Json::object();
      e["path"] = f.path;
      e["realpath"] = f.realpath;
      Json aliases = Json::array();
      for (const std::string& a : f.aliases) aliases.push_back(a);
      e["aliases"] = std::move(aliases);
      Json sources = Json::array();
      for (const std::string& s : f.sources) sources.push_back(s);
      e["sources"] = std::move(sources);
      std::string lib_version = LibcudaFileVersion(f.path);
      e["library_version"] = lib_version.empty() ? Json() : Json(lib_version);
      e["kind"] = FileKindName(Kind(f));
      e["compat"] = IsCompat(f);
      e["accepted"] = f.probe.value("accepted", false);
      int version = static_cast<int>(f.probe.value("cuda_version", 0));
      e["cuda_version"] = version;
      e["cuda_version_text"] = ShortVersion(version);
      // As in Candidate, plus "probe_failed" (the probing child crashed or hung).
      e["rejection"] = f.probe.value("rejection", std::string());
      e["reason"] = f.probe.value("reason", std::string());
      e["picked"] = f.picked;
      list.push_back(std::move(e));
    }
    j["drivers"] = std::move(list);
    if (picked) {
      Json p = Json::object();
      p["path"] = pick.value("path", std::string());
      p["realpath"] = RealPath(pick.value("path", std::string()));
      p["found_by"] = pick.value("found_by", std::string());
      p["found_by_text"] = pick.value("found_by_text", std::string());
      p["cuda_version"] = pick.value("cuda_version", 0);
      p["cuda_version_text"] = ShortVersion(static_cast<int>(pick.value("cuda_version", 0)));
      p["effective_version"] = pick.value("effective_version", 0);
      j["picked"] = std::move(p);
      j["loader_error"] = Json();
    } else {
      j["picked"] = Json();
      Json e = Json::object();
      int rc = static_cast<int>(pick.value("error", 0));
      e["result"] = rc;
      e["name"] = ResultNameText(rc);
      e["message"] = pick.value("message", std::string());
      j["loader_error"] = std::move(e);
    }
    j["loader_candidates"] = pick["candidates"];
    j["exit_code"] = exit_code;
    out << JsonText(j);
    return exit_code;
  }

  if (!root.empty()) out << "search root: " << root << "\n";
  if (!search_note.empty()) out << "note: " << search_note << "\n";
  out << "libcuda files found: " << files.size() << " (in " << dirs.size()
      << " directories scanned)\n";
  for (const DriverFile& f : files) {
    out << "\n" << (f.picked ? "* " : "  ") << f.path;
    if (f.realpath != f.path) out << " -> " << f.realpath;
    out << "\n";
    for (const std::string& a : f.aliases) {
      if (a != f.path) out << "      also " << a << "\n";
    }
    std::string where;
    for (const std::string& s : f.sources) where += (where.empty() ? "" : ", ") + s;
    out << "      in: " << where << "\n";
    FileKind kind = Kind(f);
    std::string lib_version = LibcudaFileVersion(f.path);
    if (kind == FileKind::kDriver) {
      out << "      CUDA " << VersionText(static_cast<int>(f.probe.value("cuda_version", 0)));
      if (!lib_version.empty()) out << ", driver " << lib_version;
      if (IsCompat(f)) out << ", forward-compatibility (cuda-compat) library";
      out << "\n";
    } else {
      if (kind == FileKind::kCudyn) {
        out << "      cudyn's own drop-in (libcudyn_cuda.so) under a libcuda name, not a driver ("
            << f.probe.value("reason", std::string()) << ")\n";
      } else {
        out << "      " << (kind == FileKind::kStub ? "toolkit stub: " : "unusable: ")
            << f.probe.value("reason", std::string()) << "\n";
      }
    }
  }
  out << "\n";
  if (picked) {
    out << "picked: " << pick.value("path", std::string()) << " (CUDA "
        << VersionText(static_cast<int>(pick.value("cuda_version", 0))) << ")\n";
    out << "  why: found by " << pick.value("found_by", std::string()) << ": "
        << pick.value("found_by_text", std::string()) << "\n";
  } else {
    int rc = static_cast<int>(pick.value("error", 0));
    out << "picked: none (" << rc << " " << ResultNameText(rc) << ")\n";
    std::string message = pick.value("message", std::string());
    size_t start = 0;
    while (start < message.size()) {
      size_t end = message.find('\n', start);
      if (end == std::string::npos) end = message.size();
      out << "  " << message.substr(start, end - start) << "\n";
      start = end + 1;
    }
  }
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
