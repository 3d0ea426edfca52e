// The cuBLAS loader (loader/cublas.h on the toolkit template, loader/toolkit.h) against the real
// thing: the real cuBLAS 11.8, 12.4, 12.5 (Debian) and 13.0 (the toolkit's, cuBLAS 13.1) offered
// together, on every real driver, clamped and with none. For each: which cuBLAS is taken and why
// the others were refused, the libcublasLt that came with it, every table entry bound natively or
// missing as version_tables/cublas_api_table.tsv says, and calls that need no GPU through the
// loader (cublasGetVersion_v2 with a null handle, cublasGetProperty, cublasGetCudartVersion,
// cublasGetStatusString; nothing here calls cublasCreate: there is no GPU). Each case runs in its
// own process (this binary re-executed with --choose), the driver named by CUDYN_DRIVER_PATH.
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/cublas.h"
#include "tests/util/choose_child.h"
#include "tests/util/runfiles.h"

namespace {

struct RealDriver {
  const char* major;
  int cuda;
};
constexpr RealDriver kRealDrivers[] = {
#include "tests/util/real_drivers.inc"
};
struct RealCublas {
  const char* version;
  const char* path;  // runfiles path
};
constexpr RealCublas kRealCublas[] = {
#include "tests/real_cublas/real_cublas.inc"
};

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

std::string Cublas13() {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/libcublas.so.13";
}

std::string CublasFile(const std::string& version) {
  if (version == "13.0") return Cublas13();
  for (const RealCublas& c : kRealCublas) {
    if (version == c.version) return cudyn::testing::Runfile(c.path);
  }
  return "";
}

// Every cuBLAS's directory, newest first (13.0, 12.5, 12.4, 11.8).
std::vector<std::string> CublasDirs() {
  std::vector<std::string> dirs = {Dir(Cublas13())};
  for (int i = sizeof(kRealCublas) / sizeof(kRealCublas[0]) - 1; i >= 0; --i) {
    dirs.push_back(Dir(cudyn::testing::Runfile(kRealCublas[i].path)));
  }
  return dirs;
}

std::string DriverPath(const char* major) {
  return cudyn::testing::Runfile(std::string("nvidia_drivers/") + major + "/libcuda.so.1");
}

using GetVersionFn = int (*)(void*, int*);
using GetPropertyFn = int (*)(int, int*);
using GetCudartVersionFn = size_t (*)();
using StatusStringFn = const char* (*)(int);
using LtGetVersionFn = size_t (*)();

std::string RealPathOf(const std::string& path) {
  char real[PATH_MAX];
  return realpath(path.c_str(), real) != nullptr ? real : "";
}

const char* SourceName(cudyn::ToolkitSource source) {
  return cudyn::ToolkitSourceName(cudyn::kCublasTraits, source);
}

// --choose [--plan] [--path P] [DIR...]: opens a cuBLAS for the environment's driver and prints
// key=value. --plan: the loader's own search (default search first) instead of the DIRs.
// The file a companion note names for the cuBLAS's libcublasLt ("libcublasLt.so.12: <file>",
// perhaps followed by " (cudyn's drop-in)"; loader/toolkit.h siblings).
std::string SiblingFile(const std::string& companion) {
  std::string file = companion;
  const size_t colon = file.find(": ");
  if (colon != std::string::npos) file = file.substr(colon + 2);
  const size_t note = file.find(" (");
  return note != std::string::npos ? file.substr(0, note) : file;
}

int Choose(int argc, char** argv) {
  cudyn::ToolkitOptions options;
  options.use_environment = true;
  int i = 2;
  const bool plan = i < argc && std::strcmp(argv[i], "--plan") == 0;
  if (plan) ++i;
  if (i + 1 < argc && std::strcmp(argv[i], "--path") == 0) {
    options.path = argv[i + 1];
    i += 2;
  }
  if (!plan) options.search_paths = std::vector<std::string>(argv + i, argv + argc);
  auto b = cudyn::Toolkit::Open(cudyn::kCublasTraits, options);
  if (b == nullptr) return 2;
  std::printf("ok=%d\nerror=%d\nversion=%d\nmajor=%d\ncudart=%d\ndriver=%d\npath=%s\n", b->ok(),
              b->error(), b->version(), b->version() / 10000, b->runtime_version(),
              b->driver_version(), b->path().c_str());
  char real[PATH_MAX];
  std::printf("real_path=%s\nfound_by=%s\n",
              realpath(b->path().c_str(), real) != nullptr ? real : "",
              SourceName(b->found_by()));
  std::printf("cublaslt=%s\nwarnings=%zu\n", SiblingFile(b->companion()).c_str(),
              b->warnings().size());
  // Every libcublas.so.* / libcublasLt.so.* this process has mapped (a refused candidate must not
  // be loaded).
  const std::string mapped = cudyn::testing::MappedFiles("/libcublas.so.");
  const size_t count = mapped.empty() ? 0 : std::count(mapped.begin(), mapped.end(), ',') + 1;
  std::printf("mapped_cublas=%zu\nmapped_cublas_files=%s\n", count, mapped.c_str());
  std::printf("mapped_cublaslt_files=%s\n",
              cudyn::testing::MappedFiles("/libcublasLt.so.").c_str());
  std::printf("candidates=%zu\n", b->candidates().size());
  for (size_t k = 0; k < b->candidates().size(); ++k) {
    const cudyn::ToolkitCandidate& c = b->candidates()[k];
    std::printf("cand.%zu=%s|%s|%d\nreason.%zu=%s\n", k, c.path.c_str(),
                cudyn::ToolkitRejectionName(cudyn::kCublasTraits, c.rejection), c.version, k,
                c.reason.c_str());
    std::printf("source.%zu=%s\nmin_driver.%zu=%d\n", k, SourceName(c.source), k, c.min_driver);
    std::printf("cublaslt.%zu=%s\n", k, SiblingFile(c.companion).c_str());
  }
  // cublasLtGetVersion as the cuBLAS taken sees it: looked up in its own dependency scope, it is
  // the libcublasLt that cuBLAS was bound to.
  if (void* h = b->ok() ? dlopen(b->path().c_str(), RTLD_LAZY | RTLD_NOLOAD) : nullptr) {
    if (auto lt_version = reinterpret_cast<LtGetVersionFn>(dlsym(h, "cublasLtGetVersion"))) {
      std::printf("lt_version=%zu\n", lt_version());
    }
    dlclose(h);
  }
  int native = 0;
  for (int e = 0; e < cudyn::kCublasEntryCount; ++e) {
    native += b->Resolve(e) != nullptr;
    std::printf("status.%s=%s\n", std::string(cudyn::kCublasTraits.symbols[e]).c_str(),
                cudyn::EntryStatusName(b->status(e)));
  }
  std::printf("native=%d\nmissing=%d\nmissing_result=%d\n", native, b->BindAll(),
              b->missing_result());
  // Calls that need no GPU, through the loader's bindings.
  if (auto get_version = reinterpret_cast<GetVersionFn>(b->Resolve(cudyn::kCublas_cublasGetVersion_v2))) {
    int v = -1;
    const int rc = get_version(nullptr, &v);
    std::printf("get_version_rc=%d\nget_version=%d\n", rc, v);
  }
  if (auto prop = reinterpret_cast<GetPropertyFn>(b->Resolve(cudyn::kCublas_cublasGetProperty))) {
    int major = -1;
    std::printf("property_rc=%d\n", prop(0, &major));
    std::printf("property_major=%d\n", major);
  }
  if (auto cv = reinterpret_cast<GetCudartVersionFn>(
          b->Resolve(cudyn::kCublas_cublasGetCudartVersion))) {
    std::printf("cudart_call=%zu\n", cv());
  }
  if (auto ss = reinterpret_cast<StatusStringFn>(
          b->Resolve(cudyn::kCublas_cublasGetStatusString))) {
    std::printf("status_string_15=%s\n", ss(15));
  }
  std::string last_error = b->last_error();  // one line: its candidate lines joined
  for (char& ch : last_error) ch = ch == '\n' ? '|' : ch;
  std::printf("last_error=%s\n", last_error.c_str());
  return 0;
}

struct Case {
  std::string driver;  // "" : none
  std::string clamp;
  std::string path;  // explicit
  std::vector<std::string> dirs = CublasDirs();
  // The case loads a real library that leaks by itself under LeakSanitizer: the Debian
  // libcublasLt.so.11 (11.8) allocates libstdc++'s 72 KiB exception pool that LSan reports as
  // leaked even when a plain C program only dlopens it, and a real libcublasLt refused as "not a
  // cuBLAS" is unloaded with its pool. Such a child runs with detect_leaks=0 (sanitizer builds).
  bool foreign_leak = false;
  // The loader's own search plan instead of `dirs` (the default search first), with these
  // directories in LD_LIBRARY_PATH before the driver's.
  bool plan = false;
  std::vector<std::string> ld_library_path = {};
};

std::map<std::string, std::string> RunChoose(const Case& c) {
  std::vector<std::string> args = {"--choose"};
  if (c.plan) args.push_back("--plan");
  if (!c.path.empty()) {
    args.push_back("--path");
    args.push_back(c.path);
  }
  args.insert(args.end(), c.dirs.begin(), c.dirs.end());
  return cudyn::testing::RunChild(args, {c.driver, c.clamp, c.ld_library_path, c.foreign_leak});
}

// The facts of the cuBLAS issue, written out: each real cuBLAS's own version (cublasGetProperty), looked
// up with .at() for each of kRealCublas and the toolkit's.
// version facts: checked against kRealCublas
const std::map<std::string, std::string> kVersionOf = {
    {"11.8", "111103"}, {"12.4", "120405"}, {"12.5", "120502"}, {"13.0", "130100"}};

TEST(CublasRule, AMajorNeedsADriverOfThatMajor) {
  EXPECT_EQ(cudyn::ToolkitMinDriver(cudyn::kCublasTraits, 13000), 13000);
  EXPECT_EQ(cudyn::ToolkitMinDriver(cudyn::kCublasTraits, 12000), 12000);
  EXPECT_EQ(cudyn::ToolkitMinDriver(cudyn::kCublasTraits, 11000), 11000);
  const std::vector<std::string> want = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
  EXPECT_EQ(cudyn::ToolkitSonames(cudyn::kCublasTraits), want);
}

// Which cuBLAS each real driver gets from all four offered: the newest whose major it runs.
TEST(CublasOnRealDrivers, TheNewestCublasWhoseMajorTheDriverRuns) {
  // version facts: checked against kRealDrivers
  const std::map<std::string, std::string> want = {
      {"418", ""}, {"450", "11.8"}, {"460", "11.8"}, {"470", "11.8"}, {"535", "12.5"}};
  ASSERT_EQ(sizeof(kRealDrivers) / sizeof(kRealDrivers[0]), want.size());
  for (const RealDriver& d : kRealDrivers) {
    SCOPED_TRACE(std::string("driver ") + d.major);
    Case c{DriverPath(d.major)};
    c.foreign_leak = d.cuda < 12000;  // 11.8 is loaded (taken or refused)
    auto r = RunChoose(c);
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r["driver"], std::to_string(d.cuda));
    const std::string& v = want.at(d.major);
    if (v.empty()) {
      EXPECT_EQ(r["ok"], "0");
      EXPECT_EQ(r["error"], "1");  // CUBLAS_STATUS_NOT_INITIALIZED
      EXPECT_EQ(r["missing_result"], "1");
      EXPECT_EQ(r["native"], "0");
      EXPECT_EQ(r["candidates"], "4");  // every one recorded, each too new for the driver
      for (int k = 0; k < 4; ++k) {
        EXPECT_NE(r["cand." + std::to_string(k)].find("|driver_too_old|"), std::string::npos);
      }
      EXPECT_NE(r["last_error"].find("no usable cuBLAS"), std::string::npos) << r["last_error"];
      EXPECT_EQ(r.count("get_version"), 0u);
      EXPECT_EQ(r["mapped_cublas"], "0");  // none was loaded to be refused
      continue;
    }
    ASSERT_EQ(r["ok"], "1");
    EXPECT_NE(r["path"].find("/" + v + "/"), std::string::npos) << r["path"];
    EXPECT_EQ(r["version"], kVersionOf.at(v));
    EXPECT_EQ(r["get_version"], kVersionOf.at(v));
    // Its major's runtime runs on the driver.
    EXPECT_LE(cudyn::ToolkitMinDriver(cudyn::kCublasTraits, std::atoi(r["major"].c_str()) * 1000),
              d.cuda);
    // The libcublasLt of its directory came with it.
    EXPECT_EQ(Dir(r["cublaslt"]), Dir(r["path"])) << r["cublaslt"];
    int refused = 0;
    for (int k = 0; k < std::atoi(r["candidates"].c_str()); ++k) {
      const std::string c = r["cand." + std::to_string(k)];
      if (c.find("|driver_too_old|") != std::string::npos) {
        ++refused;
        EXPECT_NE(r["reason." + std::to_string(k)].find("is too old for it"), std::string::npos);
      }
    }
    EXPECT_EQ(refused, v == "12.5" ? 1 : 3);  // 13.0 (and both libcublas.so.12 for 11.x drivers)
    // Refused by SONAME before dlopen: only the chosen cuBLAS was ever mapped.
    EXPECT_EQ(r["mapped_cublas"], "1");
  }
}

