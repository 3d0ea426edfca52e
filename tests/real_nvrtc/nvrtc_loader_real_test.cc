// The NVRTC loader (loader/nvrtc.h on the toolkit template, loader/toolkit.h) against the real
// thing: the real NVRTCs (11.2, 11.8, 12.4, 12.5 from Debian, 13.0 from the toolkit) offered
// together, on every real driver, clamped and with none. For each: which NVRTC is taken and why the
// others were refused, the PTX ISA a small kernel compiles to through the loader, every table entry
// bound natively or missing as the table says, and bad explicit paths. NVRTC needs no GPU, so the
// compiles are real. Each case runs in its own process (this binary re-executed with --choose), the
// driver named by CUDYN_DRIVER_PATH.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/nvrtc.h"
#include "loader/nvrtc_rule.h"
#include "nlohmann/json.hpp"
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
struct RealNvrtc {
  const char* version;
  const char* path;  // runfiles path
};
constexpr RealNvrtc kRealNvrtcs[] = {
#include "tests/real_nvrtc/real_nvrtcs.inc"
};

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

// The toolkit @cuda was configured from (as nvrtc_program_direct is linked against).
std::string Nvrtc13() { return std::string(CUDYN_TEST_CUDA_ROOT) + "/lib64/libnvrtc.so.13"; }

// Every NVRTC's directory, newest first (12.5 before 12.4, 11.8 before 11.2).
std::vector<std::string> NvrtcDirs() {
  std::vector<std::string> dirs = {Dir(Nvrtc13())};
  for (int i = sizeof(kRealNvrtcs) / sizeof(kRealNvrtcs[0]) - 1; i >= 0; --i) {
    dirs.push_back(Dir(cudyn::testing::Runfile(kRealNvrtcs[i].path)));
  }
  return dirs;
}

std::string NvrtcFile(const std::string& version) {
  if (version == "13.0") return Nvrtc13();
  for (const RealNvrtc& n : kRealNvrtcs) {
    if (version == n.version) return cudyn::testing::Runfile(n.path);
  }
  return "";
}

std::string DriverPath(const char* major) {
  return cudyn::testing::Runfile(std::string("nvidia_drivers/") + major + "/libcuda.so.1");
}

using CreateFn = int (*)(void**, const char*, const char*, int, const char* const*,
                         const char* const*);
using CompileFn = int (*)(void*, int, const char* const*);
using SizeFn = int (*)(void*, size_t*);
using GetFn = int (*)(void*, char*);
using DestroyFn = int (*)(void**);

constexpr const char* kKernel =
    "extern \"C\" __global__ void scale(float* x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n";

// Compiles kKernel through `n`; returns the PTX's ".version X.Y" ("" on failure, with rc).
std::string CompilePtxVersion(cudyn::Toolkit& n, int* rc) {
  auto create = reinterpret_cast<CreateFn>(n.Resolve(cudyn::kNvrtc_nvrtcCreateProgram));
  auto compile = reinterpret_cast<CompileFn>(n.Resolve(cudyn::kNvrtc_nvrtcCompileProgram));
  auto size = reinterpret_cast<SizeFn>(n.Resolve(cudyn::kNvrtc_nvrtcGetPTXSize));
  auto get = reinterpret_cast<GetFn>(n.Resolve(cudyn::kNvrtc_nvrtcGetPTX));
  auto destroy = reinterpret_cast<DestroyFn>(n.Resolve(cudyn::kNvrtc_nvrtcDestroyProgram));
  if (!create || !compile || !size || !get || !destroy) {
    *rc = n.missing_result();
    return "";
  }
  void* prog = nullptr;
  if ((*rc = create(&prog, kKernel, "scale.cu", 0, nullptr, nullptr)) != 0) return "";
  if ((*rc = compile(prog, 0, nullptr)) != 0) return "";
  size_t bytes = 0;
  if ((*rc = size(prog, &bytes)) != 0) return "";
  std::string ptx(bytes, '\0');
  if ((*rc = get(prog, &ptx[0])) != 0) return "";
  destroy(&prog);
  const size_t at = ptx.find("\n.version ");
  if (at == std::string::npos) return "";
  return ptx.substr(at + 10, ptx.find('\n', at + 1) - at - 10);
}

const char* SourceName(cudyn::ToolkitSource source) {
  return cudyn::ToolkitSourceName(cudyn::kNvrtcTraits, source);
}

