// cudyn's NVML (loader/nvml.cc through its drop-in, //stubs:cudyn_nvml, linked in) against every
// real NVML of the facts (Debian's 390 ... 555 builds, no GPU here): each case in its own process
// with CUDYN_NVML_PATH naming one real library (tests/util/choose_child.h).
//  * Every entry of the newest nvml.h: an entry the library exports under its own name is bound to
//    exactly that function; any other bound entry to a variant of its own family inside that file;
//    the branch read off the library is the facts'.
//  * Every entry is bound on each branch as version_tables/nvml_api_table.tsv says (native,
//  adapter,
//    missing), the adapters over the layouts of the 11.2 header among them.
//  * A clamp to CUDA V makes the newest NVML bind every entry as the real NVML of V's branch does
//    (same status, same function name), entry by entry.
//  * nvmlErrorString through cudyn is the real library's, code by code, and with no NVML at all
//    the newest real NVML's.
//  * The program built against the newest header (nvml_program.c): linked with cudyn it starts on
//    every real NVML and answers nvmlInit as the library does directly; linked with -lnvidia-ml it
//    does not start where the library lacks a symbol the header upgraded it to.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <nvml.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "loader/nvml.h"
#include "loader/nvml_support.h"
#include "tests/util/choose_child.h"
#include "tests/util/runfiles.h"

