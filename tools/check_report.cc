// `cudyn-check report` (the default): which driver cudyn finds, how, what it is, whether CUDA can
// initialise on it, and what looks wrong.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <set>

#include "nlohmann/json.hpp"
#include "tools/commands.h"
#include "tools/check_nfd.h"
#include "tools/check_nvml.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

struct Finding {
  std::string severity;  // "info", "warning", "error"
  std::string kind;      // "stub", "kernel_module", "compat", "loader_warning", "clamp", "preload",
                         // "ld_so_cache"
  std::string message;
};

// Plain C types of the few driver functions the report calls (no cuda.h needed).
using CuInitFn = int (*)(unsigned);
using CuDeviceGetCountFn = int (*)(int*);
using CuDeviceGetFn = int (*)(int*, int);
using CuDeviceGetNameFn = int (*)(char*, int, int);
using CuDeviceGetAttributeFn = int (*)(int*, int, int);
using CuDeviceTotalMemFn = int (*)(size_t*, int);
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

bool IsStubProbe(const Json& probe) {
  return probe.value("rejection", std::string()) == RejectionName(Rejection::kStubLibrary);
}

std::string MemoryText(unsigned long long bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

// Toolkit stubs among the loader's candidates.
void CandidateStubFindings(const std::vector<DriverCandidate>& candidates,
                           std::vector<Finding>* findings) {
  for (const DriverCandidate& c : candidates) {
    if (c.rejection == Rejection::kStubLibrary) {
      findings->push_back({"warning", "stub",
                           "the CUDA toolkit's stub libcuda " + c.path + " was found (" +
                               CandidateSourceName(c.source) +
                               ") and skipped: it is only for linking and returns "
                               "CUDA_ERROR_STUB_LIBRARY (34) from everything. Remove its "
                               "directory from the library path."});
    }
  }
}

// Toolkit stubs in LD_LIBRARY_PATH (probed in child processes).
void SearchPathStubFindings(std::vector<Finding>* findings) {
  std::set<std::string> probed;
  for (const SearchDir& dir : LdLibraryPathDirs()) {
    for (const char* name : {"libcuda.so.1", "libcuda.so"}) {
      std::string path = dir.path + "/" + name;
      if (access(path.c_str(), F_OK) != 0) continue;
      if (!probed.insert(RealPath(path)).second) continue;
      if (!IsStubProbe(ProbeDriverFile(path))) continue;
      if (std::strcmp(name, "libcuda.so.1") == 0) {
        findings->push_back({"error", "stub",
                             "LD_LIBRARY_PATH directory " + dir.path + " holds the toolkit stub "
                             "as libcuda.so.1: every program linked with -lcuda loads the stub "
                             "and fails with CUDA_ERROR_STUB_LIBRARY (34). Remove it from "
                             "LD_LIBRARY_PATH."});
      } else {
        findings->push_back({"warning", "stub",
                             "LD_LIBRARY_PATH contains the toolkit stub directory " + dir.path +
                             " (libcuda.so): only the linker needs it; remove it from "
                             "LD_LIBRARY_PATH at run time."});
      }
    }
  }
}

void KernelFindings(const Driver& d, const KernelModule& km, std::vector<Finding>* findings) {
  std::string lib_version = LibcudaFileVersion(d.path());
  std::string real = RealPath(d.path());
  bool compat = Contains(d.path(), "/compat/") || Contains(real, "/compat/");
  bool wsl = Contains(d.path(), "/wsl/") || Contains(real, "/wsl/");
  if (compat) {
    findings->push_back({"info", "compat",
                         "a CUDA forward-compatibility libcuda (cuda-compat) is in use: " + real +
                             ". It runs only on supported data-center GPUs (cuInit returns 804 "
                             "elsewhere) and only over a kernel module of an older, supported "
                             "branch."});
  }
  if (!km.present) {
    if (wsl) {
      findings->push_back({"info", "kernel_module",
                           "WSL: there is no " + km.source + "; the Windows host driver serves "
                           "the GPU."});
    } else {
      findings->push_back({"warning", "kernel_module",
                           "no kernel module loaded: " + km.source + " is absent, so no NVIDIA "
                           "GPU can be used (cuInit returns 100). On a GPU host, check that the "
                           "nvidia kernel module is installed and loaded (`nvidia-smi`, "
                           "`lsmod | grep nvidia`); in a container, run it with GPU access."});
    }
    return;
  }
  if (km.version.empty()) {
    findings->push_back({"info", "kernel_module",
                         "kernel module present but its version is unreadable: '" + km.line + "'"});
    return;
  }
  if (lib_version.empty()) {
    findings->push_back({"info", "kernel_module",
                         "kernel module " + km.version + "; the libcuda file name (" +
                             BaseName(real) + ") carries no driver version to compare with"});
    return;
  }
  if (km.version == lib_version) {
    findings->push_back({"info", "kernel_module",
                         "kernel module " + km.version + " matches libcuda " + lib_version});
    return;
  }
  if (compat && CompareDottedVersions(lib_version, km.version) > 0) {
    findings->push_back({"info", "kernel_module",
                         "kernel module " + km.version + " with forward-compatibility libcuda " +
                             lib_version + " (expected with cuda-compat)"});
    return;
  }
  findings->push_back(
      {"warning", "kernel_module",
       "kernel module / library version mismatch: the kernel module is " + km.version +
           " but libcuda is " + lib_version + " (" + real + "). cuInit fails with 803 "
           "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH; reboot or reload the nvidia module after a driver "
           "upgrade, or use the libcuda that matches the kernel module."});
}

Json DevicesJson(Driver& d, std::vector<std::string>* lines) {
  Json devices = Json::array();
  auto count_fn = reinterpret_cast<CuDeviceGetCountFn>(d.Resolve(kEntry_cuDeviceGetCount));
  auto get_fn = reinterpret_cast<CuDeviceGetFn>(d.Resolve(kEntry_cuDeviceGet));
  auto name_fn = reinterpret_cast<CuDeviceGetNameFn>(d.Resolve(kEntry_cuDeviceGetName));
  auto attr_fn = reinterpret_cast<CuDeviceGetAttributeFn>(d.Resolve(kEntry_cuDeviceGetAttribute));
  auto mem_fn = reinterpret_cast<CuDeviceTotalMemFn>(d.Resolve(kEntry_cuDeviceTotalMem_v2));
  int count = 0;
  if (count_fn == nullptr || count_fn(&count) != 0) {
    lines->push_back("cuDeviceGetCount failed");
    return devices;
  }
  for (int ordinal = 0; ordinal < count && ordinal < 1024; ++ordinal) {
    Json dev = Json::object();
    dev["ordinal"] = ordinal;
    int handle = 0;
    int rc = get_fn != nullptr ? get_fn(&handle, ordinal) : kCudaErrorSharedObjectSymbolNotFound;
    if (rc != 0) {
      dev["error"] = "cuDeviceGet: " + ResultNameText(rc);
      lines->push_back("#" + std::to_string(ordinal) + ": cuDeviceGet failed: " +
                       ResultNameText(rc));
      devices.push_back(std::move(dev));
      continue;
    }
    char name[256] = {0};
    if (name_fn != nullptr && name_fn(name, sizeof(name) - 1, handle) == 0) {
      dev["name"] = std::string(name);
    } else {
      dev["name"] = Json();
    }
    int major = 0, minor = 0;
    bool cc = attr_fn != nullptr && attr_fn(&major, kAttrComputeCapabilityMajor, handle) == 0 &&
              attr_fn(&minor, kAttrComputeCapabilityMinor, handle) == 0;
    std::string cc_text = cc ? std::to_string(major) + "." + std::to_string(minor) : "";
    dev["compute_capability"] = cc ? Json(cc_text) : Json();
    dev["compute_capability_major"] = cc ? Json(major) : Json();
    dev["compute_capability_minor"] = cc ? Json(minor) : Json();
    size_t bytes = 0;
    bool mem = mem_fn != nullptr && mem_fn(&bytes, handle) == 0;
    dev["total_memory_bytes"] = mem ? Json(static_cast<unsigned long long>(bytes)) : Json();
    lines->push_back("#" + std::to_string(ordinal) + ": " + (name[0] ? name : "(no name)") +
                     ", compute capability " + (cc ? cc_text : "?") + ", " +
                     (mem ? MemoryText(bytes) + " (" + std::to_string(bytes) + " bytes)"
                          : std::string("memory unknown")));
    devices.push_back(std::move(dev));
  }
  return devices;
}

Json FindingsJson(const std::vector<Finding>& findings) {
  Json list = Json::array();
  for (const Finding& f : findings) {
    Json j = Json::object();
    j["severity"] = f.severity;
    j["kind"] = f.kind;
    j["message"] = f.message;
    list.push_back(std::move(j));
  }
  return list;
}

void PrintFindings(std::ostream& out, const std::vector<Finding>& findings) {
  out << "findings:\n";
  if (findings.empty()) out << "  (none)\n";
  for (const Finding& f : findings) out << "  [" << f.severity << "] " << f.message << "\n";
}

Json KernelJson(const KernelModule& km) {
  Json j = Json::object();
  j["source"] = km.source;
  j["present"] = km.present;
  j["version"] = km.version.empty() ? Json() : Json(km.version);
  j["line"] = km.line.empty() ? Json() : Json(km.line);
  return j;
}

}  // namespace