// 535 is CUDA 12.2: every 12.x cuBLAS runs there (minor-version compatibility). Of the two
// libcublas.so.12 the one the search meets first is taken; 12.4 first gives 12.4.
TEST(CublasOnRealDrivers, On535AnyTwelveRunsAndTheSearchOrderDecides) {
  const std::vector<std::string> dirs = CublasDirs();  // 13.0, 12.5, 12.4, 11.8
  auto r = RunChoose({DriverPath("535"), "", "", {dirs[0], dirs[2], dirs[1], dirs[3]}});
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["version"], kVersionOf.at("12.4"));
  // 13.0 taken explicitly on 535: taken, with a warning (the driver cannot run its runtime).
  auto e = RunChoose({DriverPath("535"), "", Cublas13()});
  ASSERT_EQ(e["ok"], "1");
  EXPECT_EQ(e["version"], kVersionOf.at("13.0"));
  EXPECT_EQ(e["candidates"], "1");
  EXPECT_EQ(e["warnings"], "1");
}

TEST(CublasOnRealDrivers, TheClampChoosesAsAnOlderDriver) {
  const std::map<std::string, std::string> want = {
      {"12.2", "12.5"}, {"12.0", "12.5"}, {"11.8", "11.8"}, {"11.0", "11.8"}, {"10.2", ""}};
  for (const auto& [clamp, v] : want) {
    SCOPED_TRACE("clamp " + clamp + " on 535");
    Case c{DriverPath("535"), clamp};
    c.foreign_leak = clamp < "12.0";  // 11.8 is loaded (taken or refused)
    auto r = RunChoose(c);
    if (v.empty()) {
      EXPECT_EQ(r["ok"], "0");
      EXPECT_EQ(r["error"], "1");
      continue;
    }
    ASSERT_EQ(r["ok"], "1");
    EXPECT_NE(r["path"].find("/" + v + "/"), std::string::npos) << r["path"];
  }
  // A clamp above the driver changes nothing.
  Case c{DriverPath("470"), "13.0"};
  c.foreign_leak = true;
  auto r = RunChoose(c);
  EXPECT_NE(r["path"].find("/11.8/"), std::string::npos) << r["path"];
}

