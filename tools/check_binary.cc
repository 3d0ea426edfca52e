// `cudyn-check binary FILE...`: which CUDA driver API an ELF file imports and whether a driver
// version (--target-version, or the driver's effective version) provides all of it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "tools/check.h"
#include "tools/elf/elf_reader.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

// A string every build of the cudyn loader carries (the documented environment variable it
// reads), used to recognise a binary with cudyn compiled in statically: an executable does not
// export the drop-in's cu* symbols, so its dynamic symbol table cannot tell.
constexpr char kStaticCudynMarker[] = "CUDYN_DRIVER_PATH";
// Files above this size are not scanned for the marker (the verdict does not depend on it).
constexpr off_t kMarkerScanLimit = 256 << 20;

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// cuInit, cuMemAdvise_v2, ...: "cu" then an upper-case letter (excludes cuda*, cublas*, cufft*).
bool IsDriverApiName(const std::string& name) {
  if (FindEntry(name) >= 0) return true;
  return name.size() > 2 && name[0] == 'c' && name[1] == 'u' &&
         std::isupper(static_cast<unsigned char>(name[2]));
}

// Searches the file for the marker with bounded reads (no mmap: a concurrent truncation must
// not SIGBUS the tool). Returns false on any error.
bool FileContains(const std::string& path, const char* marker, std::string* note) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return false;
  }
  if (st.st_size > kMarkerScanLimit) {
    *note = "not scanned for a statically linked cudyn (file larger than 256 MiB)";
    close(fd);
    return false;
  }
  const size_t marker_len = std::strlen(marker);
  std::vector<char> buf(1 << 20);
  size_t kept = 0;  // bytes carried over from the previous chunk
  bool found = false;
  while (!found) {
    ssize_t n = read(fd, buf.data() + kept, buf.size() - kept);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t have = kept + static_cast<size_t>(n);
    found = memmem(buf.data(), have, marker, marker_len) != nullptr;
    kept = std::min(have, marker_len - 1);
    std::memmove(buf.data(), buf.data() + have - kept, kept);
  }
  close(fd);
  return found;
}

std::string TypeName(const elf::ElfInfo& info) {
  switch (info.elf_type) {
    case 1: return "relocatable";
    case 2: return "executable";
    case 3: return info.interpreter.empty() ? "shared object" : "executable (PIE)";
    case 4: return "core";
    default: return "unknown (" + std::to_string(info.elf_type) + ")";
  }
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string CudynEvidence(const BinaryAnalysis& a) {
  std::vector<std::string> parts;
  if (!a.cudyn_needed.empty()) parts.push_back("DT_NEEDED " + Join(a.cudyn_needed, ", "));
  if (a.defined_driver_symbols > 0) {
    parts.push_back("defines " + std::to_string(a.defined_driver_symbols) +
                    " driver-API symbols itself (static cudyn drop-in)");
  }
  if (a.static_cudyn_marker) parts.push_back("static: the cudyn loader is compiled in");
  return Join(parts, "; ");
}

// "libcudart.so.12" -> 12000, "libcudart.so.11.0" -> 11000, "libcudart.so.10.1" -> 10010.
int CudartVersion(const std::string& soname) {
  const std::string prefix = "libcudart.so.";
  if (!StartsWith(soname, prefix.c_str())) return 0;
  std::string rest = soname.substr(prefix.size());
  int major = std::atoi(rest.c_str());
  int minor = 0;
  size_t dot = rest.find('.');
  if (dot != std::string::npos) minor = std::atoi(rest.c_str() + dot + 1);
  if (major <= 0 || major > 99 || minor < 0 || minor > 9) return 0;
  return major * 1000 + minor * 10;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kError: return "error";
    case Verdict::kPortable: return "portable";
    case Verdict::kNotApplicable: return "not_applicable";
    case Verdict::kCompatible: return "compatible";
    case Verdict::kIncompatible: return "incompatible";
    case Verdict::kUndecided: return "undecided";
  }
  return "?";
}

int BinaryAnalysis::needs_version() const {
  int needs = 0;
  for (const ImportedApi& api : imports) {
    if (!api.weak && api.entry >= 0) needs = std::max(needs, api.abi_version);
  }
  return needs;
}

std::vector<std::string> BinaryAnalysis::unknown_symbols() const {
  std::vector<std::string> out;
  for (const ImportedApi& api : imports) {
    if (!api.weak && api.entry < 0) out.push_back(api.symbol);
  }
  return out;
}

