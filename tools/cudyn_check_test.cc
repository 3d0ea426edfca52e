// cudyn-check end to end: each test runs the real CLI binary as its own process (so every real
// driver is loaded by a separate process), parses its --json output back and checks it against
// what is known about the real drivers (their CUDA and driver versions from the generated table,
// version_tables/api_table.h: kRealDrivers), the toolkit stub, and test programs compiled against
// the CUDA 13.0 and 11.8 headers.
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/driver_entries.h"
#include "tests/util/runfiles.h"
#include "tools/testing/run_tool.h"

namespace cudyn {
namespace check {
namespace {

using testing::Describe;
using testing::Json;
using testing::ReadFile;
using testing::RunTool;
using testing::Tool;
using testing::ToolRun;

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

std::string DriverPath(int major) {
  return ::cudyn::testing::Runfile("nvidia_drivers/" + std::to_string(major) + "/libcuda.so.1");
}
// The real drivers this test has (third_party/nvidia_drivers.bzl, through BUILD), oldest first.
constexpr int kDriverMajors[] = {CUDYN_REAL_DRIVER_MAJORS};

// The facts of real driver `major` (its CUDA version, its driver version), from the generated
// table: the tests below name a driver by its major and never type its versions.
const RealDriverInfo& Real(int major) {
  for (int k = 0; k < kRealDriverCount; ++k) {
    if (kRealDrivers[k].major == major) return kRealDrivers[k];
  }
  static const RealDriverInfo kNone = {0, "", 0, 0};
  ADD_FAILURE() << "driver " << major << " is not in kRealDrivers";
  return kNone;
}
int Cuda(int major) { return Real(major).cuda_version; }
// 12020 -> "12.2", as the CLI writes a version.
std::string Dotted(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
// The rows of a version_tables/inputs TSV (comments and the header skipped): column 0 -> column 1.
std::map<std::string, std::string> FactRows(const std::string& name) {
  std::istringstream in(ReadFile(::cudyn::testing::Runfile("version_tables/inputs/" + name)));
  std::map<std::string, std::string> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    if (!header) rows[line.substr(0, tab)] = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
    header = false;
  }
  EXPECT_FALSE(rows.empty()) << name;
  return rows;
}
// "12.2" -> 12020; 0 when it is not X.Y.
int FromDotted(const std::string& text) {
  int major = 0, minor = 0;
  return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2 ? major * 1000 + minor * 10 : 0;
}
// PTX ISA "X.Y" -> the CUDA version (12020) of the release that introduced it (ptx_isa.tsv).
std::map<std::string, int> PtxIsaCuda() {
  std::map<std::string, int> isa;
  for (const auto& [key, cuda] : FactRows("ptx_isa.tsv")) isa[key] = FromDotted(cuda);
  return isa;
}
// The oldest CUDA driver that knows GPU `arch` ("sm_90"): its first PTX ISA (gpu_arch.tsv) and
// that ISA's release (ptx_isa.tsv); 0 when the tables lack it.
int GpuFirstCuda(const std::string& arch) {
  const std::map<std::string, std::string> gpus = FactRows("gpu_arch.tsv");
  const auto it = gpus.find(arch);
  if (it == gpus.end()) return 0;
  const std::map<std::string, int> isa = PtxIsaCuda();
  const auto cuda = isa.find(it->second);
  return cuda == isa.end() ? 0 : cuda->second;
}

// The loader's strategy on real driver `major` seen at CUDA version `effective` (its own, or a
// clamp): cuGetProcAddress_v2 / cuGetProcAddress where the driver exports it and its ABI version
// is within `effective` (the table's columns), else dlsym.
std::string StrategyOf(int major, int effective) {
  for (const char* gpa : {"cuGetProcAddress_v2", "cuGetProcAddress"}) {
    const int e = FindEntry(gpa);
    if (e >= 0 && RealDriverExports(major, e) && kEntries[e].abi_version <= effective) return gpa;
  }
  return "dlsym";
}
std::string StubPath() { return ::cudyn::testing::Runfile("cuda/stubs/libcuda.so"); }
std::string Program(const std::string& name) { return ::cudyn::testing::Runfile("tools/" + name); }

// The row of `symbol` in an `apis --json` answer (null if absent).
const Json& ApiRow(const Json& apis, const std::string& symbol) {
  static const Json kNull;
  for (const Json& row : apis["apis"]) {
    if (row["symbol"].get<std::string>() == symbol) return row;
  }
  return kNull;
}

// ---- Preconditions ----------------------------------------------------------------------------

TEST(CudynCheck, InputsArePresent) {
  ASSERT_FALSE(Tool().empty());
  for (const int major : kDriverMajors) {
    EXPECT_GT(Cuda(major), 0) << "driver " << major << " is not in the table";
    EXPECT_FALSE(DriverPath(major).empty()) << "driver " << major << " missing: run "
                                            << "third_party/fetch_deps.sh";
  }
  EXPECT_FALSE(StubPath().empty());
}

// ---- report / apis on every real driver -------------------------------------------------------

// One real driver: its CUDA version from the table, its strategy from which cuGetProcAddress
// variants it exports (the table's driver columns).
struct DriverExpectation {
  int major;
  int cuda_version;
  std::string strategy;
};
DriverExpectation ExpectationOf(int major) {
  return DriverExpectation{major, Cuda(major), StrategyOf(major, Cuda(major))};
}

class RealDriverReport : public ::testing::TestWithParam<int> {};

TEST_P(RealDriverReport, ReportJson) {
  const DriverExpectation x = ExpectationOf(GetParam());
  ToolRun run = RunTool({"report", "--driver", DriverPath(x.major), "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& j = run.json;
  EXPECT_EQ(j["command"].get<std::string>(), "report");
  EXPECT_EQ(j["driver"]["cuda_version"].get<int64_t>(), x.cuda_version);
  EXPECT_EQ(j["driver"]["effective_version"].get<int64_t>(), x.cuda_version);
  EXPECT_EQ(j["driver"]["strategy"].get<std::string>(), x.strategy);
  EXPECT_EQ(j["driver"]["found_by"].get<std::string>(), "option");
  EXPECT_EQ(j["driver"]["path"].get<std::string>(), DriverPath(x.major));
  EXPECT_EQ(j["driver"]["library_version"].get<std::string>().substr(0, 3),
            std::to_string(x.major));
  // No GPU on the CI machine: cuInit says no device, which is reported but is not a failure.
  EXPECT_EQ(j["cuinit"]["result"].get<int64_t>(), 100);
  EXPECT_EQ(j["cuinit"]["name"].get<std::string>(), "CUDA_ERROR_NO_DEVICE");
  EXPECT_NE(j["cuinit"]["remedy"].get<std::string>().find("nvidia-smi"), std::string::npos);
  EXPECT_EQ(j["devices"].size(), 0u);
  const Json& entries = j["entries"];
  EXPECT_GT(entries["native"].get<int64_t>(), 300);
  EXPECT_EQ(entries["native"].get<int64_t>() + entries["adapter"].get<int64_t>() +
                entries["missing"].get<int64_t>(),
            entries["total"].get<int64_t>());
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_TRUE(j["candidates"][0]["accepted"].get<bool>());
  EXPECT_EQ(j["exit_code"].get<int64_t>(), 0);
  if (x.major == 418) {
    // 418 needs its fatbinaryloader, which the tool preloads from the driver's directory.
    ASSERT_EQ(j["driver"]["preloaded"].size(), 1u);
    EXPECT_NE(j["driver"]["preloaded"][0].get<std::string>().find("libnvidia-fatbinaryloader"),
              std::string::npos);
  }
}

TEST_P(RealDriverReport, ReportHumanOutput) {
  const DriverExpectation x = ExpectationOf(GetParam());
  ToolRun run = RunTool({"--driver", DriverPath(x.major)});  // no subcommand = report
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  std::string version = std::to_string(x.cuda_version / 1000) + "." +
                        std::to_string((x.cuda_version % 1000) / 10) + " (" +
                        std::to_string(x.cuda_version) + ")";
  EXPECT_NE(run.out.find("CUDA version:       " + version), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("strategy:           " + x.strategy), std::string::npos);
  EXPECT_NE(run.out.find("100 CUDA_ERROR_NO_DEVICE"), std::string::npos) << run.out;
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST_P(RealDriverReport, ApisJson) {
  const DriverExpectation x = ExpectationOf(GetParam());
  ToolRun run = RunTool({"apis", "--json", "--driver", DriverPath(x.major)});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& j = run.json;
  EXPECT_EQ(j["driver"]["cuda_version"].get<int64_t>(), x.cuda_version);
  EXPECT_EQ(j["driver"]["strategy"].get<std::string>(), x.strategy);
  ASSERT_GT(j["apis"].size(), 600u);
  int native = 0;
  for (const Json& row : j["apis"]) {
    for (const char* field :
         {"symbol", "base", "abi_version", "stream", "status", "driver_symbol", "via"}) {
      ASSERT_TRUE(row.contains(field)) << field;
    }
    const std::string& status = row["status"].get<std::string>();
    ASSERT_TRUE(status == "native" || status == "adapter" || status == "missing") << status;
    if (status == "missing") {
      EXPECT_EQ(row["via"].get<std::string>(), "");
      EXPECT_EQ(row["driver_symbol"].get<std::string>(), "");
    } else {
      EXPECT_FALSE(row["driver_symbol"].get<std::string>().empty())
          << row["symbol"].get<std::string>();
    }
    if (status == "native") {
      ++native;
      // Never bound above the driver's version.
      EXPECT_LE(row["abi_version"].get<int64_t>(), x.cuda_version)
          << row["symbol"].get<std::string>();
      EXPECT_NE(row["via"].get<std::string>(), "adapter");
    }
    if (status == "adapter") {
      EXPECT_EQ(row["via"].get<std::string>(), "adapter");
    }
  }
  EXPECT_EQ(j["counts"]["native"].get<int64_t>(), native);
  // An entry every real driver exports is native everywhere; older drivers use dlsym for everything.
  const int everywhere = ::cudyn::testing::EntryNativeEverywhere();
  ASSERT_GE(everywhere, 0);
  const Json& init = ApiRow(j, std::string(EntrySymbol(everywhere)));
  EXPECT_EQ(init["status"].get<std::string>(), "native");
  EXPECT_EQ(init["driver_symbol"].get<std::string>(), EntrySymbol(everywhere));
  EXPECT_EQ(init["via"].get<std::string>(), x.strategy);
  // An entry new with the 535 is above every one of these drivers but 535: served by its adapter
  // over its older variant.
  const int added = ::cudyn::testing::EntryNewWithDriver(535);
  ASSERT_GE(added, 0);
  const Json& advise = ApiRow(j, std::string(EntrySymbol(added)));
  if (x.cuda_version >= kEntries[added].abi_version) {
    EXPECT_EQ(advise["status"].get<std::string>(), "native");
  } else {
    EXPECT_EQ(advise["status"].get<std::string>(), "adapter");
    EXPECT_EQ(advise["driver_symbol"].get<std::string>(), EntrySymbol(kEntries[added].fallback));
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, RealDriverReport, ::testing::ValuesIn(kDriverMajors),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "driver_" + std::to_string(info.param);
                         });

// An entry the 535 is the first real driver to export (from the table: cuMemAdvise_v2 or the like).
TEST(CudynCheckApis, NewEntryNativeOn535) {
  const int added = ::cudyn::testing::EntryNewWithDriver(535);
  ASSERT_GE(added, 0);
  const std::string base(EntryBase(added));
  ToolRun run = RunTool({"apis", "--driver", DriverPath(535), "--json", "--base", base});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(run.json["apis"].size(),
            static_cast<size_t>(::cudyn::testing::VariantCount(added)));  // every variant of the base
  const Json& row = ApiRow(run.json, std::string(EntrySymbol(added)));
  EXPECT_EQ(row["base"].get<std::string>(), base);
  EXPECT_EQ(row["abi_version"].get<int64_t>(), kEntries[added].abi_version);
  EXPECT_EQ(row["stream"].get<std::string>(), "legacy");
  EXPECT_EQ(row["status"].get<std::string>(), "native");
  EXPECT_EQ(row["via"].get<std::string>(), StrategyOf(535, Cuda(535)));
  EXPECT_EQ(row["driver_symbol"].get<std::string>(), EntrySymbol(added));
}

// Clamped to the 470's CUDA version (below the entry's ABI version).
TEST(CudynCheckApis, NewEntryAdaptedOn535ClampedTo470sVersion) {
  const int added = ::cudyn::testing::EntryNewWithDriver(535);
  ASSERT_GE(added, 0);
  const int clamp = Cuda(470);
  ASSERT_GT(kEntries[added].abi_version, clamp);
  ToolRun run = RunTool(
      {"apis", "--driver", DriverPath(535), "--max-cuda-version", std::to_string(clamp), "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(run.json["driver"]["cuda_version"].get<int64_t>(), Cuda(535));
  EXPECT_EQ(run.json["driver"]["effective_version"].get<int64_t>(), clamp);
  EXPECT_TRUE(run.json["driver"]["clamped"].get<bool>());
  EXPECT_EQ(run.json["driver"]["strategy"].get<std::string>(), StrategyOf(535, clamp));
  const Json& row = ApiRow(run.json, std::string(EntrySymbol(added)));
  EXPECT_EQ(row["status"].get<std::string>(), "adapter");
  EXPECT_EQ(row["driver_symbol"].get<std::string>(), EntrySymbol(kEntries[added].fallback));
  EXPECT_EQ(row["via"].get<std::string>(), "adapter");
}

TEST(CudynCheckApis, ClampFromTheEnvironmentAndItsRejection) {
  ToolRun clamped = RunTool({"apis", "--driver", DriverPath(535), "--json", "--base",
                             std::string(EntryBase(::cudyn::testing::EntryNativeEverywhere()))},
                            {"CUDYN_MAX_CUDA_VERSION=" + Dotted(Cuda(470))});
  ASSERT_EQ(clamped.exit_code, 0) << Describe(clamped);
  EXPECT_EQ(clamped.json["driver"]["effective_version"].get<int64_t>(), Cuda(470));
  // A bad value is rejected loudly: a loader warning in the report's findings.
  ToolRun bad = RunTool({"report", "--driver", DriverPath(535), "--json"},
                    {"CUDYN_MAX_CUDA_VERSION=banana"});
  ASSERT_EQ(bad.exit_code, 0) << Describe(bad);
  EXPECT_EQ(bad.json["driver"]["effective_version"].get<int64_t>(), Cuda(535));
  bool found = false;
  for (const Json& f : bad.json["findings"]) {
    if (f["kind"].get<std::string>() == "loader_warning" &&
        f["message"].get<std::string>().find("banana") != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << bad.out;
}

TEST(CudynCheckApis, StatusFilter) {
  ToolRun all = RunTool({"apis", "--driver", DriverPath(470), "--json"});
  ToolRun missing = RunTool({"apis", "--driver", DriverPath(470), "--json", "--status", "missing"});
  ASSERT_EQ(missing.exit_code, 0) << Describe(missing);
  ASSERT_TRUE(all.json_ok && missing.json_ok);
  size_t expected = 0;
  for (const Json& row : all.json["apis"])
    expected += row["status"].get<std::string>() == "missing";
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(missing.json["apis"].size(), expected);
  for (const Json& row : missing.json["apis"]) {
    EXPECT_EQ(row["status"].get<std::string>(), "missing");
    EXPECT_EQ(row["via"].get<std::string>(), "");
  }
  // An entry the 470 does not export, with no adapter, is missing there.
  const int absent = ::cudyn::testing::EntryMissingOn(470);
  ASSERT_GE(absent, 0);
  EXPECT_FALSE(ApiRow(missing.json, std::string(EntrySymbol(absent))).is_null());
  // The human table has the same number of rows.
  ToolRun table = RunTool({"apis", "--driver", DriverPath(470), "--status", "missing"});
  EXPECT_NE(table.out.find(std::to_string(expected) + " entries shown: 0 native, 0 adapter, " +
                           std::to_string(expected) + " missing"),
            std::string::npos)
      << table.out;
}

// ---- no driver --------------------------------------------------------------------------------

TEST(CudynCheckNoDriver, StubAsDriverExits3NamingTheStub) {
  for (const char* command : {"report", "apis"}) {
    ToolRun run = RunTool({command, "--driver", StubPath()});
    EXPECT_EQ(run.exit_code, 3) << Describe(run);
    EXPECT_NE(run.out.find("stub"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(StubPath()), std::string::npos) << run.out;
    ToolRun json = RunTool({command, "--driver", StubPath(), "--json"});
    EXPECT_EQ(json.exit_code, 3);
    ASSERT_TRUE(json.json_ok) << Describe(json);
    EXPECT_TRUE(json.json["driver"].is_null());
    EXPECT_EQ(json.json["error"]["result"].get<int64_t>(), 34);
    EXPECT_EQ(json.json["error"]["name"].get<std::string>(), "CUDA_ERROR_STUB_LIBRARY");
    EXPECT_EQ(json.json["candidates"][0]["rejection"].get<std::string>(), "stub_library");
    EXPECT_EQ(json.json["exit_code"].get<int64_t>(), 3);
  }
}

TEST(CudynCheckNoDriver, NonexistentDriverExits3) {
  std::string path = ::cudyn::testing::MakeTempDir("none") + "/libcuda.so.1";
  ToolRun run = RunTool({"report", "--driver", path});
  EXPECT_EQ(run.exit_code, 3) << Describe(run);
  EXPECT_NE(run.out.find(path), std::string::npos);
  EXPECT_NE(run.out.find("No such file"), std::string::npos) << run.out;
  ToolRun json = RunTool({"apis", "--driver", path, "--json"});
  EXPECT_EQ(json.exit_code, 3);
  ASSERT_TRUE(json.json_ok);
  EXPECT_EQ(json.json["error"]["result"].get<int64_t>(), 303);
}

// ---- report findings --------------------------------------------------------------------------

std::string FindingsOf(const Json& j, const std::string& kind) {
  std::string all;
  for (const Json& f : j["findings"]) {
    if (f["kind"].get<std::string>() == kind)
      all += f["severity"].get<std::string>() + ": " + f["message"].get<std::string>() + "\n";
  }
  return all;
}

TEST(CudynCheckFindings, KernelModuleAbsentMismatchedAndMatching) {
  std::string root = ::cudyn::testing::MakeTempDir("proc");
  // Absent (no ROOT/proc/driver/nvidia/version).
  ToolRun absent = RunTool({"report", "--json", "--driver", DriverPath(535), "--search-root", root});
  ASSERT_EQ(absent.exit_code, 0) << Describe(absent);
  EXPECT_NE(FindingsOf(absent.json, "kernel_module").find("no kernel module loaded"),
            std::string::npos)
      << absent.out;
  EXPECT_FALSE(absent.json["kernel_module"]["present"].get<bool>());
  // Mismatched: a 580 kernel module under the 535 library.
  ASSERT_EQ(system(("mkdir -p " + root + "/proc/driver/nvidia").c_str()), 0);
  WriteFile(root + "/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun Nov  2 10:00:00 UTC "
            "2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  ToolRun mismatch = RunTool({"report", "--json", "--driver", DriverPath(535), "--search-root", root});
  ASSERT_EQ(mismatch.exit_code, 0) << Describe(mismatch);
  EXPECT_EQ(mismatch.json["kernel_module"]["version"].get<std::string>(), "580.159.04");
  std::string text = FindingsOf(mismatch.json, "kernel_module");
  EXPECT_NE(text.find("warning: kernel module / library version mismatch"), std::string::npos)
      << text;
  EXPECT_NE(text.find("580.159.04"), std::string::npos);
  EXPECT_NE(text.find(Real(535).driver_version), std::string::npos);
  EXPECT_NE(text.find("803"), std::string::npos);
  // Matching.
  const std::string version = Real(535).driver_version;
  WriteFile(root + "/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + version + "  Release Build\n");
  ToolRun match = RunTool({"report", "--json", "--driver", DriverPath(535), "--search-root", root});
  EXPECT_NE(
      FindingsOf(match.json, "kernel_module").find("info: kernel module " + version + " matches"),
      std::string::npos)
      << match.out;
}

TEST(CudynCheckFindings, StubOnLdLibraryPath) {
  std::string dir = ::cudyn::testing::MakeTempDir("stubdir");
  ASSERT_EQ(symlink(StubPath().c_str(), (dir + "/libcuda.so.1").c_str()), 0);
  ToolRun run = RunTool({"report", "--json", "--driver", DriverPath(535)},
                    {"LD_LIBRARY_PATH=" + dir});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  std::string text = FindingsOf(run.json, "stub");
  EXPECT_NE(text.find("error: LD_LIBRARY_PATH directory " + dir), std::string::npos) << run.out;
  // Without it: no stub finding.
  ToolRun clean = RunTool({"report", "--json", "--driver", DriverPath(535)});
  EXPECT_EQ(FindingsOf(clean.json, "stub"), "");
}

TEST(CudynCheckFindings, CompatLibraryInUse) {
  std::string dir = ::cudyn::testing::MakeTempDir("cuda") + "/compat";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(symlink(DriverPath(470).c_str(), (dir + "/libcuda.so.1").c_str()), 0);
  ToolRun run = RunTool({"report", "--json", "--driver", dir + "/libcuda.so.1"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_NE(FindingsOf(run.json, "compat").find("forward-compatibility"), std::string::npos)
      << run.out;
}

// ---- binary -----------------------------------------------------------------------------------

const Json& OnlyFile(const ToolRun& run) { return run.json["files"][0]; }

// The driver version an entry needs, from the generated table (version_tables/api_table.h): the
// mem_advise programs import cuMemAdvise_v2 (CUDA 13.0 headers) or cuMemAdvise (11.8 headers),
// and the tests follow the table's answer for those names. 0 when the table lacks the entry.
int AbiVersion(const char* symbol) {
  const int e = FindEntry(symbol);
  return e < 0 ? 0 : kEntries[e].abi_version;
}
// A target below what cuMemAdvise_v2 needs and at least what cuMemAdvise needs: the 470's CUDA
// version (the tests assert both).
int OldTarget() { return Cuda(470); }

TEST(CudynCheckBinary, Cuda13ProgramNeedsCuMemAdviseV2sVersion) {
  const int needs = AbiVersion("cuMemAdvise_v2");
  ASSERT_GT(needs, OldTarget());
  std::string program = Program("mem_advise_cuda13");
  ASSERT_FALSE(program.empty());
  ToolRun old =
      RunTool({"binary", program, "--target-version", std::to_string(OldTarget()), "--json"});
  EXPECT_EQ(old.exit_code, 1) << Describe(old);
  ASSERT_TRUE(old.json_ok) << Describe(old);
  const Json& f = OnlyFile(old);
  EXPECT_TRUE(f["links_libcuda"].get<bool>());
  EXPECT_FALSE(f["links_cudyn"].get<bool>());
  EXPECT_EQ(f["elf_class"].get<int64_t>(), 64);
  EXPECT_EQ(f["machine"].get<std::string>(), "x86-64");
  EXPECT_EQ(f["needs_version"].get<int64_t>(), needs);
  EXPECT_EQ(f["verdict"].get<std::string>(), "incompatible");
  ASSERT_EQ(f["too_new"].size(), 1u);
  EXPECT_EQ(f["too_new"][0].get<std::string>(), "cuMemAdvise_v2");
  bool saw_advise = false;
  for (const Json& imp : f["imports"]) {
    if (imp["symbol"].get<std::string>() == "cuMemAdvise_v2") {
      saw_advise = true;
      EXPECT_EQ(imp["abi_version"].get<int64_t>(), needs);
      EXPECT_EQ(imp["base"].get<std::string>(), "cuMemAdvise");
      EXPECT_FALSE(imp["satisfied"].get<bool>());
    }
  }
  EXPECT_TRUE(saw_advise);
  ToolRun now = RunTool({"binary", program, "--target-version", std::to_string(needs), "--json"});
  EXPECT_EQ(now.exit_code, 0) << Describe(now);
  EXPECT_EQ(OnlyFile(now)["verdict"].get<std::string>(), "compatible");
  ToolRun dotted = RunTool({"binary", program, "--target-version", Dotted(needs)});
  EXPECT_EQ(dotted.exit_code, 0) << Describe(dotted);
  EXPECT_NE(dotted.out.find("needs " + Dotted(needs) + " (" + std::to_string(needs) + ")"),
            std::string::npos)
      << dotted.out;
}

TEST(CudynCheckBinary, Cuda118ProgramNeedsCuMemAdvisesVersion) {
  const int needs = AbiVersion("cuMemAdvise");
  ASSERT_GT(needs, 0);
  ASSERT_LE(needs, OldTarget());
  std::string program = Program("mem_advise_cuda11_8");
  ASSERT_FALSE(program.empty());
  ToolRun run =
      RunTool({"binary", program, "--target-version", std::to_string(OldTarget()), "--json"});
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  const Json& f = OnlyFile(run);
  EXPECT_EQ(f["needs_version"].get<int64_t>(), needs);
  EXPECT_EQ(f["verdict"].get<std::string>(), "compatible");
  bool saw_advise = false;
  for (const Json& imp : f["imports"]) {
    EXPECT_NE(imp["symbol"].get<std::string>(), "cuMemAdvise_v2");
    if (imp["symbol"].get<std::string>() == "cuMemAdvise") {
      saw_advise = true;
      EXPECT_EQ(imp["abi_version"].get<int64_t>(), needs);
    }
  }
  EXPECT_TRUE(saw_advise);
}

TEST(CudynCheckBinary, TargetFromTheDriver) {
  std::string program = Program("mem_advise_cuda13");
  // 535 (the table's CUDA version of it) provides cuMemAdvise_v2: compatible; clamped to the
  // 470's version or on 470: incompatible.
  const int needs = AbiVersion("cuMemAdvise_v2");
  const int cuda535 = Cuda(535);
  ASSERT_GE(cuda535, needs);
  ASSERT_LT(Cuda(470), needs);
  ASSERT_LT(OldTarget(), needs);
  ToolRun on535 = RunTool({"binary", program, "--driver", DriverPath(535), "--json"});
  EXPECT_EQ(on535.exit_code, 0) << Describe(on535);
  EXPECT_EQ(on535.json["target"]["version"].get<int64_t>(), cuda535);
  EXPECT_EQ(on535.json["target"]["source"].get<std::string>(), "driver");
  ToolRun clamped = RunTool(
      {"binary", program, "--driver", DriverPath(535), "--max-cuda-version", Dotted(OldTarget()),
       "--json"});
  EXPECT_EQ(clamped.exit_code, 1) << Describe(clamped);
  ToolRun on470 = RunTool({"binary", program, "--driver", DriverPath(470)});
  EXPECT_EQ(on470.exit_code, 1) << Describe(on470);
  // No driver and no --target-version: undecided, exit 3.
  ToolRun none = RunTool({"binary", program, "--driver", StubPath(), "--json"});
  EXPECT_EQ(none.exit_code, 3) << Describe(none);
  EXPECT_EQ(OnlyFile(none)["verdict"].get<std::string>(), "undecided");
}

TEST(CudynCheckBinary, CudynLinkedProgramsArePortable) {
  for (const char* name : {"mem_advise_cudyn_static", "mem_advise_cudyn_shared"}) {
    std::string program = Program(name);
    ASSERT_FALSE(program.empty()) << name;
    ToolRun run = RunTool({"binary", program, "--target-version",
                           std::to_string(Cuda(418)), "--json"});
    EXPECT_EQ(run.exit_code, 0) << name << "\n" << Describe(run);
    ASSERT_TRUE(run.json_ok);
    EXPECT_EQ(OnlyFile(run)["verdict"].get<std::string>(), "portable") << name;
    EXPECT_TRUE(OnlyFile(run)["links_cudyn"].get<bool>()) << name;
    EXPECT_FALSE(OnlyFile(run)["links_libcuda"].get<bool>()) << name;
    ToolRun human = RunTool({"binary", program});  // no target needed for a portable binary
    EXPECT_EQ(human.exit_code, 0) << Describe(human);
    EXPECT_NE(human.out.find("portable: links cudyn"), std::string::npos) << human.out;
  }
  ToolRun shared = RunTool({"binary", Program("mem_advise_cudyn_shared"), "--json"});
  EXPECT_EQ(OnlyFile(shared)["cudyn_needed"][0].get<std::string>(), "libcudyn_cuda.so");
}

// Offset of the middle of the PT_DYNAMIC segment of a little-endian ELF64 image, or 0.
size_t DynamicSegmentMiddle(const std::string& elf) {
  auto u16 = [&](size_t off) {
    uint16_t v;
    std::memcpy(&v, elf.data() + off, 2);
    return v;
  };
  auto u64 = [&](size_t off) {
    uint64_t v;
    std::memcpy(&v, elf.data() + off, 8);
    return v;
  };
  if (elf.size() < 64 || elf[4] != 2 || elf[5] != 1) return 0;
  uint64_t phoff = u64(0x20);
  uint16_t phentsize = u16(0x36), phnum = u16(0x38);
  for (uint16_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + static_cast<size_t>(i) * phentsize;
    if (ph + 56 > elf.size()) return 0;
    uint32_t type;
    std::memcpy(&type, elf.data() + ph, 4);
    if (type == 2 /* PT_DYNAMIC */) return u64(ph + 8) + u64(ph + 32) / 2;
  }
  return 0;
}

TEST(CudynCheckBinary, MalformedFilesExit2WithAMessage) {
  std::string dir = ::cudyn::testing::MakeTempDir("bad");
  std::string elf = ReadFile(Program("mem_advise_cuda13"));
  ASSERT_GT(elf.size(), 4000u);
  std::map<std::string, std::string> expected;  // file -> message part
  WriteFile(dir + "/empty", "");
  expected[dir + "/empty"] = "empty file";
  WriteFile(dir + "/text", "#!/bin/sh\necho this is not an ELF file\n");
  expected[dir + "/text"] = "not an ELF file";
  WriteFile(dir + "/trunc4", elf.substr(0, 4));
  expected[dir + "/trunc4"] = "truncated ELF header";
  WriteFile(dir + "/trunc40", elf.substr(0, 40));
  expected[dir + "/trunc40"] = "truncated ELF header";
  WriteFile(dir + "/trunc120", elf.substr(0, 120));
  expected[dir + "/trunc120"] = "program header table out of bounds";
  // Cut in the middle of PT_DYNAMIC (found from the program headers, so independent of layout).
  size_t dynamic_cut = DynamicSegmentMiddle(elf);
  ASSERT_GT(dynamic_cut, 120u);
  WriteFile(dir + "/trunc_dynamic", elf.substr(0, dynamic_cut));
  expected[dir + "/trunc_dynamic"] = "dynamic section out of bounds";
  std::string wrong_class = elf;
  wrong_class[4] = 3;  // EI_CLASS
  WriteFile(dir + "/class3", wrong_class);
  expected[dir + "/class3"] = "unsupported ELF class (3)";
  ASSERT_EQ(mkdir((dir + "/adir").c_str(), 0755), 0);
  expected[dir + "/adir"] = "directory";
  expected[dir + "/does-not-exist"] = "cannot open";
  for (const auto& [path, message] : expected) {
    ToolRun run = RunTool({"binary", path, "--target-version", std::to_string(Cuda(535))});
    EXPECT_EQ(run.exit_code, 2) << path << "\n" << Describe(run);
    EXPECT_NE(run.err.find(path + ": "), std::string::npos) << Describe(run);
    EXPECT_NE(run.err.find(message), std::string::npos) << path << "\n" << Describe(run);
    ToolRun json = RunTool({"binary", path, "--target-version", std::to_string(Cuda(535)), "--json"});
    EXPECT_EQ(json.exit_code, 2);
    ASSERT_TRUE(json.json_ok) << Describe(json);
    EXPECT_FALSE(OnlyFile(json)["ok"].get<bool>());
    EXPECT_EQ(OnlyFile(json)["verdict"].get<std::string>(), "error");
    EXPECT_NE(OnlyFile(json)["error"].get<std::string>().find(message), std::string::npos);
  }
  // Bad files do not stop the others; the worst exit code wins (2 over 1 over 0).
  ToolRun mixed = RunTool({"binary", dir + "/empty", Program("mem_advise_cuda13"),
                       Program("mem_advise_cuda11_8"), "--target-version",
                       std::to_string(OldTarget()), "--json"});
  EXPECT_EQ(mixed.exit_code, 2) << Describe(mixed);
  ASSERT_EQ(mixed.json["files"].size(), 3u);
  EXPECT_EQ(mixed.json["files"][1]["verdict"].get<std::string>(), "incompatible");
  EXPECT_EQ(mixed.json["files"][2]["verdict"].get<std::string>(), "compatible");
  ToolRun one_bad = RunTool({"binary", Program("mem_advise_cuda13"), Program("mem_advise_cuda11_8"),
                         "--target-version", std::to_string(OldTarget())});
  EXPECT_EQ(one_bad.exit_code, 1) << Describe(one_bad);
}

TEST(CudynCheckBinary, OneGiBSparseFileParses) {
  std::string path = ::cudyn::testing::MakeTempDir("big") + "/big.elf";
  WriteFile(path, ReadFile(Program("mem_advise_cuda13")));
  ASSERT_EQ(truncate(path.c_str(), 1LL << 30), 0);
  const int needs = AbiVersion("cuMemAdvise_v2");
  ASSERT_GT(needs, 0);
  ToolRun run = RunTool({"binary", path, "--target-version", std::to_string(needs), "--json"});
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(OnlyFile(run)["needs_version"].get<int64_t>(), needs);
  EXPECT_EQ(OnlyFile(run)["verdict"].get<std::string>(), "compatible");
}

// A GPU the target driver does not offer (its release predates the GPU: gpu_arch.tsv through
// ptx_isa.tsv) fails a file that uses CUDA with 100 even when it has no device code: a real driver
// of that version offers no device at all there. A driver-API-only program and a runtime-only one
// (no device code either) fail so, in JSON and text, and run from the GPU's first driver on; a
// host-only program (no CUDA at all) is not touched.
const Json* KernelsOn(const Json& file, const std::string& gpu) {
  for (const Json& l : file["layers"]) {
    if (l["layer"] == "kernels" && l["gpu"].is_string() && l["gpu"] == gpu) return &l;
  }
  return nullptr;
}

// `binary FILE --target-version V --gpu G --json`, which must exit `exit_code`: its kernels layer
// on G (null when there is none).
Json KernelsAt(const std::string& file, int version, const std::string& gpu, int exit_code) {
  ToolRun run =
      RunTool({"binary", file, "--target-version", Dotted(version), "--gpu", gpu, "--json"});
  EXPECT_EQ(run.exit_code, exit_code) << Describe(run);
  const Json* k = run.json_ok ? KernelsOn(OnlyFile(run), gpu) : nullptr;
  EXPECT_NE(k, nullptr) << Describe(run);
  return k != nullptr ? *k : Json();
}

TEST(CudynCheckBinary, NoDeviceCodeFailsOnAGpuTheDriverDoesNotOffer) {
  const int first = GpuFirstCuda("sm_90");
  ASSERT_GT(first, 0);
  const int before = first - 10;  // the release before the GPU's first
  const std::string need = "sm_90 needs a CUDA " + Dotted(first) + " driver: a CUDA " +
                           Dotted(before) + " driver offers no such device";
  const std::string cudart11 = Program("uses_cudart11");
  for (const std::string& program : {Program("mem_advise_cuda11_8"), cudart11}) {
    SCOPED_TRACE(program);
    ASSERT_FALSE(program.empty());
    ToolRun run = RunTool({"binary", program, "--target-version", Dotted(before), "--gpu",
                           "sm_90", "--json"});
    EXPECT_EQ(run.exit_code, 1) << Describe(run);
    ASSERT_TRUE(run.json_ok) << Describe(run);
    const Json& f = OnlyFile(run);
    EXPECT_EQ(f["verdict"], "incompatible") << f.dump(2);
    EXPECT_EQ(f["kernels"]["entries"], 0);  // no device code at all
    EXPECT_EQ(f["deciding_layer"], "kernels");
    EXPECT_EQ(f["cuda_error"], 100);
    EXPECT_EQ(f["cuda_error_name"], "cudaErrorNoDevice");
    EXPECT_EQ(f["reason"], "kernels: " + need + " -> 100 cudaErrorNoDevice");
    const Json* k = KernelsOn(f, "sm_90");
    ASSERT_NE(k, nullptr) << f.dump(2);
    EXPECT_EQ((*k)["status"], "fails");
    EXPECT_EQ((*k)["gpu_offered"], false);
    EXPECT_EQ((*k)["gpu_min_driver"], first);
    EXPECT_EQ((*k)["min_driver"], first);
    EXPECT_EQ(f["minimum_driver"]["version"], first) << f.dump(2);
    EXPECT_EQ(f["minimum_driver"]["reason"], "sm_90 needs a CUDA " + Dotted(first) + " driver");
    ToolRun text = RunTool(
        {"binary", program, "--target-version", Dotted(before), "--gpu", "sm_90"});
    EXPECT_EQ(text.exit_code, 1) << Describe(text);
    EXPECT_NE(text.out.find("    -> fails on sm_90 (100 cudaErrorNoDevice): " + need + "\n"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("  verdict: incompatible: kernels: " + need +
                            " -> 100 cudaErrorNoDevice\n"),
              std::string::npos)
        << text.out;
    // From the GPU's first driver on it runs; on a GPU the older driver offers, too.
    const Json at_first = KernelsAt(program, first, "sm_90", 0);
    EXPECT_EQ(at_first["status"], "not_applicable");
    EXPECT_EQ(at_first["gpu_offered"], true);
    ASSERT_GT(GpuFirstCuda("sm_80"), 0);
    ASSERT_LE(GpuFirstCuda("sm_80"), before);
    ToolRun older_gpu = RunTool({"binary", program, "--target-version", Dotted(before), "--gpu",
                                 "sm_80"});
    EXPECT_EQ(older_gpu.exit_code, 0) << Describe(older_gpu);
  }
  // A host-only program never reaches a driver: no GPU question.
  const std::string host_only = ::cudyn::testing::Runfile("tools/fatbin/nvcc/cudart_none");
  ASSERT_FALSE(host_only.empty());
  EXPECT_EQ(KernelsAt(host_only, before, "sm_90", 0)["status"], "not_applicable");
}

// ---- drivers ----------------------------------------------------------------------------------

// A fake system under ROOT: 535 in /usr/lib/x86_64-linux-gnu, 470 as cuda-X.Y/compat (X.Y its
// CUDA version), the toolkit stub in /usr/local/cuda-13.0/lib64/stubs (symlinks to the real
// files), each driver named libcuda.so.<its driver version> as installed.
std::string CompatDir() { return "/usr/local/cuda-" + Dotted(Cuda(470)) + "/compat"; }
std::string MakeSystemTree(bool compat_in_ld_so_conf) {
  std::string root = ::cudyn::testing::MakeTempDir("root");
  auto mkdirs = [&](const std::string& dir) {
    EXPECT_EQ(system(("mkdir -p '" + root + dir + "'").c_str()), 0);
  };
  mkdirs("/usr/lib/x86_64-linux-gnu");
  mkdirs(CompatDir());
  mkdirs("/usr/local/cuda-13.0/lib64/stubs");
  mkdirs("/etc/ld.so.conf.d");
  const std::string lib = root + "/usr/lib/x86_64-linux-gnu/";
  const std::string so535 = std::string("libcuda.so.") + Real(535).driver_version;
  EXPECT_EQ(symlink(DriverPath(535).c_str(), (lib + so535).c_str()), 0);
  EXPECT_EQ(symlink(so535.c_str(), (lib + "libcuda.so.1").c_str()), 0);
  EXPECT_EQ(symlink("libcuda.so.1", (lib + "libcuda.so").c_str()), 0);
  const std::string compat = root + CompatDir() + "/";
  const std::string so470 = std::string("libcuda.so.") + Real(470).driver_version;
  EXPECT_EQ(symlink(DriverPath(470).c_str(), (compat + so470).c_str()), 0);
  EXPECT_EQ(symlink(so470.c_str(), (compat + "libcuda.so.1").c_str()), 0);
  EXPECT_EQ(symlink(StubPath().c_str(),
                    (root + "/usr/local/cuda-13.0/lib64/stubs/libcuda.so").c_str()),
            0);
  WriteFile(root + "/etc/ld.so.conf", "# test\ninclude /etc/ld.so.conf.d/*.conf\n");
  WriteFile(root + "/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
            "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
            "/usr/lib/x86_64-linux-gnu\n");
  if (compat_in_ld_so_conf) {
    WriteFile(root + "/etc/ld.so.conf.d/000-cuda-compat.conf", CompatDir() + "\n");
  }
  return root;
}

const Json* DriverEntry(const Json& j, const std::string& realpath_part) {
  for (const Json& d : j["drivers"]) {
    if (d["realpath"].get<std::string>().find(realpath_part) != std::string::npos) return &d;
  }
  return nullptr;
}

TEST(CudynCheckDrivers, ListsDriversCompatAndStubAndPicksOne) {
  std::string root = MakeSystemTree(/*compat_in_ld_so_conf=*/false);
  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& j = run.json;
  EXPECT_EQ(j["drivers"].size(), 3u) << run.out;
  const Json* d535 = DriverEntry(j, "libcuda.so.535");
  const Json* d470 = DriverEntry(j, "libcuda.so.470");
  const Json* stub = DriverEntry(j, "stubs/libcuda.so");
  ASSERT_TRUE(d535 && d470 && stub) << run.out;
  EXPECT_EQ((*d535)["cuda_version"].get<int64_t>(), Cuda(535));
  EXPECT_EQ((*d535)["kind"].get<std::string>(), "driver");
  EXPECT_EQ((*d535)["aliases"].size(), 3u);  // libcuda.so, .so.1, .so.<driver version>
  EXPECT_EQ((*d535)["path"].get<std::string>(), root + "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_EQ((*d470)["cuda_version"].get<int64_t>(), Cuda(470));
  EXPECT_TRUE((*d470)["compat"].get<bool>());
  EXPECT_EQ((*stub)["kind"].get<std::string>(), "stub");
  EXPECT_FALSE((*stub)["accepted"].get<bool>());
  EXPECT_EQ((*stub)["rejection"].get<std::string>(), "stub_library");
  // The pick: the default search finds 535 in /usr/lib/x86_64-linux-gnu (ld.so.conf).
  EXPECT_TRUE((*d535)["picked"].get<bool>());
  EXPECT_FALSE((*d470)["picked"].get<bool>());
  EXPECT_EQ(j["picked"]["cuda_version"].get<int64_t>(), Cuda(535));
  EXPECT_NE(j["picked"]["found_by_text"].get<std::string>().find("ld.so.conf"), std::string::npos)
      << j["picked"].dump(2);
  // Human output names all three and the pick.
  ToolRun human = RunTool({"drivers", "--search-root", root});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_NE(human.out.find("toolkit stub:"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("CUDA " + Dotted(Cuda(470)) + " (" + std::to_string(Cuda(470)) +
                           "), driver " + Real(470).driver_version + ", forward-compatibility"),
            std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("picked: " + root + "/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            std::string::npos)
      << human.out;
}

TEST(CudynCheckDrivers, LdSoConfOrderDecidesThePick) {
  std::string root = MakeSystemTree(/*compat_in_ld_so_conf=*/true);
  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_EQ(run.json["picked"]["cuda_version"].get<int64_t>(), Cuda(470)) << run.out;
  EXPECT_NE(run.json["picked"]["found_by_text"].get<std::string>().find("000-cuda-compat.conf"),
            std::string::npos);
  // (d) No ld.so.cache in the root: the default search is ld.so.conf's directories, as ldconfig
  // would write the cache, and both the label and a note say so.
  EXPECT_NE(run.json["picked"]["found_by_text"].get<std::string>().find(
                "; no ld.so.cache in the root)"),
            std::string::npos)
      << run.json["picked"].dump(2);
  ASSERT_TRUE(run.json["search_note"].is_string()) << run.out;
  EXPECT_NE(run.json["search_note"].get<std::string>().find("no ld.so.cache in " + root),
            std::string::npos);
  // report agrees with drivers about the pick.
  ToolRun report = RunTool({"report", "--search-root", root, "--json"});
  ASSERT_EQ(report.exit_code, 0) << Describe(report);
  EXPECT_EQ(report.json["driver"]["cuda_version"].get<int64_t>(), Cuda(470));
  EXPECT_NE(FindingsOf(report.json, "compat"), "");
  EXPECT_EQ(FindingsOf(report.json, "ld_so_cache"),
            "info: " + run.json["search_note"].get<std::string>() + "\n");
  EXPECT_NE(report.json["driver"]["found_by_text"].get<std::string>().find(
                "ld.so.conf (/etc/ld.so.conf.d/000-cuda-compat.conf); no ld.so.cache in the root"),
            std::string::npos);
  // CUDYN_DRIVER_PATH overrides the search, as in applications.
  ToolRun env = RunTool({"drivers", "--search-root", root, "--json"},
                    {"CUDYN_DRIVER_PATH=" + DriverPath(535)});
  EXPECT_EQ(env.json["picked"]["found_by"].get<std::string>(), "CUDYN_DRIVER_PATH") << env.out;
  EXPECT_EQ(env.json["picked"]["cuda_version"].get<int64_t>(), Cuda(535));
}

TEST(CudynCheckDrivers, OnlyTheStubMeansNoDriver) {
  std::string root = ::cudyn::testing::MakeTempDir("stubroot");
  ASSERT_EQ(system(("mkdir -p " + root + "/usr/lib/x86_64-linux-gnu").c_str()), 0);
  // The stub installed as libcuda.so.1 (a broken system): found, rejected, exit 3.
  ASSERT_EQ(symlink(StubPath().c_str(), (root + "/usr/lib/x86_64-linux-gnu/libcuda.so.1").c_str()),
            0);
  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  EXPECT_EQ(run.exit_code, 3) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  EXPECT_TRUE(run.json["picked"].is_null());
  EXPECT_EQ(run.json["loader_error"]["result"].get<int64_t>(), 34);
  ASSERT_EQ(run.json["drivers"].size(), 1u);
  EXPECT_EQ(run.json["drivers"][0]["kind"].get<std::string>(), "stub");
  ToolRun report = RunTool({"report", "--search-root", root});
  EXPECT_EQ(report.exit_code, 3) << Describe(report);
  EXPECT_NE(report.out.find("stub"), std::string::npos);
}

TEST(CudynCheckDrivers, CudynDropInInstalledAsLibcudaIsNotADriver) {
  std::string root = ::cudyn::testing::MakeTempDir("dropinroot");
  ASSERT_EQ(system(("mkdir -p " + root + "/usr/lib/x86_64-linux-gnu " + root + "/usr/lib64").c_str()),
            0);
  std::string dropin = ::cudyn::testing::Runfile("stubs/libcudyn_cuda.so");
  ASSERT_FALSE(dropin.empty());
  WriteFile(root + "/usr/lib/x86_64-linux-gnu/libcuda.so.1", ReadFile(dropin));
  ASSERT_EQ(symlink(DriverPath(460).c_str(), (root + "/usr/lib64/libcuda.so.1").c_str()), 0);
  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  const Json* fake = DriverEntry(run.json, "x86_64-linux-gnu/libcuda.so.1");
  ASSERT_NE(fake, nullptr) << run.out;
  EXPECT_EQ((*fake)["kind"].get<std::string>(), "cudyn");
  EXPECT_FALSE((*fake)["picked"].get<bool>());
  EXPECT_EQ(run.json["picked"]["cuda_version"].get<int64_t>(), Cuda(460));
}

// ---- drivers: the root's ld.so.cache ----------------------------------------------------------
//
// ld.so reads ROOT/etc/ld.so.cache, never ld.so.conf: the caches below are written by the real
// ldconfig (`ldconfig -r ROOT` chroots into ROOT, so what it lists must be a file inside ROOT, not
// a link out of it: a driver it has to see is copied in; -X: the tree's links stay as built).

std::string Ldconfig() {
  for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// `command` through the shell, stdout and stderr together; *status its exit status.
std::string Output(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// Real driver `major` as a file of its own at ROOT/DIR/libcuda.so.<driver version> (a hard link
// when the file system allows, else a copy), with libcuda.so.1 linking to it as installed.
void InstallDriverFile(const std::string& root, const std::string& dir, int major) {
  ASSERT_EQ(system(("mkdir -p '" + root + dir + "'").c_str()), 0);
  char real[PATH_MAX];
  ASSERT_NE(realpath(DriverPath(major).c_str(), real), nullptr) << DriverPath(major);
  const std::string name = std::string("libcuda.so.") + Real(major).driver_version;
  const std::string target = root + dir + "/" + name;
  ASSERT_EQ(system(("ln '" + std::string(real) + "' '" + target + "' 2>/dev/null || cp '" +
                    std::string(real) + "' '" + target + "'")
                       .c_str()),
            0);
  ASSERT_EQ(symlink(name.c_str(), (root + dir + "/libcuda.so.1").c_str()), 0);
}

// ROOT/etc/ld.so.cache by the real ldconfig: ROOT/etc/ld.so.conf's directories, `extra_dirs`
// (ldconfig's command line) and the trusted directories. Returns `ldconfig -p -C` of it.
std::string RunLdconfig(const std::string& root, const std::string& extra_dirs = "") {
  const std::string ldconfig = Ldconfig();
  EXPECT_FALSE(ldconfig.empty()) << "no ldconfig on this machine";
  int status = -1;
  std::string out = Output(ldconfig + " -X -r '" + root + "' " + extra_dirs, &status);
  EXPECT_EQ(status, 0) << out;
  struct stat st;
  EXPECT_EQ(stat((root + "/etc/ld.so.cache").c_str(), &st), 0) << "ldconfig wrote no cache: " << out;
  std::string listing = Output(ldconfig + " -p -C '" + root + "/etc/ld.so.cache'", &status);
  EXPECT_EQ(status, 0) << listing;
  return listing;
}

bool HasSource(const Json& driver, const std::string& source_part) {
  for (const Json& s : driver["sources"]) {
    if (s.get<std::string>().find(source_part) != std::string::npos) return true;
  }
  return false;
}

// (a) The cache lists a directory ld.so.conf does not: the default search finds the driver there,
// before the system directories' one, and says it was the cache.
TEST(CudynCheckDriversLdCache, TheCacheFindsADriverLdSoConfDoesNotList) {
  std::string root = MakeSystemTree(/*compat_in_ld_so_conf=*/false);
  InstallDriverFile(root, "/opt/nvidia/lib", 470);
  // The directory on ldconfig's command line only: ld.so.conf does not name it.
  std::string listing = RunLdconfig(root, "/opt/nvidia/lib");
  ASSERT_NE(listing.find("libcuda.so.1 (libc6,x86-64) => /opt/nvidia/lib/libcuda.so.1"),
            std::string::npos)
      << listing;
  ASSERT_EQ(ReadFile(root + "/etc/ld.so.conf.d/x86_64-linux-gnu.conf").find("/opt"),
            std::string::npos);

  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& j = run.json;
  EXPECT_TRUE(j["search_note"].is_null()) << j["search_note"];
  EXPECT_EQ(j["picked"]["path"].get<std::string>(), root + "/opt/nvidia/lib/libcuda.so.1")
      << j["picked"].dump(2);
  EXPECT_EQ(j["picked"]["cuda_version"].get<int64_t>(), Cuda(470));
  const std::string why = j["picked"]["found_by_text"].get<std::string>();
  EXPECT_NE(why.find("default search (ld.so.cache)"), std::string::npos) << why;
  EXPECT_EQ(why.find("ld.so.conf"), std::string::npos) << why;
  // The scan lists the directory by its only source, the cache.
  const Json* cached = DriverEntry(j, root + "/opt/nvidia/lib/");
  ASSERT_NE(cached, nullptr) << run.out;
  EXPECT_TRUE((*cached)["picked"].get<bool>());
  EXPECT_TRUE(HasSource(*cached, "ld.so.cache")) << cached->dump(2);
  EXPECT_FALSE(HasSource(*cached, "ld.so.conf")) << cached->dump(2);
  bool listed = false;
  for (const Json& d : j["directories"]) {
    if (d["path"].get<std::string>() == root + "/opt/nvidia/lib") {
      listed = true;
      EXPECT_EQ(d["source"].get<std::string>(), "ld.so.cache");
    }
  }
  EXPECT_TRUE(listed) << j["directories"].dump(2);

  ToolRun human = RunTool({"drivers", "--search-root", root});
  EXPECT_EQ(human.exit_code, 0) << Describe(human);
  EXPECT_NE(human.out.find("picked: " + root + "/opt/nvidia/lib/libcuda.so.1"), std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("default search (ld.so.cache)"), std::string::npos) << human.out;
  EXPECT_EQ(human.out.find("note:"), std::string::npos) << human.out;
}

// (b) ld.so.conf names a directory with a driver the cache does not list (the conf file was added
// after the last ldconfig): with a cache that directory is no default-search candidate.
TEST(CudynCheckDriversLdCache, ADirectoryOnlyLdSoConfNamesIsNotSearched) {
  std::string root = MakeSystemTree(/*compat_in_ld_so_conf=*/false);
  std::string listing = RunLdconfig(root);
  WriteFile(root + "/etc/ld.so.conf.d/000-cuda-compat.conf", CompatDir() + "\n");
  ASSERT_EQ(listing.find("compat"), std::string::npos) << listing;

  // Without the cache the same tree picks the compat 470 (LdSoConfOrderDecidesThePick); with it,
  // the system directory's 535.
  ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  EXPECT_EQ(run.json["picked"]["cuda_version"].get<int64_t>(), Cuda(535)) << run.out;
  EXPECT_EQ(run.json["picked"]["path"].get<std::string>(),
            root + "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_NE(run.json["picked"]["found_by_text"].get<std::string>().find(
                "default search (system directory)"),
            std::string::npos)
      << run.json["picked"].dump(2);
  EXPECT_TRUE(run.json["search_note"].is_null());
  // The scan still lists the compat driver, reached through ld.so.conf (every place a driver may
  // lie), but the simulated search handed to the loader does not hold it.
  const Json* d470 = DriverEntry(run.json, "libcuda.so.470");
  ASSERT_NE(d470, nullptr) << run.out;
  EXPECT_TRUE(HasSource(*d470, "000-cuda-compat.conf")) << d470->dump(2);
  EXPECT_FALSE((*d470)["picked"].get<bool>());
  ToolRun report = RunTool({"report", "--search-root", root, "--json"});
  ASSERT_EQ(report.exit_code, 0) << Describe(report);
  ASSERT_TRUE(report.json["simulated_search"].is_array()) << report.out;
  for (const Json& e : report.json["simulated_search"]) {
    EXPECT_EQ(e["path"].get<std::string>().find("compat"), std::string::npos) << e.dump();
    EXPECT_EQ(e["source"].get<std::string>().find("ld.so.conf"), std::string::npos) << e.dump();
  }
  EXPECT_TRUE(report.json["simulated_search_note"].is_null());
  EXPECT_EQ(FindingsOf(report.json, "ld_so_cache"), "");
}

// (c) A garbage, truncated, empty cache or a directory in its place: said so, the ld.so.conf model
// instead (which picks the compat 470 here), no crash.
TEST(CudynCheckDriversLdCache, AnUnreadableCacheIsSaidAndLdSoConfModelled) {
  std::string good_root = MakeSystemTree(/*compat_in_ld_so_conf=*/false);
  InstallDriverFile(good_root, "/opt/nvidia/lib", 470);
  RunLdconfig(good_root, "/opt/nvidia/lib");
  const std::string good = ReadFile(good_root + "/etc/ld.so.cache");
  ASSERT_GT(good.size(), 48u);

  struct Bad {
    const char* what;
    std::string data;  // the file's contents; "<dir>": a directory instead
  };
  const std::vector<Bad> bad = {{"garbage", std::string(300, 'x')},
                                {"truncated header", good.substr(0, 30)},
                                {"truncated entries", good.substr(0, 60)},
                                {"empty", ""},
                                {"a directory", "<dir>"}};
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    std::string root = MakeSystemTree(/*compat_in_ld_so_conf=*/true);
    if (b.data == "<dir>") {
      ASSERT_EQ(mkdir((root + "/etc/ld.so.cache").c_str(), 0755), 0);
    } else {
      WriteFile(root + "/etc/ld.so.cache", b.data);
    }
    ToolRun run = RunTool({"drivers", "--search-root", root, "--json"});
    ASSERT_EQ(run.exit_code, 0) << Describe(run);
    ASSERT_TRUE(run.json_ok) << Describe(run);
    ASSERT_TRUE(run.json["search_note"].is_string()) << run.out;
    const std::string note = run.json["search_note"].get<std::string>();
    EXPECT_NE(note.find(root + "/etc/ld.so.cache is unreadable"), std::string::npos) << note;
    EXPECT_NE(note.find("modelled from " + root + "/etc/ld.so.conf"), std::string::npos) << note;
    EXPECT_EQ(run.json["picked"]["cuda_version"].get<int64_t>(), Cuda(470)) << run.out;
    const std::string why = run.json["picked"]["found_by_text"].get<std::string>();
    EXPECT_NE(why.find("000-cuda-compat.conf"), std::string::npos) << why;
    EXPECT_NE(why.find("ld.so.cache unreadable"), std::string::npos) << why;

    ToolRun human = RunTool({"drivers", "--search-root", root});
    EXPECT_EQ(human.exit_code, 0) << Describe(human);
    EXPECT_NE(human.out.find("note: " + root + "/etc/ld.so.cache is unreadable"),
              std::string::npos)
        << human.out;
    ToolRun report = RunTool({"report", "--search-root", root, "--json"});
    ASSERT_EQ(report.exit_code, 0) << Describe(report);
    EXPECT_EQ(report.json["simulated_search_note"].get<std::string>(), note);
    EXPECT_EQ(FindingsOf(report.json, "ld_so_cache"), "warning: " + note + "\n");
  }
}

// ---- usage ------------------------------------------------------------------------------------

TEST(CudynCheckUsage, HelpForEverySubcommandExits0) {
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"-h"},
                                             {"help"},
                                             {"report", "--help"},
                                             {"apis", "--help"},
                                             {"binary", "--help"},
                                             {"drivers", "--help"},
                                             {"help", "binary"},
                                             {"apis", "--bogus", "--help"}}) {
    ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 0) << args[0] << "\n" << Describe(run);
    EXPECT_NE(run.out.find("usage: cudyn-check"), std::string::npos) << run.out;
  }
  EXPECT_NE(RunTool({"binary", "--help"}).out.find("--target-version"), std::string::npos);
  EXPECT_NE(RunTool({"apis", "--help"}).out.find("--status"), std::string::npos);
}

TEST(CudynCheckUsage, BadCommandLinesExit2) {
  std::string program = Program("mem_advise_cuda13");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"frobnicate"},
           {"frobnicate", "--help"},
           {"report", "--bogus"},
           {"--bogus"},
           {"-x"},
           {"apis", "--status", "bogus", "--driver", DriverPath(535)},
           {"apis", "--base", "cuNoSuchThing", "--driver", DriverPath(535)},
           {"apis", "--status"},
           {"binary"},
           {"binary", program, "--target-version", "banana"},
           {"report", "--max-cuda-version", "99.99.99"},
           {"drivers", "--driver", "/x"},
           {"report", "extra-argument"},
           {"--json=1"},
           {"help", "frobnicate"}}) {
    ToolRun run = RunTool(args);
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(run.exit_code, 2) << joined << "\n" << Describe(run);
    EXPECT_FALSE(run.err.empty()) << joined;
  }
}

// ---- report --nfd -------------------------------------------------------------------------------

// The labels of an NFD feature file ("name" -> "value"); fails the test on a line that is not a
// comment and not a valid label (Kubernetes: name and value <= 63 characters of [A-Za-z0-9._-],
// starting and ending alphanumeric; the namespace NFD always accepts).
std::map<std::string, std::string> NfdLabels(const std::string& text) {
  // POSIX extended regex (<regex.h>), anchored as std::regex_match was: std::regex cost this file
  // seconds of compile time in every build configuration.
  regex_t line_re;
  const int compiled = regcomp(
      &line_re,
      "^feature\\.node\\.kubernetes\\.io/([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)="
      "([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)$",
      REG_EXTENDED);
  EXPECT_EQ(compiled, 0);
  std::map<std::string, std::string> labels;
  if (compiled != 0) return labels;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    regmatch_t m[4];
    const bool valid = regexec(&line_re, line.c_str(), 4, m, 0) == 0;
    EXPECT_TRUE(valid) << "not a valid NFD label line: " << line;
    if (valid) {
      labels[line.substr(m[1].rm_so, m[1].rm_eo - m[1].rm_so)] =
          line.substr(m[3].rm_so, m[3].rm_eo - m[3].rm_so);
    }
  }
  regfree(&line_re);
  return labels;
}

// The newest PTX ISA a driver of CUDA version `cuda` JITs, as the label writes it (major*10+minor),
// read from NVIDIA's PTX ISA release table (version_tables/inputs/ptx_isa.tsv: ISA -> the CUDA
// release that introduced it); "" when `cuda` predates every row.
std::string PtxIsaMaxLabel(int cuda) {
  std::string best;
  int best_isa = -1;
  for (const auto& [key, introduced] : PtxIsaCuda()) {
    int isa_major = 0, isa_minor = 0;
    if (std::sscanf(key.c_str(), "%d.%d", &isa_major, &isa_minor) != 2) continue;
    const int isa = isa_major * 10 + isa_minor;
    if (introduced > 0 && introduced <= cuda && isa > best_isa) {
      best_isa = isa;
      best = std::to_string(isa);
    }
  }
  EXPECT_FALSE(best.empty()) << "no PTX ISA row for CUDA " << cuda;
  return best;
}

// One real driver (its major; its CUDA version from the table).
class RealDriverNfd : public ::testing::TestWithParam<int> {};

TEST_P(RealDriverNfd, LabelsDescribeTheDriver) {
  const struct {
    int major, cuda;
  } e = {GetParam(), Cuda(GetParam())};
  ToolRun run = RunTool({"report", "--nfd", "--driver", DriverPath(e.major)});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  std::map<std::string, std::string> labels = NfdLabels(run.out);
  EXPECT_EQ(labels["cudyn.driver"], "usable");
  EXPECT_EQ(labels["cudyn.cuda-driver-version"], std::to_string(e.cuda));
  EXPECT_EQ(labels["cudyn.cuda-driver-major"], std::to_string(e.cuda / 1000));
  EXPECT_EQ(labels["cudyn.cuda-driver-minor"], std::to_string(e.cuda % 1000 / 10));
  EXPECT_EQ(labels["cudyn.ptx-isa-max"], PtxIsaMaxLabel(e.cuda));
  EXPECT_EQ(labels["cudyn.gpu-count"], "0");  // no GPU on this machine: cuInit answers 100
  // Runtime families: 11.0 (every 11.x) from an 11.0 driver on, 12 from 12.0, never 13 here;
  // the 10.x releases up to the driver's own.
  EXPECT_EQ(labels.count("cudyn.cudart.11.0"), e.cuda >= 11000 ? 1u : 0u);
  EXPECT_EQ(labels.count("cudyn.cudart.12"), e.cuda >= 12000 ? 1u : 0u);
  EXPECT_EQ(labels.count("cudyn.cudart.13"), 0u);
  EXPECT_EQ(labels.count("cudyn.cudart.10.0"), 1u);
  EXPECT_EQ(labels.count("cudyn.cudart.10.2"), e.cuda >= 10020 ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(Drivers, RealDriverNfd, ::testing::ValuesIn(kDriverMajors),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "driver_" + std::to_string(info.param);
                         });

TEST(ReportNfd, ClampedDriverAndAtomicOutputFile) {
  const std::string dir = ::cudyn::testing::MakeTempDir("nfd");
  const std::string file = dir + "/cudyn";
  const int clamp = Cuda(470);
  ToolRun run = RunTool({"report", "--nfd", "--driver", DriverPath(535), "--max-cuda-version",
                         Dotted(clamp), "--output", file});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(run.out.empty()) << run.out;
  std::map<std::string, std::string> labels = NfdLabels(ReadFile(file));
  EXPECT_EQ(labels["cudyn.cuda-driver-version"], std::to_string(clamp));
  EXPECT_EQ(labels["cudyn.ptx-isa-max"], PtxIsaMaxLabel(clamp));
  EXPECT_EQ(labels.count("cudyn.cudart.12"), 0u);
  // Only the file itself remains (the dot file it was written to was renamed).
  int entries = 0;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  while (struct dirent* e = readdir(d.get())) entries += e->d_name[0] != '.';
  EXPECT_EQ(entries, 1);
  run = RunTool({"report", "--nfd", "--driver", DriverPath(535), "--output",
                 dir + "/no/such/dir/cudyn"});
  EXPECT_EQ(run.exit_code, 2) << Describe(run);
  EXPECT_NE(run.err.find("cannot write"), std::string::npos) << run.err;
}

TEST(ReportNfd, NoDriverAndBadCombinations) {
  ToolRun run = RunTool({"report", "--nfd", "--driver", StubPath()});
  EXPECT_EQ(run.exit_code, 3) << Describe(run);
  std::map<std::string, std::string> labels = NfdLabels(run.out);
  EXPECT_EQ(labels["cudyn.driver"], "none");
  EXPECT_EQ(labels.count("cudyn.cuda-driver-version"), 0u);
  run = RunTool({"report", "--nfd", "--json"});
  EXPECT_EQ(run.exit_code, 2);
  run = RunTool({"report", "--output", "x"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--output is for --nfd"), std::string::npos) << run.err;
  run = RunTool({"binary", "--nfd", "x"});
  EXPECT_EQ(run.exit_code, 2);
}

}  // namespace
}  // namespace check
}  // namespace cudyn