namespace {

struct RealNvml {
  int branch;
  int cuda;
  const char* path;  // runfiles path
};
constexpr RealNvml kNvmls[] = {
#include "tests/real_nvml/real_nvml.inc"
};

// Every code nvmlReturn_t names in the newest header, and some it does not.
constexpr int kCodes[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,  15,
                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,  29,  30,  31,
                          32, 40, 99, 100, 998, 999, 1000, -1};

std::string RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

std::string Family(std::string symbol) {
  const size_t v = symbol.rfind("_v");
  if (v != std::string::npos && v + 2 < symbol.size() &&
      symbol.find_first_not_of("0123456789", v + 2) == std::string::npos) {
    symbol.resize(v);
  }
  return symbol;
}

const RealNvml& Newest() { return kNvmls[std::size(kNvmls) - 1]; }

std::string FileOf(const RealNvml& r) { return cudyn::testing::Runfile(r.path); }

// --- Children -------------------------------------------------------------------------------

// --bind: the default instance (CUDYN_NVML_PATH, CUDYN_MAX_CUDA_VERSION from the environment).
int BindChild() {
  cudyn::Toolkit& t = cudyn::DefaultNvml();
  std::printf("ok=%d\nversion=%d\nrelease=%d\nown_release=%d\n", t.ok(), t.version(), t.release(),
              t.own_release());
  std::printf("missing=%d\n", t.BindAll());
  const std::string own = RealPath(t.path());
  for (int i = 0; i < cudyn::kNvmlTraits.entry_count; ++i) {
    const std::string symbol(cudyn::kNvmlTraits.symbols[i]);
    const cudyn::EntryStatus status = t.status(i);
    std::string bound = "-";
    if (status == cudyn::EntryStatus::kNative) {
      Dl_info info;
      void* fn = t.Resolve(i);
      const bool inside = dladdr(fn, &info) != 0 && info.dli_fname != nullptr &&
                          RealPath(info.dli_fname) == own && info.dli_sname != nullptr;
      bound = inside ? info.dli_sname : "outside";
      if (inside && dlsym(t.handle(), info.dli_sname) != fn) bound = "not-its-export";
    }
    std::printf("e.%s=%s:%s\n", symbol.c_str(), cudyn::EntryStatusName(status), bound.c_str());
    std::printf("x.%s=%d\n", symbol.c_str(), t.handle() != nullptr &&
                                                 dlsym(t.handle(), symbol.c_str()) != nullptr);
  }
  using ErrorString = const char* (*)(nvmlReturn_t);
  auto real = reinterpret_cast<ErrorString>(t.handle() ? dlsym(t.handle(), "nvmlErrorString")
                                                       : nullptr);
  for (int code : kCodes) {
    std::printf("s.%d=%s\n", code, nvmlErrorString(static_cast<nvmlReturn_t>(code)));
    if (real != nullptr) std::printf("r.%d=%s\n", code, real(static_cast<nvmlReturn_t>(code)));
  }
  // What the library itself answers to nvmlInit_v2 here (no GPU), called directly.
  auto init = reinterpret_cast<nvmlReturn_t (*)()>(t.handle() ? dlsym(t.handle(), "nvmlInit_v2")
                                                              : nullptr);
  if (init != nullptr && real != nullptr) {
    const nvmlReturn_t answer = init();
    std::printf("init_line=init %d %s\n", static_cast<int>(answer), real(answer));
  }
  return 0;
}

cudyn::testing::ChildAnswer Bind(const std::string& file, const std::string& clamp = "") {
  std::vector<std::string> env = {"CUDYN_NVML_PATH=" + file};
  if (!clamp.empty()) env.push_back("CUDYN_MAX_CUDA_VERSION=" + clamp);
  const cudyn::testing::ProgramRun run =
      cudyn::testing::RunProgram(RealPath("/proc/self/exe"), {"--bind"}, env, true);
  EXPECT_EQ(run.exit_code, 0) << run.raw;
  return run.answer;
}

// --- Tests ----------------------------------------------------------------------------------

TEST(NvmlOnRealLibraries, EveryEntryBindsItsOwnExportOrAVariantOfItsFamily) {
  ASSERT_EQ(std::size(kNvmls), 8u);
  for (const RealNvml& r : kNvmls) {
    SCOPED_TRACE("NVML " + std::to_string(r.branch));
    const std::string file = FileOf(r);
    ASSERT_FALSE(file.empty()) << r.path;
    auto a = Bind(file);
    ASSERT_EQ(a["ok"], "1");
    EXPECT_EQ(a["release"], std::to_string(r.branch));
    // The version is the real file's own (libnvidia-ml.so.535.261.03, as the driver installs it).
    const std::string real_name = RealPath(file).substr(RealPath(file).rfind(".so.") + 4);
    EXPECT_EQ(cudyn::NvmlVersionText(std::stoi(a["version"])).substr(0, real_name.size()),
              real_name);
    EXPECT_EQ(std::stoi(a["version"]) / 100000, r.branch);
    int native = 0, exported = 0, adapted = 0, missing = 0;
    for (int i = 0; i < cudyn::kNvmlTraits.entry_count; ++i) {
      const std::string symbol(cudyn::kNvmlTraits.symbols[i]);
      const std::string e = a["e." + symbol];
      const std::string status = e.substr(0, e.find(':'));
      const std::string bound = e.substr(e.find(':') + 1);
      if (a["x." + symbol] == "1") {
        ++exported;
        EXPECT_EQ(e, "native:" + symbol) << symbol;
      }
      if (status == "native") {
        ++native;
        EXPECT_EQ(Family(bound), Family(symbol)) << symbol << " bound to " << bound;
      } else if (status == "adapter") {
        ++adapted;
        EXPECT_NE(a["x." + symbol], "1") << symbol;
      } else {
        ++missing;
        EXPECT_EQ(status, "missing") << symbol;
      }
    }
    EXPECT_EQ(std::stoi(a["missing"]), missing);
    EXPECT_GE(native, exported);
    EXPECT_GT(exported, 150);
    // The newest branch of the facts has every entry of the newest header it knows.
    if (r.branch == Newest().branch) EXPECT_EQ(missing + adapted, 0) << a["missing"];
    std::printf("NVML %d: %d entries exported, %d native, %d adapters, %d missing\n", r.branch,
                exported, native, adapted, missing);
  }
}

// version_tables/nvml_api_table.tsv: symbol -> branch -> its bind_<branch> cell.
std::map<std::string, std::map<int, std::string>> ReadTable() {
  std::map<std::string, std::map<int, std::string>> table;
  std::ifstream in(cudyn::testing::Runfile("cudyn/version_tables/nvml_api_table.tsv"));
  std::map<int, int> column_of;  // column -> branch
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string cell; std::getline(split, cell, '\t');) cells.push_back(cell);
    if (cells[0] == "symbol") {
      for (size_t c = 0; c < cells.size(); ++c) {
        if (cells[c].rfind("bind_", 0) == 0) column_of[c] = std::stoi(cells[c].substr(5));
      }
      continue;
    }
    for (const auto& [c, branch] : column_of) table[cells[0]][branch] = cells.at(c);
  }
  return table;
}