BinaryAnalysis AnalyzeBinary(const std::string& path) {
  BinaryAnalysis a;
  a.path = path;
  elf::ElfResult result = elf::ReadElf(path);
  if (!result.ok()) {
    a.error = path + ": " + result.error().message;
    return a;
  }
  const elf::ElfInfo& info = result.value();
  a.elf_class = info.elf_class;
  a.machine = info.machine_name;
  a.type = TypeName(info);
  a.is_dynamic = info.is_dynamic;
  a.soname = info.soname;
  a.warnings = info.warnings;
  for (const std::string& needed : info.needed) {
    if (StartsWith(needed, "libcuda.so")) a.libcuda_needed.push_back(needed);
    if (StartsWith(needed, "libcudart.so")) a.cudart_needed.push_back(needed);
    if (StartsWith(needed, "libcudyn_cuda.so")) a.cudyn_needed.push_back(needed);
  }
  a.is_driver_library = StartsWith(info.soname, "libcuda.so");
  for (const std::string& name : info.defined) {
    if (FindEntry(name) >= 0) ++a.defined_driver_symbols;
  }
  std::map<std::string, size_t> seen;
  for (const elf::ImportedSymbol& sym : info.undefined) {
    if (!IsDriverApiName(sym.name)) continue;
    auto it = seen.find(sym.name);
    if (it != seen.end()) {
      // Listed twice: weak only if every occurrence is weak.
      a.imports[it->second].weak = a.imports[it->second].weak && sym.weak;
      continue;
    }
    ImportedApi api;
    api.symbol = sym.name;
    api.weak = sym.weak;
    api.entry = FindEntry(sym.name);
    if (api.entry >= 0) {
      api.base = std::string(EntryBase(api.entry));
      api.abi_version = kEntries[api.entry].abi_version;
    }
    seen[sym.name] = a.imports.size();
    a.imports.push_back(std::move(api));
  }
  if (a.imports.empty() && a.libcuda_needed.empty() && a.cudyn_needed.empty() &&
      a.defined_driver_symbols == 0 && !a.is_driver_library) {
    std::string note;
    a.static_cudyn_marker = FileContains(path, kStaticCudynMarker, &note);
    if (!note.empty()) a.warnings.push_back(note);
  }
  return a;
}

BinaryVerdict Judge(const BinaryAnalysis& a, int target) {
  BinaryVerdict v;
  if (!a.error.empty()) {
    v.verdict = Verdict::kError;
    v.reason = a.error;
    return v;
  }
  if (a.is_driver_library) {
    v.verdict = Verdict::kNotApplicable;
    v.reason = "a CUDA driver library itself (SONAME " + a.soname + ")";
    return v;
  }
  if (a.links_cudyn()) {
    v.verdict = Verdict::kPortable;
    v.reason = "links cudyn (" + CudynEvidence(a) +
               "), which binds each entry at run time on any driver";
    return v;
  }
  std::vector<std::string> unknown = a.unknown_symbols();
  if (!unknown.empty()) {
    v.verdict = Verdict::kIncompatible;
    v.reason = "imports driver-API symbols the cudyn tables do not know (" + Join(unknown, ", ") +
               "): no known driver version provides them";
    return v;
  }
  int needs = a.needs_version();
  if (needs == 0) {
    v.verdict = Verdict::kCompatible;
    v.reason = "imports no CUDA driver API symbols";
    return v;
  }
  if (target <= 0) {
    v.verdict = Verdict::kUndecided;
    v.reason = "needs CUDA " + VersionText(needs) + "; no target version (no driver found and no "
               "--target-version)";
    return v;
  }
  for (const ImportedApi& api : a.imports) {
    if (!api.weak && api.abi_version > target) v.too_new.push_back(api.symbol);
  }
  if (v.too_new.empty()) {
    v.verdict = Verdict::kCompatible;
    v.reason = "CUDA " + VersionText(target) + " provides every import (the file needs " +
               VersionText(needs) + ")";
  } else {
    v.verdict = Verdict::kIncompatible;
    std::string list;
    for (size_t i = 0; i < v.too_new.size(); ++i) {
      int e = FindEntry(v.too_new[i]);
      if (i > 0) list += ", ";
      list += v.too_new[i] + " (needs " + ShortVersion(kEntries[e].abi_version) + ")";
    }
    v.reason = "CUDA " + VersionText(target) + " lacks " + list;
  }
  return v;
}

namespace {

int ExitFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kError: return kExitUsage;
    case Verdict::kIncompatible: return kExitIncompatible;
    case Verdict::kUndecided: return kExitNoDriver;
    default: return kExitOk;
  }
}

// Precedence of the per-file exit codes: 2 (an input could not be read) > 3 (undecided) >
// 1 (incompatible) > 0.
int Rank(int code) {
  switch (code) {
    case kExitUsage: return 3;
    case kExitNoDriver: return 2;
    case kExitIncompatible: return 1;
    default: return 0;
  }
}