// The measurement (`cudyn run --cublas --max-cuda-version 11.8` with cuBLAS 13.0 and 12.5
// reachable by LD_LIBRARY_PATH): libcublas.so.13 and libcublas.so.12 are candidates of the dynamic
// linker's default search, bare names dlopen would look up. Their SONAME alone refuses them under
// 11.8 (the CUDA 13 / 12 runtime inside needs a 13.0 / 12.0 driver), so neither is loaded: the
// process ends with only the cuBLAS it took, and its libcublasLt, mapped, and the candidate list
// says why each name was refused. Fails if the default search's names are dlopen'ed to be judged
// (13.0 and 12.5 with their libcublasLt then stay mapped, ~0.6 s and 550 MB each).
TEST(CublasOnRealDrivers, TheDefaultSearchsNamesAreRefusedBeforeDlopen) {
  Case c{DriverPath("535"), "11.8"};
  c.foreign_leak = true;  // 11.8 is loaded
  c.plan = true;
  c.ld_library_path = {Dir(Cublas13()), Dir(CublasFile("12.5")), Dir(CublasFile("11.8"))};
  auto r = RunChoose(c);
  ASSERT_EQ(r["ok"], "1") << r["last_error"];
  EXPECT_EQ(r["driver"], "11080");
  EXPECT_EQ(r["found_by"], "default search");
  EXPECT_NE(r["path"].find("/11.8/"), std::string::npos) << r["path"];
  EXPECT_EQ(r["version"], kVersionOf.at("11.8"));
  // /proc/self/maps: the cuBLAS taken is the only libcublas.so.* the process ever mapped, and the
  // one libcublasLt.so.* is its own (11).
  ASSERT_FALSE(r["real_path"].empty());
  EXPECT_EQ(r["mapped_cublas_files"], r["real_path"]);
  EXPECT_EQ(r["mapped_cublaslt_files"].find(','), std::string::npos) << r["mapped_cublaslt_files"];
  EXPECT_NE(r["mapped_cublaslt_files"].find("/libcublasLt.so.11"), std::string::npos)
      << r["mapped_cublaslt_files"];
  cudyn::testing::ExpectRefusedUnloadedByName(r, "libcublas.so.13", "driver_too_old", 13000,
                                              ": the CUDA 13 runtime inside");
  cudyn::testing::ExpectRefusedUnloadedByName(r, "libcublas.so.12", "driver_too_old", 12000,
                                              ": the CUDA 12 runtime inside");
}