TEST(NvmlOnRealLibraries, EveryEntryIsBoundAsTheTableSays) {
  const auto table = ReadTable();
  ASSERT_EQ(table.size(), static_cast<size_t>(cudyn::kNvmlTraits.entry_count));
  for (const RealNvml& r : kNvmls) {
    SCOPED_TRACE("NVML " + std::to_string(r.branch));
    auto a = Bind(FileOf(r));
    int adapters = 0, beyond = 0;
    for (int i = 0; i < cudyn::kNvmlTraits.entry_count; ++i) {
      const std::string symbol(cudyn::kNvmlTraits.symbols[i]);
      const std::string cell = table.at(symbol).at(r.branch);
      const std::string kind = cell.substr(0, cell.find(':'));
      const std::string e = a["e." + symbol];
      const std::string status = e.substr(0, e.find(':'));
      if (kind == "native") {
        // The first the branch exports of the symbols the cell lists.
        const std::string first = cell.substr(7, cell.find('|') - 7);
        EXPECT_EQ(e, "native:" + first) << symbol << ": " << cell;
      } else if (kind == "adapter") {
        ++adapters;
        EXPECT_EQ(status, "adapter") << symbol << ": " << cell;
      } else if (status == "adapter") {
        // An adapter over a layout no header of the facts declares (loader/nvml.cc's own: the event
        // data of CUDA 10 for nvmlEventSetWait_v2 on 390/418).
        ++beyond;
        EXPECT_NE(cell.find("as it was then"), std::string::npos) << symbol << ": " << cell;
      } else {
        EXPECT_EQ(e, "missing:-") << symbol << ": " << cell;
      }
    }
    std::printf("NVML %d: %d adapters of the table, %d beyond it\n", r.branch, adapters, beyond);
  }
}