// Shared by report and apis: parses --driver / --max-cuda-version / --search-root.
bool ParseOpenRequest(const Args& args, const char* command, OpenRequest* request,
                      std::ostream& err) {
  if (args.has("--driver")) {
    std::string path = args.get("--driver");
    if (path.empty()) {
      err << "cudyn-check " << command << ": --driver needs a path\n";
      return false;
    }
    if (path[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof(cwd)) != nullptr) path = std::string(cwd) + "/" + path;
    }
    request->driver_path = path;
  }
  if (args.has("--max-cuda-version")) {
    request->max_cuda_version = ParseVersionOption(args.get("--max-cuda-version"));
    if (!request->max_cuda_version) {
      err << "cudyn-check " << command << ": --max-cuda-version '"
          << args.get("--max-cuda-version") << "' is not a CUDA version (e.g. 11040 or 11.4)\n";
      return false;
    }
  }
  if (args.has("--search-root")) {
    std::string root = args.get("--search-root");
    if (!root.empty() && root[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof(cwd)) != nullptr) root = std::string(cwd) + "/" + root;
    }
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (root.empty() || root == "/") root = "";
    request->search_root = root;
  }
  return true;
}

// The JSON / text for "no driver" (exit 3), shared by report and apis.
int ReportNoDriver(const Args& args, const char* command, const OpenedDriver& opened,
                   const Json& extra_findings, std::ostream& out) {
  if (args.json) {
    Json j = Json::object();
    j["command"] = command;
    j["driver"] = Json();
    if (opened.driver != nullptr) {
      j["error"] = DriverErrorJson(*opened.driver);
      j["candidates"] = CandidatesJson(opened.driver->candidates());
      Json warnings = Json::array();
      for (const std::string& w : opened.driver->warnings()) warnings.push_back(w);
      j["warnings"] = std::move(warnings);
    }
    if (!extra_findings.is_null()) j["findings"] = extra_findings;
    j["exit_code"] = kExitNoDriver;
    out << JsonText(j);
  } else {
    PrintNoDriver(out, opened);
  }
  return kExitNoDriver;
}

