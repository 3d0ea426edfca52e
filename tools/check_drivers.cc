// `cudyn-check drivers`: every libcuda on the system, its version or why it cannot be used, and
// the one cudyn picks (and why).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "tools/check.h"
#include "tools/elf/elf_reader.h"

namespace cudyn {
namespace check {
namespace {

struct DriverFile {
  std::string path;                   // the name probed (libcuda.so.1 preferred)
  std::string realpath;
  std::vector<std::string> aliases;   // every name found for this file
  std::vector<std::string> sources;   // where those names were found
  Json probe;
  bool picked = false;
  bool is_cudyn = false;  // cudyn's drop-in installed under a libcuda name
};

bool IsLibcudaName(const std::string& name) {
  return name == "libcuda.so" || name.compare(0, 11, "libcuda.so.") == 0;
}

std::vector<std::string> ListLibcuda(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (IsLibcudaName(name)) names.push_back(name);
    if (names.size() > 1000) break;
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

void AddUnique(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

std::string Kind(const DriverFile& f) {
  if (f.is_cudyn) return "cudyn";
  if (f.probe["accepted"].as_bool()) return "driver";
  if (f.probe["error"].as_int() == kCudaErrorStubLibrary ||
      f.probe["reason"].as_string().find("stub") != std::string::npos) {
    return "stub";
  }
  if (f.probe["reason"].as_string().find("cudyn itself") != std::string::npos) {
    return "cudyn";
  }
  return "invalid";
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
        Json j = Json::Object();
        if (opened.driver == nullptr) {
          j.Set("ok", false);
          j.Set("error", kCudaErrorSharedObjectInitFailed);
          j.Set("message", "out of memory");
          j.Set("candidates", Json::Array());
          return j;
        }
        const Driver& d = *opened.driver;
        j.Set("ok", d.ok());
        j.Set("error", d.error());
        j.Set("message", d.last_error());
        j.Set("path", d.path());
        j.Set("found_by", d.found_by());
        j.Set("found_by_text", opened.found_by_text);
        j.Set("cuda_version", d.cuda_version());
        j.Set("effective_version", d.effective_version());
        j.Set("candidates", CandidatesJson(d.candidates()));
        Json warnings = Json::Array();
        for (const std::string& w : d.warnings()) warnings.Push(w);
        j.Set("warnings", std::move(warnings));
        return j;
      },
      60, &failure);
  if (result) return *result;
  Json j = Json::Object();
  j.Set("ok", false);
  j.Set("error", kCudaErrorSharedObjectInitFailed);
  j.Set("message", "opening the driver " + failure);
  j.Set("candidates", Json::Array());
  return j;
}

}  // namespace

int RunDrivers(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "drivers", &request, err)) return kExitUsage;
  const std::string& root = request.search_root;