Json ImportJson(const ImportedApi& api, int target) {
  Json j = Json::object();
  j["symbol"] = api.symbol;
  j["base"] = api.entry >= 0 ? Json(api.base) : Json();
  j["known"] = api.entry >= 0;
  j["abi_version"] = api.entry >= 0 ? Json(api.abi_version) : Json();
  j["abi_version_text"] = api.entry >= 0 ? ShortVersion(api.abi_version) : "unknown";
  j["weak"] = api.weak;
  if (api.entry < 0) {
    j["satisfied"] = false;
  } else if (target > 0) {
    j["satisfied"] = api.abi_version <= target;
  } else {
    j["satisfied"] = Json();
  }
  return j;
}

Json StringList(const std::vector<std::string>& items) {
  Json j = Json::array();
  for (const std::string& s : items) j.push_back(s);
  return j;
}

Json FileJson(const BinaryAnalysis& a, const BinaryVerdict& v, int target) {
  Json j = Json::object();
  j["path"] = a.path;
  j["ok"] = a.error.empty();
  j["error"] = a.error.empty() ? Json() : Json(a.error);
  if (a.error.empty()) {
    j["elf_class"] = a.elf_class;
    j["machine"] = a.machine;
    j["type"] = a.type;
    j["dynamic"] = a.is_dynamic;
    j["soname"] = a.soname.empty() ? Json() : Json(a.soname);
    j["links_libcuda"] = !a.libcuda_needed.empty();
    j["links_cudart"] = !a.cudart_needed.empty();
    j["links_cudyn"] = a.links_cudyn();
    j["libcuda_needed"] = StringList(a.libcuda_needed);
    j["cudart_needed"] = StringList(a.cudart_needed);
    j["cudyn_needed"] = StringList(a.cudyn_needed);
    j["defined_driver_symbols"] = a.defined_driver_symbols;
    j["static_cudyn_marker"] = a.static_cudyn_marker;
    j["is_driver_library"] = a.is_driver_library;
    j["cudyn_evidence"] = a.links_cudyn() ? Json(CudynEvidence(a)) : Json();
    Json imports = Json::array();
    for (const ImportedApi& api : a.imports) imports.push_back(ImportJson(api, target));
    j["imports"] = std::move(imports);
    j["needs_version"] = a.needs_version();
    j["needs_version_text"] = ShortVersion(a.needs_version());
    j["unknown_symbols"] = StringList(a.unknown_symbols());
    Json notes = Json::array();
    for (const std::string& soname : a.cudart_needed) {
      int runtime = CudartVersion(soname);
      if (runtime > 0) {
        notes.push_back("links the CUDA runtime " + soname +
                        ", which itself needs a driver of CUDA " + ShortVersion(runtime) +
                        " or newer (not part of the symbol verdict)");
      }
    }
    j["notes"] = std::move(notes);
    j["warnings"] = StringList(a.warnings);
  }
  j["verdict"] = VerdictName(v.verdict);
  j["reason"] = v.reason;
  j["too_new"] = StringList(v.too_new);
  j["exit_code"] = ExitFor(v.verdict);
  return j;
}

void PrintFile(std::ostream& out, const BinaryAnalysis& a, const BinaryVerdict& v, int target) {
  out << a.path << "\n";
  out << "  ELF" << a.elf_class << " " << a.machine << ", " << a.type
      << (a.is_dynamic ? ", dynamically linked" : ", no dynamic section")
      << (a.soname.empty() ? "" : ", SONAME " + a.soname) << "\n";
  std::vector<std::string> links;
  if (!a.libcuda_needed.empty()) links.push_back("libcuda (" + Join(a.libcuda_needed, ", ") + ")");
  if (!a.cudart_needed.empty()) links.push_back("libcudart (" + Join(a.cudart_needed, ", ") + ")");
  if (a.links_cudyn()) links.push_back("cudyn (" + CudynEvidence(a) + ")");
  out << "  links: " << (links.empty() ? "no libcuda, libcudart or cudyn" : Join(links, "; "))
      << "\n";
  for (const std::string& soname : a.cudart_needed) {
    int runtime = CudartVersion(soname);
    if (runtime > 0) {
      out << "  note: the CUDA runtime " << soname << " itself needs a driver of CUDA "
          << ShortVersion(runtime) << " or newer\n";
    }
  }
  if (!a.is_driver_library) {
    out << "  driver API imports: " << a.imports.size() << "\n";
    size_t width = 0;
    for (const ImportedApi& api : a.imports) width = std::max(width, api.symbol.size());
    for (const ImportedApi& api : a.imports) {
      out << "    " << api.symbol << std::string(width - api.symbol.size() + 2, ' ');
      if (api.entry < 0) {
        out << "unknown (not in the cudyn tables)";
      } else {
        std::string version = VersionText(api.abi_version);
        out << "needs " << version;
        if (api.weak) out << "  (weak: optional)";
        if (!api.weak && target > 0 && api.abi_version > target && !a.links_cudyn()) {
          out << std::string(version.size() < 14 ? 14 - version.size() : 0, ' ')
              << "  newer than the target";
        }
      }
      out << "\n";
    }
    if (a.needs_version() > 0) out << "  needs: CUDA " << VersionText(a.needs_version()) << "\n";
  }
  for (const std::string& w : a.warnings) out << "  warning: " << w << "\n";
  out << "  verdict: " << VerdictName(v.verdict) << ": " << v.reason << "\n";
}

}  // namespace