// The adapters over the 11.2 header's layouts (GridLicensableFeatures_v4 over _v3, placements _v2
// over v1) bind where the branch exports the older variant only; RemoveGpu_v2 stays missing on 390.
TEST(NvmlOnRealLibraries, TheAdaptersOverTheLayoutsOf11_2BindOn450And460) {
  for (const RealNvml& r : kNvmls) {
    SCOPED_TRACE("NVML " + std::to_string(r.branch));
    auto a = Bind(FileOf(r));
    const std::string grid = a["e.nvmlDeviceGetGridLicensableFeatures_v4"];
    const std::string placements = a["e.nvmlDeviceGetGpuInstancePossiblePlacements_v2"];
    const std::string remove = a["e.nvmlDeviceRemoveGpu_v2"];
    if (r.branch < 450) {
      EXPECT_EQ(grid, "missing:-");
      EXPECT_EQ(placements, "missing:-");
    } else if (r.branch < 470) {
      EXPECT_EQ(grid, "adapter:-");
      EXPECT_EQ(placements, "adapter:-");
      EXPECT_EQ(a["x.nvmlDeviceGetGridLicensableFeatures_v3"], "1");
      EXPECT_EQ(a["x.nvmlDeviceGetGpuInstancePossiblePlacements"], "1");
      EXPECT_EQ(a["e.nvmlDeviceGetGridLicensableFeatures_v3"],
                "native:nvmlDeviceGetGridLicensableFeatures_v3");
      EXPECT_EQ(a["e.nvmlDeviceGetGpuInstancePossiblePlacements"],
                "native:nvmlDeviceGetGpuInstancePossiblePlacements");
    } else {
      EXPECT_EQ(grid, "native:nvmlDeviceGetGridLicensableFeatures_v4");
      EXPECT_EQ(placements, "native:nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    }
    EXPECT_EQ(remove, r.branch == 390 ? "missing:-" : "native:nvmlDeviceRemoveGpu_v2");
  }
}

TEST(NvmlOnRealLibraries, AClampBindsTheNewestAsTheRealNvmlOfThatBranch) {
  const std::string newest = FileOf(Newest());
  for (const RealNvml& r : kNvmls) {
    if (r.branch == Newest().branch) continue;
    SCOPED_TRACE("clamp to CUDA " + std::to_string(r.cuda) + " (NVML " +
                 std::to_string(r.branch) + ")");
    const std::string clamp = std::to_string(r.cuda / 1000) + "." + std::to_string(r.cuda % 1000 / 10);
    auto clamped = Bind(newest, clamp);
    auto real = Bind(FileOf(r));
    ASSERT_EQ(clamped["ok"], "1");
    EXPECT_EQ(clamped["release"], std::to_string(r.branch));
    EXPECT_EQ(clamped["own_release"], std::to_string(Newest().branch));
    int differ = 0;
    for (int i = 0; i < cudyn::kNvmlTraits.entry_count; ++i) {
      const std::string key = "e." + std::string(cudyn::kNvmlTraits.symbols[i]);
      // The same status, and a native entry bound to a function of the same name.
      EXPECT_EQ(clamped[key], real[key]) << key;
      differ += clamped[key] != real[key];
    }
    EXPECT_EQ(differ, 0);
  }
}

TEST(NvmlOnRealLibraries, ErrorStringsAreTheRealLibrarysCodeByCode) {
  std::map<int, std::string> newest;
  for (const RealNvml& r : kNvmls) {
    SCOPED_TRACE("NVML " + std::to_string(r.branch));
    auto a = Bind(FileOf(r));
    for (int code : kCodes) {
      const std::string c = std::to_string(code);
      ASSERT_FALSE(a["r." + c].empty()) << c;
      EXPECT_EQ(a["s." + c], a["r." + c]) << c;
      if (r.branch == Newest().branch) newest[code] = a["r." + c];
    }
  }
  // No NVML at all: the newest real NVML's text for every code.
  auto none = Bind("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(none["ok"], "0");
  for (int code : kCodes) {
    EXPECT_EQ(none["s." + std::to_string(code)], newest[code]) << code;
    EXPECT_STREQ(cudyn::NvmlErrorStringOf(code), newest[code].c_str()) << code;
  }
}

// The symbols nvml_program.c calls under names the newest header upgraded them to.
bool ExportsWhatTheProgramImports(const cudyn::testing::ChildAnswer& a) {
  for (const char* s : {"nvmlInit_v2", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
                        "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetMemoryInfo_v2",
                        "nvmlDeviceGetComputeRunningProcesses_v3",
                        "nvmlDeviceGetGraphicsRunningProcesses_v3",
                        "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetMigMode"}) {
    if (a.at(std::string("x.") + s) != "1") return false;
  }
  return true;
}

TEST(NvmlOnRealLibraries, TheProgramStartsOnEveryNvmlThroughCudynAndNotLinkedDirectly) {
  const std::string through_cudyn = cudyn::testing::Runfile("cudyn/tests/real_nvml/nvml_program");
  const std::string direct = cudyn::testing::Runfile("cudyn/tests/real_nvml/nvml_program_direct");
  ASSERT_FALSE(through_cudyn.empty());
  ASSERT_FALSE(direct.empty());
  int refused_directly = 0;
  for (const RealNvml& r : kNvmls) {
    SCOPED_TRACE("NVML " + std::to_string(r.branch));
    const std::string file = FileOf(r);
    auto a = Bind(file);
    // What the library itself answers to nvmlInit_v2 here (no GPU): its own init line.
    ASSERT_FALSE(a["init_line"].empty());
    const std::string init_line = a["init_line"] + "\n";
    auto run = cudyn::testing::RunProgram(through_cudyn, {}, {"CUDYN_NVML_PATH=" + file}, true);
    EXPECT_EQ(run.exit_code, 0) << run.raw;
    EXPECT_EQ(run.raw.substr(0, init_line.size()), init_line) << run.raw;
    // Linked with -lnvidia-ml (the newest), run on this one: every symbol bound at start.
    auto plain = cudyn::testing::RunProgram(
        direct, {}, {"LD_LIBRARY_PATH=" + file.substr(0, file.rfind('/')), "LD_BIND_NOW=1"}, true);
    if (ExportsWhatTheProgramImports(a)) {
      EXPECT_EQ(plain.exit_code, 0) << plain.raw;
      EXPECT_EQ(plain.raw.substr(0, init_line.size()), init_line) << plain.raw;
    } else {
      EXPECT_NE(plain.exit_code, 0) << plain.raw;
      EXPECT_EQ(plain.raw.find("init "), std::string::npos) << plain.raw;
      ++refused_directly;
    }
  }
  // 390-470 lack nvmlDeviceGetMemoryInfo_v2 and the _v3 process lists.
  EXPECT_EQ(refused_directly, 5);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--bind") == 0) return BindChild();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