namespace {

// report --nfd [--output FILE]: the node's facts as an NFD feature file (tools/check_nfd.h).
int ReportNfd(const Args& args, const OpenRequest& request, std::ostream& out, std::ostream& err) {
  OpenedDriver opened = OpenDriverForCheck(request);
  NodeFacts facts;
  if (opened.driver != nullptr && opened.driver->ok()) {
    Driver& d = *opened.driver;
    facts.driver_usable = true;
    facts.cuda_version = d.cuda_version();
    facts.effective_version = d.effective_version();
    facts.driver_path = d.path();
    facts.gpus = DriverGpus(d, &facts.gpu_note, &facts.gpu_count);
  } else if (opened.driver == nullptr) {
    facts.no_driver_reason = "out of memory while opening it";
  } else {
    facts.no_driver_reason = std::to_string(opened.driver->error()) + " " +
                             ResultNameText(opened.driver->error());
  }
  const int exit_code = facts.driver_usable ? kExitOk : kExitNoDriver;
  const std::string text = NfdFeatureFile(facts);
  if (facts.driver_usable) KeepDriverLoaded(std::move(opened.driver));
  if (!args.has("--output")) {
    out << text;
    return exit_code;
  }
  std::string error;
  if (!WriteFeatureFileAtomically(args.get("--output"), text, &error)) {
    err << "cudyn-check report --nfd: cannot write " << error << "\n";
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace

int RunReport(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "report", &request, err)) return kExitUsage;
  if (args.has("--output") && !args.flag("--nfd")) {
    err << "cudyn-check report: --output is for --nfd (the feature file)\n";
    return kExitUsage;
  }
  if (args.flag("--nfd")) {
    if (args.json) {
      err << "cudyn-check report: --nfd and --json are two output formats; choose one\n";
      return kExitUsage;
    }
    return ReportNfd(args, request, out, err);
  }

  // Probe LD_LIBRARY_PATH for stubs in child processes before any driver is loaded here.
  std::vector<Finding> findings;
  std::vector<Finding> stub_findings;
  SearchPathStubFindings(&stub_findings);

  OpenedDriver opened = OpenDriverForCheck(request);
  // Under --search-root: the root's ld.so.cache absent or unreadable (the default search was
  // modelled from its ld.so.conf).
  if (!opened.search_note.empty()) {
    RootLdCache cache = ReadRootLdCache(request.search_root);
    findings.push_back({cache.present ? "warning" : "info", "ld_so_cache", opened.search_note});
  }
  if (opened.driver == nullptr || !opened.driver->ok()) {
    if (opened.driver != nullptr) CandidateStubFindings(opened.driver->candidates(), &findings);
    for (const Finding& f : stub_findings) findings.push_back(f);
    if (!args.json) {
      PrintNoDriver(out, opened);
      if (!findings.empty()) PrintFindings(out, findings);
      return kExitNoDriver;
    }
    return ReportNoDriver(args, "report", opened, FindingsJson(findings), out);
  }
  Driver& d = *opened.driver;

  // Findings.
  CandidateStubFindings(d.candidates(), &findings);
  for (const Finding& f : stub_findings) findings.push_back(f);
  KernelModule km = ReadKernelModule(request.search_root);
  KernelFindings(d, km, &findings);
  for (const std::string& w : d.warnings()) findings.push_back({"warning", "loader_warning", w});
  if (d.effective_version() != d.cuda_version()) {
    findings.push_back({"info", "clamp",
                        "clamped: the driver reports CUDA " + VersionText(d.cuda_version()) +
                            "; cudyn behaves as CUDA " + VersionText(d.effective_version()) +
                            " (--max-cuda-version / CUDYN_MAX_CUDA_VERSION)"});
  }
  for (const std::string& p : opened.preloaded) {
    findings.push_back({"info", "preload",
                        "preloaded " + p + " (a DT_NEEDED of the driver that is not on the "
                        "library search path; a system install has it there)"});
  }

  // cuInit and devices.
  int init_rc = kCudaErrorSharedObjectSymbolNotFound;
  if (auto init = reinterpret_cast<CuInitFn>(d.Resolve(kEntry_cuInit))) init_rc = init(0);
  std::vector<std::string> device_lines;
  Json devices = Json::array();
  if (init_rc == 0) devices = DevicesJson(d, &device_lines);

  // What NVML knows (the driver branch, UUIDs, MIG), without a CUDA context.
  std::vector<std::string> nvml_lines;
  Json nvml = NvmlReportJson(request.max_cuda_version, &nvml_lines);

  // Binding summary.
  d.BindAll();
  int native = 0, adapter = 0, missing = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    switch (d.status(i)) {
      case EntryStatus::kNative: ++native; break;
      case EntryStatus::kAdapter: ++adapter; break;
      default: ++missing; break;
    }
  }
  int exit_code = IsDriverCompatibilityError(init_rc) ? kExitIncompatible : kExitOk;
  // Whatever happens below, the initialised driver stays loaded (see KeepDriverLoaded).
  struct Keep {
    OpenedDriver* opened;
    ~Keep() { KeepDriverLoaded(std::move(opened->driver)); }
  } keep{&opened};