  std::vector<SearchDir> dirs = DriverScanDirs(root);
  std::vector<DriverFile> files;
  std::map<std::string, size_t> by_real;
  for (const SearchDir& dir : dirs) {
    for (const std::string& name : ListLibcuda(dir.path)) {
      std::string path = dir.path + "/" + name;
      struct stat st;
      bool resolvable = stat(path.c_str(), &st) == 0;
      std::string real = resolvable ? RealPath(path) : path;  // dangling links stay apart
      if (resolvable && S_ISDIR(st.st_mode)) continue;
      auto it = by_real.find(real);
      size_t index;
      if (it == by_real.end()) {
        index = files.size();
        by_real[real] = index;
        DriverFile f;
        f.path = path;
        f.realpath = real;
        files.push_back(std::move(f));
      } else {
        index = it->second;
      }
      DriverFile& f = files[index];
      AddUnique(&f.aliases, path);
      // A directory reached several ways carries "a, b": keep each way once per file.
      size_t start = 0;
      while (start <= dir.source.size()) {
        size_t end = dir.source.find(", ", start);
        if (end == std::string::npos) end = dir.source.size();
        AddUnique(&f.sources, dir.source.substr(start, end - start));
        start = end + 2;
      }
      // Probe the name the loader would open: libcuda.so.1 wins over other aliases.
      if (name == "libcuda.so.1" && BaseName(f.path) != "libcuda.so.1") f.path = path;
    }
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
  bool picked = pick["ok"].as_bool();
  if (picked) {
    std::string real = RealPath(pick["path"].as_string());
    auto it = by_real.find(real);
    if (it == by_real.end()) {
      DriverFile f;
      f.path = pick["path"].as_string();
      f.realpath = real;
      f.aliases.push_back(f.path);
      f.sources.push_back("found by the loader (" + pick["found_by"].as_string() + ")");
      f.probe = ProbeDriverFile(f.path);
      by_real[real] = files.size();
      files.push_back(std::move(f));
      it = by_real.find(real);
    }
    files[it->second].picked = true;
  }
  int exit_code = picked ? kExitOk : kExitNoDriver;

  if (args.json) {
    Json j = Json::Object();
    j.Set("command", "drivers");
    j.Set("search_root", root.empty() ? Json() : Json(root));
    Json dir_list = Json::Array();
    for (const SearchDir& d : dirs) {
      Json e = Json::Object();
      e.Set("path", d.path);
      e.Set("source", d.source);
      dir_list.Push(std::move(e));
    }
    j.Set("directories", std::move(dir_list));
    Json list = Json::Array();
    for (const DriverFile& f : files) {
      Json e = Json::Object();
      e.Set("path", f.path);
      e.Set("realpath", f.realpath);
      Json aliases = Json::Array();
      for (const std::string& a : f.aliases) aliases.Push(a);
      e.Set("aliases", std::move(aliases));
      Json sources = Json::Array();
      for (const std::string& s : f.sources) sources.Push(s);
      e.Set("sources", std::move(sources));
      std::string lib_version = LibcudaFileVersion(f.path);
      e.Set("library_version", lib_version.empty() ? Json() : Json(lib_version));
      e.Set("kind", Kind(f));
      e.Set("compat", IsCompat(f));
      e.Set("accepted", f.probe["accepted"].as_bool());
      int version = static_cast<int>(f.probe["cuda_version"].as_int());
      e.Set("cuda_version", version);
      e.Set("cuda_version_text", ShortVersion(version));
      e.Set("reason", f.probe["reason"].as_string());
      e.Set("picked", f.picked);
      list.Push(std::move(e));
    }
    j.Set("drivers", std::move(list));
    if (picked) {
      Json p = Json::Object();
      p.Set("path", pick["path"].as_string());
      p.Set("realpath", RealPath(pick["path"].as_string()));
      p.Set("found_by", pick["found_by"].as_string());
      p.Set("found_by_text", pick["found_by_text"].as_string());
      p.Set("cuda_version", pick["cuda_version"].as_int());
      p.Set("cuda_version_text", ShortVersion(static_cast<int>(pick["cuda_version"].as_int())));
      p.Set("effective_version", pick["effective_version"].as_int());
      j.Set("picked", std::move(p));
      j.Set("loader_error", Json());
    } else {
      j.Set("picked", Json());
      Json e = Json::Object();
      int rc = static_cast<int>(pick["error"].as_int());
      e.Set("result", rc);
      e.Set("name", ResultNameText(rc));
      e.Set("message", pick["message"].as_string());
      j.Set("loader_error", std::move(e));
    }
    j.Set("loader_candidates", pick["candidates"]);
    j.Set("exit_code", exit_code);
    out << j.Dump();
    return exit_code;
  }

  if (!root.empty()) out << "search root: " << root << "\n";
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
    std::string kind = Kind(f);
    std::string lib_version = LibcudaFileVersion(f.path);
    if (kind == "driver") {
      out << "      CUDA " << VersionText(static_cast<int>(f.probe["cuda_version"].as_int()));
      if (!lib_version.empty()) out << ", driver " << lib_version;
      if (IsCompat(f)) out << ", forward-compatibility (cuda-compat) library";
      out << "\n";
    } else {
      if (kind == "cudyn") {
        out << "      cudyn's own drop-in (libcudyn_cuda.so) under a libcuda name, not a driver ("
            << f.probe["reason"].as_string() << ")\n";
      } else {
        out << "      " << (kind == "stub" ? "toolkit stub: " : "unusable: ")
            << f.probe["reason"].as_string() << "\n";
      }
    }
  }
  out << "\n";
  if (picked) {
    out << "picked: " << pick["path"].as_string() << " (CUDA "
        << VersionText(static_cast<int>(pick["cuda_version"].as_int())) << ")\n";
    out << "  why: found by " << pick["found_by"].as_string() << ": "
        << pick["found_by_text"].as_string() << "\n";
  } else {
    int rc = static_cast<int>(pick["error"].as_int());
    out << "picked: none (" << rc << " " << ResultNameText(rc) << ")\n";
    std::string message = pick["message"].as_string();
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