// The measurement left open by issue 20 (tests/gpu/RESULTS.md): the real 12.4 chosen by path with
// the real 12.5's directory on LD_LIBRARY_PATH. libcublas.so.12 needs libcublasLt.so.12 by bare
// name and LD_LIBRARY_PATH is searched before its RUNPATH $ORIGIN, so the dynamic linker alone
// gives it 12.5's. The loader opens the one beside it first, by its path: the process maps 12.4's
// libcublasLt and not 12.5's, and cublasLtGetVersion through the cuBLAS answers 12.4's version.
TEST(CublasLt, AChosenCublasGetsTheLibcublasLtBesideItBeforeLdLibraryPath) {
  const std::string own = RealPathOf(Dir(CublasFile("12.4")) + "/libcublasLt.so.12");
  const std::string other = RealPathOf(Dir(CublasFile("12.5")) + "/libcublasLt.so.12");
  ASSERT_FALSE(own.empty());
  ASSERT_FALSE(other.empty());
  ASSERT_NE(own, other);
  Case c{DriverPath("535"), "", CublasFile("12.4"), {}};
  c.ld_library_path = {Dir(CublasFile("12.5"))};
  auto r = RunChoose(c);
  ASSERT_EQ(r["ok"], "1") << r["last_error"];
  EXPECT_EQ(r["version"], kVersionOf.at("12.4"));
  EXPECT_EQ(r["mapped_cublaslt_files"], own);
  EXPECT_EQ(r["lt_version"], kVersionOf.at("12.4"));
  EXPECT_EQ(RealPathOf(r["cublaslt"]), own) << r["cublaslt"];
  EXPECT_EQ(RealPathOf(r["cublaslt.0"]), own) << r["cublaslt.0"];  // the candidate's record
  EXPECT_EQ(r["warnings"], "0");
  // The same with 12.5 chosen and 12.4's directory first: each gets its own.
  Case d{DriverPath("535"), "", CublasFile("12.5"), {}};
  d.ld_library_path = {Dir(CublasFile("12.4"))};
  auto q = RunChoose(d);
  ASSERT_EQ(q["ok"], "1") << q["last_error"];
  EXPECT_EQ(q["mapped_cublaslt_files"], other);
  EXPECT_EQ(q["lt_version"], kVersionOf.at("12.5"));
}