  if (args.json) {
    Json j = Json::object();
    j["command"] = "report";
    j["driver"] = DriverJson(opened);
    j["candidates"] = CandidatesJson(d.candidates());
    if (!opened.simulated_search.empty()) {
      Json sim = Json::array();
      for (const auto& entry : opened.simulated_search) {
        Json e = Json::object();
        e["path"] = entry.first;
        e["source"] = entry.second;
        sim.push_back(std::move(e));
      }
      j["simulated_search"] = std::move(sim);
      j["simulated_search_note"] = opened.search_note.empty() ? Json() : Json(opened.search_note);
    }
    j["kernel_module"] = KernelJson(km);
    j["findings"] = FindingsJson(findings);
    Json init = Json::object();
    init["result"] = init_rc;
    init["name"] = ResultNameText(init_rc);
    init["description"] = ResultDescriptionText(init_rc);
    init["remedy"] = CuInitRemedy(init_rc);
    init["compatibility_error"] = IsDriverCompatibilityError(init_rc);
    j["cuinit"] = std::move(init);
    j["devices"] = std::move(devices);
    Json entries = Json::object();
    entries["total"] = static_cast<int>(kEntryCount);
    entries["native"] = native;
    entries["adapter"] = adapter;
    entries["missing"] = missing;
    j["entries"] = std::move(entries);
    j["nvml"] = std::move(nvml);
    j["exit_code"] = exit_code;
    out << JsonText(j);
    return exit_code;
  }