// --choose [--plan] [--path P] [DIR...]: opens an NVRTC for the environment's driver and prints
// key=value. --plan: the loader's own search (default search first) instead of the DIRs.
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
  auto n = cudyn::Toolkit::Open(cudyn::kNvrtcTraits, options);
  if (n == nullptr) return 2;
  std::printf("ok=%d\nerror=%d\nversion=%d\nptx_isa=%d\ndriver=%d\npath=%s\n", n->ok(),
              n->error(), n->version(), cudyn::NvrtcPtxIsa(n->version()), n->driver_version(),
              n->path().c_str());
  char real[PATH_MAX];
  std::printf("real_path=%s\nfound_by=%s\n",
              realpath(n->path().c_str(), real) != nullptr ? real : "",
              SourceName(n->found_by()));
  std::printf("builtins=%s\n", n->companion().c_str());
  std::printf("candidates=%zu\n", n->candidates().size());
  for (size_t k = 0; k < n->candidates().size(); ++k) {
    const cudyn::ToolkitCandidate& c = n->candidates()[k];
    std::printf("cand.%zu=%s|%s|%d\nreason.%zu=%s\n", k, c.path.c_str(),
                cudyn::ToolkitRejectionName(cudyn::kNvrtcTraits, c.rejection), c.version, k,
                c.reason.c_str());
    std::printf("source.%zu=%s\nmin_driver.%zu=%d\n", k, SourceName(c.source), k, c.min_driver);
  }
  int native = 0;
  for (int e = 0; e < cudyn::kNvrtcEntryCount; ++e) {
    native += n->Resolve(e) != nullptr;
    std::printf("status.%s=%s\n", std::string(cudyn::kNvrtcTraits.symbols[e]).c_str(),
                cudyn::EntryStatusName(n->status(e)));
  }
  std::printf("native=%d\nmissing=%d\nmissing_result=%d\n", native, n->BindAll(),
              n->missing_result());
  int rc = 0;
  const std::string ptx = CompilePtxVersion(*n, &rc);
  std::string last_error = n->last_error();  // one line: its candidate lines joined
  for (char& ch : last_error) ch = ch == '\n' ? '|' : ch;
  std::printf("compile_rc=%d\nptx_version=%s\nlast_error=%s\n", rc, ptx.c_str(),
              last_error.c_str());
  // After everything (open, binding, a compile): what the process ends with.
  std::printf("mapped_nvrtc=%s\n", cudyn::testing::MappedFiles("/libnvrtc.so.").c_str());
  return 0;
}

struct Case {
  std::string driver;  // "" : none
  std::string clamp;
  std::string path;  // explicit
  std::vector<std::string> dirs = NvrtcDirs();
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
  return cudyn::testing::RunChild(args, {c.driver, c.clamp, c.ld_library_path, false});
}

// "8.2" -> 82.
int IsaOf(const std::string& text) {
  const size_t dot = text.find('.');
  if (dot == std::string::npos) return -1;
  return std::atoi(text.c_str()) * 10 + std::atoi(text.c_str() + dot + 1);
}

// The facts of the NVRTC issue, written out: the ISA each real NVRTC emits (looked up with .at() for
// each of kRealNvrtcs and the toolkit's).
// version facts: checked against kRealNvrtcs
const std::map<std::string, std::string> kIsaOf = {
    {"11.2", "7.2"}, {"11.8", "7.8"}, {"12.4", "8.4"}, {"12.5", "8.5"}, {"13.0", "9.0"}};

TEST(NvrtcRule, PtxIsaFacts) {
  EXPECT_EQ(cudyn::NvrtcPtxIsa(13000), 90);
  EXPECT_EQ(cudyn::NvrtcPtxIsa(12050), 85);
  EXPECT_EQ(cudyn::NvrtcPtxIsa(12040), 84);
  EXPECT_EQ(cudyn::NvrtcPtxIsa(11080), 78);
  EXPECT_EQ(cudyn::NvrtcPtxIsa(12060), 85);  // 12.6 introduced no ISA
  EXPECT_EQ(cudyn::NvrtcMinDriver(12060), 12050);
  EXPECT_EQ(cudyn::NvrtcMinDriver(13000), 13000);
  EXPECT_EQ(cudyn::NvrtcMinDriver(11020), 11020);
  EXPECT_EQ(cudyn::NvrtcMinDriver(99990), 99990);  // newer than the table: its own release
  // 13.0's PTX on the 535 driver (CUDA 12.2) is CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
  EXPECT_GT(cudyn::NvrtcMinDriver(13000), 12020);
}