// A file that carries cuBLAS's SONAME (libcublas.so.12) but is no cuBLAS, with a real
// libcublasLt.so.12 beside it: the Lt loaded before it is closed with it (nothing left mapped).
TEST(CublasLt, ARefusedCandidateClosesItsLibcublasLt) {
  const std::string dir = cudyn::testing::MakeTempDir("soname_only");
  const std::string fake = dir + "/libcublas.so.12";
  ASSERT_EQ(symlink(cudyn::testing::Runfile(
                        "cudyn/tests/real_cublas/libcublas_soname_not_cublas.so").c_str(),
                    fake.c_str()),
            0);
  ASSERT_EQ(symlink((Dir(CublasFile("12.5")) + "/libcublasLt.so.12").c_str(),
                    (dir + "/libcublasLt.so.12").c_str()),
            0);
  for (bool explicit_path : {true, false}) {
    SCOPED_TRACE(explicit_path ? "explicit" : "searched");
    Case c{DriverPath("535"), "", explicit_path ? fake : "", {dir}};
    c.foreign_leak = true;  // a real libcublasLt unloaded with its libstdc++ pool
    auto r = RunChoose(c);
    EXPECT_EQ(r["ok"], "0");
    EXPECT_EQ(r["candidates"], "1");
    EXPECT_EQ(r["cand.0"], fake + "|not_cublas|0");
    EXPECT_EQ(r["mapped_cublas"], "0");
    EXPECT_EQ(r["mapped_cublaslt_files"], "");
  }
}