  const std::string lib_version = LibcudaFileVersion(d.path());
  out << "driver:             " << d.path() << "\n";
  std::string real = RealPath(d.path());
  if (real != d.path() || !lib_version.empty()) {
    out << "  real file:        " << real;
    if (!lib_version.empty()) out << "  (driver " << lib_version << ")";
    out << "\n";
  }
  out << "  found by:         " << CandidateSourceName(d.found_by()) << ": " << opened.found_by_text
      << "\n";
  out << "CUDA version:       " << VersionText(d.cuda_version()) << "\n";
  out << "effective version:  " << VersionText(d.effective_version())
      << (d.effective_version() != d.cuda_version() ? "  (clamped)" : "") << "\n";
  out << "strategy:           " << StrategyName(d.strategy()) << "\n";
  out << "candidates tried:\n";
  PrintCandidates(out, d.candidates(), "  ");
  out << "cuInit(0):          " << init_rc << " " << ResultNameText(init_rc);
  std::string description = ResultDescriptionText(init_rc);
  if (init_rc != 0 && !description.empty()) out << " (" << description << ")";
  out << "\n";
  if (init_rc != 0) out << "  remedy:           " << CuInitRemedy(init_rc) << "\n";
  if (init_rc == 0) {
    out << "devices:            " << devices.size() << "\n";
    for (const std::string& line : device_lines) out << "  " << line << "\n";
  } else {
    out << "devices:            not queried (cuInit failed)\n";
  }
  out << "entries:            " << kEntryCount << " total: " << native << " native, " << adapter
      << " adapter, " << missing << " missing\n";
  out << "NVML:               " << (nvml_lines.empty() ? std::string() : nvml_lines[0]) << "\n";
  for (size_t i = 1; i < nvml_lines.size(); ++i) out << "  " << nvml_lines[i] << "\n";
  PrintFindings(out, findings);
  out << "result:             "
      << (exit_code == kExitOk
              ? (init_rc == 0 ? "OK" : "OK (driver usable; cuInit reports no usable GPU here)")
              : "INCOMPATIBLE: cuInit failed with a driver-compatibility error")
      << " (exit " << exit_code << ")\n";
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