// Which NVRTC each real driver gets from all five offered: the newest whose PTX it JITs.
TEST(NvrtcOnRealDrivers, TheNewestNvrtcWhosePtxTheDriverLoads) {
  // version facts: checked against kRealDrivers
  const std::map<std::string, std::string> want = {
      {"418", ""}, {"450", ""}, {"460", "11.2"}, {"470", "11.2"}, {"535", "11.8"}};
  ASSERT_EQ(sizeof(kRealDrivers) / sizeof(kRealDrivers[0]), want.size());
  for (const RealDriver& d : kRealDrivers) {
    SCOPED_TRACE(std::string("driver ") + d.major);
    auto r = RunChoose({DriverPath(d.major)});
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r["driver"], std::to_string(d.cuda));
    const std::string& v = want.at(d.major);
    if (v.empty()) {
      EXPECT_EQ(r["ok"], "0");
      EXPECT_EQ(r["error"], "11");  // NVRTC_ERROR_INTERNAL_ERROR
      EXPECT_EQ(r["compile_rc"], "11");
      EXPECT_EQ(r["candidates"], "5");  // every one recorded, each too new
      for (int k = 0; k < 5; ++k) {
        EXPECT_NE(r["cand." + std::to_string(k)].find("|ptx_too_new|"), std::string::npos);
      }
      EXPECT_NE(r["last_error"].find("no usable NVRTC"), std::string::npos) << r["last_error"];
      continue;
    }
    ASSERT_EQ(r["ok"], "1");
    EXPECT_NE(r["path"].find("/" + v + "/"), std::string::npos) << r["path"];
    EXPECT_EQ(r["compile_rc"], "0");
    EXPECT_EQ(r["ptx_version"], kIsaOf.at(v));
    // The PTX is one the driver loads: its ISA is at most the driver's own release's.
    EXPECT_LE(IsaOf(r["ptx_version"]), cudyn::NvrtcPtxIsa(d.cuda));
    // Each newer NVRTC was refused, naming the ISA.
    int refused = 0;
    for (int k = 0; k < std::atoi(r["candidates"].c_str()); ++k) {
      const std::string c = r["cand." + std::to_string(k)];
      if (c.find("|ptx_too_new|") != std::string::npos) {
        ++refused;
        EXPECT_NE(r["reason." + std::to_string(k)].find("emits PTX ISA"), std::string::npos);
      }
    }
    EXPECT_EQ(refused, v == "11.8" ? 3 : 4);  // 13.0, 12.5, 12.4 (and 11.8 for 11.2)
  }
}

TEST(NvrtcOnRealDrivers, On535The13NvrtcEmitsPtxTheDriverCannotLoad) {
  // Taken explicitly (nothing else tried; a warning), 13.0 compiles to 9.0: above 535's 8.2.
  auto r = RunChoose({DriverPath("535"), "", Nvrtc13()});
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["ptx_version"], "9.0");
  EXPECT_GT(IsaOf(r["ptx_version"]), cudyn::NvrtcPtxIsa(12020));
  // Through the search the same driver gets 11.8, whose 7.8 it loads.
  auto s = RunChoose({DriverPath("535")});
  EXPECT_EQ(s["ptx_version"], "7.8");
  EXPECT_LE(IsaOf(s["ptx_version"]), 82);
}

TEST(NvrtcOnRealDrivers, TheClampChoosesAsAnOlderDriver) {
  const std::map<std::string, std::string> want = {
      {"12.2", "11.8"}, {"11.8", "11.8"}, {"11.4", "11.2"}, {"11.2", "11.2"}, {"11.0", ""}};
  for (const auto& [clamp, v] : want) {
    SCOPED_TRACE("clamp " + clamp + " on 535");
    auto r = RunChoose({DriverPath("535"), clamp});
    if (v.empty()) {
      EXPECT_EQ(r["ok"], "0");
      continue;
    }
    ASSERT_EQ(r["ok"], "1");
    EXPECT_NE(r["path"].find("/" + v + "/"), std::string::npos) << r["path"];
    EXPECT_EQ(r["ptx_version"], kIsaOf.at(v));
  }
  // A clamp above the driver changes nothing.
  auto r = RunChoose({DriverPath("470"), "12.5"});
  EXPECT_NE(r["path"].find("/11.2/"), std::string::npos) << r["path"];
}