TEST(CublasOnRealDrivers, WithoutADriverTheNewestIsTaken) {
  auto r = RunChoose({""});
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["driver"], "0");
  EXPECT_EQ(r["version"], kVersionOf.at("13.0"));
  EXPECT_EQ(r["cudart"], "13000");
}

// version_tables/cublas_api_table.tsv: symbol -> {bind_V -> "native"/"missing"}.
std::map<std::string, std::map<std::string, std::string>> Table() {
  std::ifstream in(cudyn::testing::Runfile("cudyn/version_tables/cublas_api_table.tsv"));
  std::map<std::string, std::map<std::string, std::string>> out;
  std::string line;
  std::vector<std::string> head;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, '\t')) f.push_back(cell);
    if (head.empty()) {
      head = f;
      continue;
    }
    for (size_t i = 0; i < f.size() && i < head.size(); ++i) {
      if (head[i].rfind("bind_", 0) == 0) {
        out[f[0]][head[i].substr(5)] = f[i].substr(0, f[i].find(':'));
      }
    }
  }
  return out;
}

// Every table entry on every real cuBLAS: bound natively or missing exactly as the table says,
// and the calls that need no GPU answer that cuBLAS's own facts.
TEST(CublasEntries, EveryEntryBindsOrIsMissingAsTheTableSaysOnEveryRealCublas) {
  const auto table = Table();
  ASSERT_EQ(table.size(), static_cast<size_t>(cudyn::kCublasEntryCount));
  // version facts: checked against kRealCublas (and the toolkit's)
  const std::map<std::string, int> native = {
      {"11.8", 281}, {"12.4", 503}, {"12.5", 505}, {"13.0", 517}};
  // version facts: checked against kRealCublas (and the toolkit's)
  const std::map<std::string, std::string> cudart = {
      {"11.8", "11080"}, {"12.4", "12030"}, {"12.5", "12030"}, {"13.0", "13000"}};
  ASSERT_EQ(native.size(), std::size(kRealCublas) + 1);
  ASSERT_EQ(cudart.size(), std::size(kRealCublas) + 1);
  for (const auto& [v, count] : native) {
    SCOPED_TRACE("cuBLAS " + v);
    Case c{"", "", CublasFile(v), {}};
    c.foreign_leak = v == "11.8";
    auto r = RunChoose(c);
    ASSERT_EQ(r["ok"], "1");
    EXPECT_EQ(r["native"], std::to_string(count));
    EXPECT_EQ(r["missing"], std::to_string(cudyn::kCublasEntryCount - count));
    int checked = 0;
    for (const auto& [symbol, binds] : table) {
      EXPECT_EQ(r["status." + symbol], binds.at(v)) << symbol;
      ++checked;
    }
    EXPECT_EQ(checked, cudyn::kCublasEntryCount);
    EXPECT_EQ(r["status.cublasSgemm_v2_64"], v == "11.8" ? "missing" : "native");
    EXPECT_EQ(r["missing_result"], "15");  // CUBLAS_STATUS_NOT_SUPPORTED
    EXPECT_EQ(r["get_version_rc"], "0");
    EXPECT_EQ(r["get_version"], kVersionOf.at(v));
    EXPECT_EQ(r["property_rc"], "0");
    EXPECT_EQ(r["property_major"], v.substr(0, 2));
    EXPECT_EQ(r["cudart_call"], cudart.at(v));
    EXPECT_EQ(r["cudart"], cudart.at(v));
    EXPECT_EQ(r["status_string_15"], "the requested functionality is not supported");
    EXPECT_EQ(Dir(r["cublaslt"]), Dir(CublasFile(v))) << r["cublaslt"];
    if (v == "11.8") {
      // The last entry bound by BindAll is a _64 one, missing on 11.x.
      EXPECT_NE(r["last_error"].find("_64 is not provided by"), std::string::npos) << r["last_error"];
      EXPECT_NE(r["last_error"].find("not exported by the 11.8 libcublas.so.11"), std::string::npos);
      EXPECT_NE(r["last_error"].find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos);
    }
  }
}