int RunBinary(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) {
    err << "cudyn-check binary: no FILE given\n"
        << "run 'cudyn-check binary --help'\n";
    return kExitUsage;
  }
  // The target: --target-version, else the driver's effective version.
  int target = 0;
  Json target_json;
  Json driver_json;
  std::string target_text;
  OpenedDriver opened;
  if (args.has("--target-version")) {
    std::optional<int> v = ParseVersionOption(args.get("--target-version"));
    if (!v) {
      err << "cudyn-check binary: --target-version '" << args.get("--target-version")
          << "' is not a CUDA version (e.g. 11040 or 11.4)\n";
      return kExitUsage;
    }
    target = *v;
    target_text = "CUDA " + VersionText(target) + " (--target-version)";
    target_json = Json::object();
    target_json["version"] = target;
    target_json["version_text"] = ShortVersion(target);
    target_json["source"] = "--target-version";
  } else {
    OpenRequest request;
    if (!ParseOpenRequest(args, "binary", &request, err)) return kExitUsage;
    opened = OpenDriverForCheck(request);
    if (opened.driver != nullptr && opened.driver->ok()) {
      target = opened.driver->effective_version();
      target_text = "CUDA " + VersionText(target) + " (effective version of the driver " +
                    opened.driver->path() + ")";
      target_json = Json::object();
      target_json["version"] = target;
      target_json["version_text"] = ShortVersion(target);
      target_json["source"] = "driver";
      driver_json = DriverJson(opened);
      KeepDriverLoaded(std::move(opened.driver));
    } else {
      target_text = "none: no driver found and no --target-version";
      if (opened.driver != nullptr) {
        driver_json = Json::object();
        driver_json["error"] = DriverErrorJson(*opened.driver);
        driver_json["candidates"] = CandidatesJson(opened.driver->candidates());
      }
    }
  }

  int exit_code = kExitOk;
  Json files = Json::array();
  std::vector<std::pair<BinaryAnalysis, BinaryVerdict>> results;
  for (const std::string& path : args.positional) {
    BinaryAnalysis a = AnalyzeBinary(path);
    BinaryVerdict v = Judge(a, target);
    int code = ExitFor(v.verdict);
    if (Rank(code) > Rank(exit_code)) exit_code = code;
    if (!a.error.empty()) err << "cudyn-check: " << a.error << "\n";
    results.emplace_back(std::move(a), std::move(v));
  }

  if (args.json) {
    Json j = Json::object();
    j["command"] = "binary";
    j["target"] = target_json;
    j["driver"] = driver_json;
    for (const auto& r : results) files.push_back(FileJson(r.first, r.second, target));
    j["files"] = std::move(files);
    j["exit_code"] = exit_code;
    out << JsonText(j);
    return exit_code;
  }
  out << "target: " << target_text << "\n";
  if (target == 0 && opened.driver != nullptr && !opened.driver->ok()) {
    out << "driver candidates tried:\n";
    PrintCandidates(out, opened.driver->candidates(), "  ");
  }
  int counts[6] = {0, 0, 0, 0, 0, 0};
  for (const auto& r : results) {
    out << "\n";
    if (!r.first.error.empty()) {
      out << r.first.path << "\n  error: " << r.first.error << "\n";
    } else {
      PrintFile(out, r.first, r.second, target);
    }
    ++counts[static_cast<int>(r.second.verdict)];
  }
  out << "\n" << results.size() << (results.size() == 1 ? " file: " : " files: ");
  std::vector<std::string> parts;
  const Verdict order[] = {Verdict::kCompatible, Verdict::kIncompatible, Verdict::kPortable,
                           Verdict::kUndecided, Verdict::kNotApplicable, Verdict::kError};
  for (Verdict verdict : order) {
    int n = counts[static_cast<int>(verdict)];
    if (n > 0) parts.push_back(std::to_string(n) + " " + VerdictName(verdict));
  }
  out << Join(parts, ", ") << " (exit " << exit_code << ")\n";
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