// The measurement (`cudyn run --nvrtc --max-cuda-version 11.8` with NVRTC 13.0 and 12.5
// reachable by LD_LIBRARY_PATH): libnvrtc.so.13 and libnvrtc.so.12 are candidates of the dynamic
// linker's default search, bare names dlopen would look up. Their SONAME alone refuses them under
// 11.8 (12.0, the oldest libnvrtc.so.12, emits PTX 8.0), so neither is loaded: the process ends
// with only the NVRTC it took mapped, and the candidate list says why each name was refused.
// Fails if the default search's names are dlopen'ed to be judged (13.0 and 12.5 then stay mapped
// and are recorded by their files, with versions).
TEST(NvrtcOnRealDrivers, TheDefaultSearchsNamesAreRefusedBeforeDlopen) {
  Case c{DriverPath("535"), "11.8"};
  c.plan = true;
  c.ld_library_path = {Dir(Nvrtc13()), Dir(NvrtcFile("12.5")), Dir(NvrtcFile("11.8"))};
  auto r = RunChoose(c);
  ASSERT_EQ(r["ok"], "1") << r["last_error"];
  EXPECT_EQ(r["driver"], "11080");
  EXPECT_EQ(r["found_by"], "default search");
  EXPECT_NE(r["path"].find("/11.8/"), std::string::npos) << r["path"];
  EXPECT_EQ(r["ptx_version"], "7.8");
  // /proc/self/maps: the NVRTC taken is the only libnvrtc.so.* the process ever mapped.
  ASSERT_FALSE(r["real_path"].empty());
  EXPECT_EQ(r["mapped_nvrtc"], r["real_path"]);
  cudyn::testing::ExpectRefusedUnloadedByName(r, "libnvrtc.so.13", "ptx_too_new", 13000,
                                              ": emits PTX ISA 9.0)");
  cudyn::testing::ExpectRefusedUnloadedByName(r, "libnvrtc.so.12", "ptx_too_new", 12000,
                                              ": emits PTX ISA 8.0)");
  // Unclamped (535: CUDA 12.2) libnvrtc.so.13 is still refused by its name, but libnvrtc.so.12 is
  // not (12.0-12.2 would do): the 12.5 the default search finds is loaded, refused by its version
  // (PTX 8.5 > 8.2) and stays mapped beside the 11.8 taken; 13.0 is never mapped.
  c.clamp.clear();
  auto u = RunChoose(c);
  ASSERT_EQ(u["ok"], "1") << u["last_error"];
  EXPECT_NE(u["path"].find("/11.8/"), std::string::npos) << u["path"];
  EXPECT_NE(u["mapped_nvrtc"].find(","), std::string::npos) << u["mapped_nvrtc"];
  EXPECT_EQ(u["mapped_nvrtc"].find("libnvrtc.so.13"), std::string::npos) << u["mapped_nvrtc"];
}

TEST(NvrtcOnRealDrivers, WithoutADriverTheNewestIsTaken) {
  auto r = RunChoose({""});
  ASSERT_EQ(r["ok"], "1");
  EXPECT_EQ(r["driver"], "0");
  EXPECT_EQ(r["version"], "13000");
  EXPECT_EQ(r["ptx_version"], "9.0");
}