std::string TmpFile(const std::string& name, const std::string& bytes) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(&bytes[0], n);
  bytes.resize(in.gcount());
  return bytes;
}

TEST(CublasBadInput, ExplicitPathsThatAreNotACublas) {
  const std::string real = CublasFile("12.5");
  std::string wrong_arch = Head(real, 1 << 16);
  wrong_arch[18] = static_cast<char>(183);  // e_machine: AArch64
  wrong_arch[19] = 0;
  const struct {
    std::string path;
    const char* rejection;
  } cases[] = {
      {"/nonexistent/libcublas.so.12", "unloadable_file"},
      {TmpFile("truncated_libcublas.so.12", Head(real, 4096)), "unloadable_file"},
      {TmpFile("wrong_arch_libcublas.so.12", wrong_arch), "unloadable_file"},
      {"libcublas.so.12", "not_absolute"},
      {DriverPath("535"), "not_cublas"},
      {Dir(real) + "/libcublasLt.so.12", "not_cublas"},  // its own libcublasLt is not cuBLAS
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    Case k{DriverPath("535"), "", c.path};
    k.foreign_leak = c.path.find("libcublasLt") != std::string::npos;
    auto r = RunChoose(k);
    EXPECT_EQ(r["ok"], "0");
    EXPECT_EQ(r["error"], "1");
    EXPECT_EQ(r["candidates"], "1");  // an explicit path is all that is tried
    EXPECT_NE(r["cand.0"].find(std::string("|") + c.rejection + "|"), std::string::npos)
        << r["cand.0"];
    EXPECT_NE(r["last_error"].find(c.path), std::string::npos) << r["last_error"];
    EXPECT_FALSE(r["reason.0"].empty());
    EXPECT_EQ(r["native"], "0");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--choose") == 0) return Choose(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