// Every table entry on every real NVRTC: bound natively or missing as the table says, and the
// compile through the loader gives that NVRTC's ISA.
TEST(NvrtcEntries, EveryEntryBindsOrIsMissingOnEveryRealNvrtc) {
  // version facts: checked against kRealNvrtcs (and the toolkit's)
  const std::map<std::string, int> native = {
      {"11.2", 15}, {"11.8", 15}, {"12.4", 19}, {"12.5", 19}, {"13.0", 24}};
  ASSERT_EQ(native.size(), std::size(kRealNvrtcs) + 1);
  for (const auto& [v, count] : native) {
    SCOPED_TRACE("NVRTC " + v);
    auto r = RunChoose({"", "", NvrtcFile(v), {}});
    ASSERT_EQ(r["ok"], "1");
    EXPECT_EQ(r["native"], std::to_string(count));
    EXPECT_EQ(r["missing"], std::to_string(cudyn::kNvrtcEntryCount - count));
    EXPECT_EQ(r["ptx_version"], kIsaOf.at(v));
    EXPECT_EQ(r["status.nvrtcCompileProgram"], "native");
    // The builtins beside it were loaded (NVRTC itself only searches by name).
    EXPECT_NE(r["builtins"].find("libnvrtc-builtins.so." + v), std::string::npos) << r["builtins"];
    EXPECT_EQ(r["status.nvrtcGetCUBIN"], "native");
    EXPECT_EQ(r["status.nvrtcSetFlowCallback"], v == "13.0" ? "native" : "missing");
    EXPECT_EQ(r["status.nvrtcGetLTOIR"], v[1] == '1' ? "missing" : "native");
    EXPECT_EQ(r["missing_result"], "3");  // NVRTC_ERROR_INVALID_INPUT
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

TEST(NvrtcBadInput, ExplicitPathsThatAreNotAnNvrtc) {
  const std::string real = NvrtcFile("12.5");
  std::string wrong_arch = Head(real, 1 << 16);
  wrong_arch[18] = static_cast<char>(183);  // e_machine: AArch64
  wrong_arch[19] = 0;
  const struct {
    std::string path;
    const char* rejection;
  } cases[] = {
      {"/nonexistent/libnvrtc.so.12", "unloadable_file"},
      {TmpFile("truncated_libnvrtc.so.12", Head(real, 4096)), "unloadable_file"},
      {TmpFile("wrong_arch_libnvrtc.so.12", wrong_arch), "unloadable_file"},
      {"libnvrtc.so.12", "not_absolute"},
      {DriverPath("535"), "not_nvrtc"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    auto r = RunChoose({DriverPath("535"), "", c.path});
    EXPECT_EQ(r["ok"], "0");
    EXPECT_EQ(r["error"], "11");
    EXPECT_EQ(r["candidates"], "1");  // an explicit path is all that is tried
    EXPECT_NE(r["cand.0"].find(std::string("|") + c.rejection + "|"), std::string::npos)
        << r["cand.0"];
    EXPECT_NE(r["last_error"].find(c.path), std::string::npos) << r["last_error"];
    EXPECT_FALSE(r["reason.0"].empty());
    EXPECT_EQ(r["compile_rc"], "11");
  }
}

// Runs `program` with `extra` environment (LD_LIBRARY_PATH and CUDYN_* replaced) and parses its
// key=value lines.
std::map<std::string, std::string> RunProgram(const std::string& program,
                                              const std::vector<std::string>& extra,
                                              std::vector<std::string> args = {},
                                              std::string* raw = nullptr, int* exit_code = nullptr) {
  cudyn::testing::ProgramRun run = cudyn::testing::RunProgram(program, args, extra);
  if (exit_code != nullptr) {
    *exit_code = run.exit_code;
  } else {
    EXPECT_EQ(run.exit_code, 0) << program << " output:\n" << run.raw;
  }
  if (raw != nullptr) *raw = run.raw;
  return run.answer;
}

// The environment under which the drop-in's own search (no test hooks) sees every real NVRTC:
// the default search through LD_LIBRARY_PATH (13.0, then 12.5 for libnvrtc.so.12, 11.8 for
// libnvrtc.so.11.2: the dynamic linker takes the first of a name) and 11.2 through $CUDA_HOME/lib.
std::vector<std::string> DropinEnvironment(const std::string& driver) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string home = std::string(tmp ? tmp : "/tmp") + "/cuda_home_11.2";
  mkdir(home.c_str(), 0755);
  symlink(Dir(NvrtcFile("11.2")).c_str(), (home + "/lib").c_str());
  std::string path = Dir(Nvrtc13()) + ":" + Dir(NvrtcFile("12.5")) + ":" + Dir(NvrtcFile("11.8"));
  if (!driver.empty()) path += ":" + Dir(driver);
  return {"LD_LIBRARY_PATH=" + path, "CUDA_HOME=" + home,
          "CUDYN_DRIVER_PATH=" + (driver.empty() ? std::string("/nonexistent/libcuda.so.1")
                                                 : driver)};
}

// A program written against the 13.0 nvrtc.h, linked with cudyn's drop-in instead of -lnvrtc,
// compiles on every real driver to PTX that driver loads (or answers NVRTC_ERROR_INTERNAL_ERROR
// where no NVRTC offered is old enough); linked with libnvrtc.so.13 directly it gets 9.0, which
// no real driver here loads.
TEST(NvrtcDropin, A13ProgramGetsPtxEachRealDriverLoads) {
  const std::string cudyn_program =
      cudyn::testing::Runfile("tests/real_nvrtc/nvrtc_program_cudyn");
  const std::string direct = cudyn::testing::Runfile("tests/real_nvrtc/nvrtc_program_direct");
  // version facts: checked against kRealDrivers
  const std::map<std::string, std::string> want = {
      {"418", ""}, {"450", ""}, {"460", "7.2"}, {"470", "7.2"}, {"535", "7.8"}};
  ASSERT_EQ(want.size(), std::size(kRealDrivers));
  for (const RealDriver& d : kRealDrivers) {
    SCOPED_TRACE(std::string("driver ") + d.major);
    auto r = RunProgram(cudyn_program, DropinEnvironment(DriverPath(d.major)));
    const std::string& isa = want.at(d.major);
    if (isa.empty()) {
      EXPECT_EQ(r["version_rc"], "11");  // NVRTC_ERROR_INTERNAL_ERROR: none the driver can use
      EXPECT_EQ(r["create_rc"], "11");
      EXPECT_EQ(r["pch_heap_rc"], "11");
      // cudyn's own text for a string-returning entry when no library was found.
      EXPECT_NE(r["error_string"].find("no release of this library that the driver runs"),
                std::string::npos)
          << r["error_string"];
    } else {
      EXPECT_EQ(r["version_rc"], "0");
      EXPECT_EQ(r["compile_rc"], "0");
      EXPECT_EQ(r["ptx_version"], isa);
      EXPECT_LE(IsaOf(r["ptx_version"]), cudyn::NvrtcPtxIsa(d.cuda));
      EXPECT_EQ(r["pch_heap_rc"], "3");  // 13.0-only on an 11.x NVRTC: NVRTC_ERROR_INVALID_INPUT
      EXPECT_EQ(r["error_string"], "NVRTC_SUCCESS");  // the real NVRTC's own text
    }
    // The real 13.0 NVRTC linked directly: PTX 9.0 whatever the driver, too new for each.
    auto direct_r = RunProgram(direct, {"LD_LIBRARY_PATH=" + Dir(DriverPath(d.major))});
    EXPECT_EQ(direct_r["nvrtc"], "13.0");
    EXPECT_EQ(direct_r["ptx_version"], "9.0");
    EXPECT_GT(IsaOf(direct_r["ptx_version"]), cudyn::NvrtcPtxIsa(d.cuda));
    EXPECT_EQ(direct_r["pch_heap_rc"], "0");
  }
  // No driver at all: the newest NVRTC (13.0), as with the direct link.
  auto none = RunProgram(cudyn_program, DropinEnvironment(""));
  EXPECT_EQ(none["nvrtc"], "13.0");
  EXPECT_EQ(none["ptx_version"], "9.0");
  EXPECT_EQ(none["pch_heap_rc"], "0");
}

// Under a clamp the drop-in behaves as on the older driver.
TEST(NvrtcDropin, UnderAClampAsOnTheOlderDriver) {
  const std::string cudyn_program =
      cudyn::testing::Runfile("tests/real_nvrtc/nvrtc_program_cudyn");
  std::vector<std::string> env = DropinEnvironment(DriverPath("535"));
  env.push_back("CUDYN_MAX_CUDA_VERSION=11.4");
  auto r = RunProgram(cudyn_program, env);
  EXPECT_EQ(r["nvrtc"], "11.2");
  EXPECT_EQ(r["ptx_version"], "7.2");
}

// `cudyn-check nvrtc` lists what the loader does for the driver in front: the same pick, each
// refused NVRTC with its reason, JSON and text.
TEST(CheckNvrtc, ListsTheCandidatesAndThePickForEachDriver) {
  const std::string check = cudyn::testing::Runfile("tools/cudyn-check");
  // version facts: checked against kRealDrivers
  const std::map<std::string, std::string> want = {
      {"418", ""}, {"450", ""}, {"460", "11.2"}, {"470", "11.2"}, {"535", "11.8"}};
  ASSERT_EQ(want.size(), std::size(kRealDrivers));
  for (const RealDriver& d : kRealDrivers) {
    SCOPED_TRACE(std::string("driver ") + d.major);
    std::string text;
    int code = -1;
    RunProgram(check, DropinEnvironment(DriverPath(d.major)),
               {"nvrtc", "--driver", DriverPath(d.major), "--json"}, &text, &code);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << text;
    EXPECT_EQ(j["command"], "nvrtc");
    EXPECT_EQ(j["driver_cuda_version"], d.cuda);
    const std::string& v = want.at(d.major);
    int too_new = 0;
    // The default search's names the driver's ISA refuses are listed under the name, unloaded
    // (version 0), with the driver they need: libnvrtc.so.13 everywhere, .12 below 12.0, .11.2
    // below 11.2. A name the rule lets through is loaded and listed by its file and version (12.5
    // for libnvrtc.so.12 on 535, 11.8 for libnvrtc.so.11.2 on 460/470: both refused then).
    // version facts: checked against kRealDrivers (want, above)
    const std::map<std::string, int> by_name_want = {
        {"418", 3}, {"450", 3}, {"460", 2}, {"470", 2}, {"535", 1}};
    int by_name = 0;
    for (const auto& c : j["candidates"]) {
      too_new += c["rejection"] == "ptx_too_new";
      if (c["rejection"] == "ptx_too_new") EXPECT_GT(c["min_driver"].get<int>(), d.cuda);
      if (c["source"] == "default search" && c["rejection"] == "ptx_too_new" &&
          c["nvrtc_version"] == 0) {
        ++by_name;
        EXPECT_EQ(c["path"].get<std::string>().find('/'), std::string::npos) << c["path"];
        EXPECT_NE(c["reason"].get<std::string>().find("not loaded"), std::string::npos);
      }
    }
    EXPECT_EQ(by_name, by_name_want.at(d.major));
    if (v.empty()) {
      EXPECT_EQ(code, 1);
      EXPECT_TRUE(j["picked"].is_null());
      // The three names, 11.2 through $CUDA_HOME by its file (and the toolkit's libnvrtc.so.13 by
      // its file where one is installed in a well-known directory).
      EXPECT_GE(too_new, 4);
    } else {
      EXPECT_EQ(code, 0);
      const int picked_version = v == "11.2" ? 11020 : 11080;
      EXPECT_EQ(j["picked"]["nvrtc_version"], picked_version);
      // The ISA it emits (no longer a field of its own: its release's, NvrtcPtxIsa), and the
      // oldest driver that JITs it, which this one is not older than.
      EXPECT_EQ(j["picked"]["release"], picked_version);
      EXPECT_EQ(cudyn::NvrtcPtxIsa(j["picked"]["release"].get<int>()), IsaOf(kIsaOf.at(v)));
      EXPECT_EQ(j["picked"]["min_driver"], cudyn::NvrtcMinDriver(picked_version));
      EXPECT_LE(j["picked"]["min_driver"].get<int>(), d.cuda);
      EXPECT_GE(too_new, 2);  // at least 13.0 and 12.5 refused
    }
  }
  std::string text;
  int code = -1;
  RunProgram(check, DropinEnvironment(DriverPath("535")), {"nvrtc", "--driver", DriverPath("535")},
             &text, &code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("refused  "), std::string::npos) << text;
  EXPECT_NE(text.find("picked: "), std::string::npos) << text;
  // The pick (11.8 by its SONAME libnvrtc.so.11.2), and the PTX it emits in its taken line.
  EXPECT_NE(text.find("libnvrtc.so.11.2 (NVRTC 11.8, CUDA 11.8 release"), std::string::npos)
      << text;
  EXPECT_NE(text.find("accepted: NVRTC 11.8 (CUDA 11.8 release: emits PTX ISA 7.8)"),
            std::string::npos)
      << text;
  // libnvrtc.so.13 of the default search, refused by its name: no version, the reason says why.
  EXPECT_NE(text.find("refused  libnvrtc.so.13 (default search): NVRTC of CUDA 13.0+ (SONAME "
                      "libnvrtc.so.13: emits PTX ISA 9.0)"),
            std::string::npos)
      << text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--choose") == 0) return Choose(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
