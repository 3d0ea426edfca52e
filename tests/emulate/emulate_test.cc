// Driver emulation (CUDYN_CLAMP_MODE=emulate; loader/emulate.cc) and the kernel-image rule it
// shares with cudyn-check (loader/kernel_rule.h).
//
// * The rule against the facts in version_tables/inputs (ptx_isa.tsv, gpu_arch.tsv), read here
//   from the files themselves: every ISA row against every driver row, every arch row.
// * Every module-load path of a fake 13.0 driver with a fake sm_90 GPU ($CUDYN_FAKE_GPU), clamped
//   to 12.2, 12.8 and 13.0, on images the real 13.0 nvcc built: the fake records which image it
//   was handed (the first bytes, cudynFakeSetCapture) or that it was not called, and the result
//   must equal cudyn-check's kernel verdict for the same (image, version, sm_90) and the
//   outcome NVIDIA documents.
// * The CUDA 11.8 nvcc matrix: images Debian's nvcc 11.8 built (PTX ISA 7.8) through every load
//   path, at every version a fake driver exists for (10.0-13.0, emulated on the fake 13.0), on
//   fake sm_80, sm_86 and sm_90 GPUs: the emulated outcome, cudyn-check's kernel verdict (the
//   library and the `cudyn-check binary --json` program) and the outcome derived from the tables
//   and NVIDIA's compatibility rules agree; a GPU older drivers do not know is not offered.
// * The environment: CUDYN_CLAMP_MODE values, and that without the mode nothing is wrapped.
// * The runtime's fatbin registration (kernel_rule::RegistrationFatbin, the runtime drop-in's
//   EmulateRegisteredFatbin): for every fatbin of both nvcc at every version and GPU, the real
//   13.0 driver's verdict on what the runtime is handed equals the outcome the facts give for the
//   emulated driver.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "loader/kernel_rule.h"
#include "nlohmann/json.hpp"
#include "tests/fake_driver/fake_driver.h"
#include "tests/fake_driver/fake_versions.h"
#include "tests/util/file_bytes.h"
#include "tools/fatbin/fatbin_reader.h"
#include "tools/layers/kernel_layer.h"
#include "tools/layers/verdict.h"
#include "version_tables/cuda_driver_api.h"

namespace cudyn {
namespace {

namespace kr = kernel_rule;
using testing::FakeDriverPath;

// Rows of a version_tables TSV: first two columns, "X.Y" each, as {major, minor}.
struct Row {
  std::string key;
  int a = 0, b = 0;  // the second column's X.Y
};
std::vector<Row> ReadTsv(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<Row> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::istringstream fields(line);
    Row r;
    std::string value;
    std::getline(fields, r.key, '\t');
    std::getline(fields, value, '\t');
    char dot;
    std::istringstream(value) >> r.a >> dot >> r.b;
    rows.push_back(r);
  }
  return rows;
}

int CudaOf(const Row& ptx_row) {  // ptx_isa.tsv: key "8.2", value "12.2" -> 12020
  return ptx_row.a * 1000 + ptx_row.b * 10;
}

kr::GpuArch Arch(const std::string& name) {
  layers::GpuArch a;
  EXPECT_TRUE(layers::ParseGpuArch(name, &a)) << name;
  return a;
}

TEST(KernelRule, PtxIsaAgainstTheTable) {
  const std::vector<Row> isa = ReadTsv("version_tables/inputs/ptx_isa.tsv");
  ASSERT_GT(isa.size(), 20u);
  const kr::GpuArch sm90 = Arch("sm_90");
  for (const Row& r : isa) {
    int ma = 0, mi = 0;
    std::sscanf(r.key.c_str(), "%d.%d", &ma, &mi);
    EXPECT_EQ(kr::MinDriverForPtxIsa(ma, mi), CudaOf(r)) << r.key;
    for (const Row& driver : isa) {
      // compute_80 PTX of ISA `r` on sm_90 under a driver of `driver`'s release.
      kr::Image img;
      img.ptx = true;
      img.arch = Arch("compute_80");
      img.isa_major = ma;
      img.isa_minor = mi;
      const kr::Choice c = kr::ChooseImage(&img, 1, CudaOf(driver), sm90);
      if (CudaOf(r) <= CudaOf(driver)) {
        EXPECT_EQ(c.error, 0) << "ISA " << r.key << " on CUDA " << CudaOf(driver);
        EXPECT_TRUE(c.jit);
        EXPECT_EQ(c.min_driver, CudaOf(r));
      } else {
        EXPECT_EQ(c.error, kr::kUnsupportedPtxVersion)
            << "ISA " << r.key << " on CUDA " << CudaOf(driver);
        EXPECT_EQ(c.min_driver, CudaOf(r));
      }
    }
    int max_ma = 0, max_mi = 0;
    ASSERT_TRUE(kr::MaxPtxIsaForDriver(CudaOf(r), &max_ma, &max_mi));
    EXPECT_EQ(kr::MinDriverForPtxIsa(max_ma, max_mi), CudaOf(r)) << r.key;
  }
}

TEST(KernelRule, GpuArchAgainstTheTables) {
  const std::vector<Row> isa = ReadTsv("version_tables/inputs/ptx_isa.tsv");
  const std::vector<Row> arch = ReadTsv("version_tables/inputs/gpu_arch.tsv");
  ASSERT_GT(arch.size(), 10u);
  std::map<std::string, int> cuda_of_isa;
  for (const Row& r : isa) cuda_of_isa[r.key] = CudaOf(r);
  for (const Row& r : arch) {
    const std::string isa_key = std::to_string(r.a) + "." + std::to_string(r.b);
    ASSERT_TRUE(cuda_of_isa.count(isa_key)) << r.key << " needs ISA " << isa_key;
    const int first = cuda_of_isa[isa_key];
    EXPECT_EQ(kr::MinDriverForGpu(Arch(r.key)), first) << r.key;
    for (const Row& driver : isa) {
      EXPECT_EQ(kr::DriverKnowsGpu(CudaOf(driver), Arch(r.key)), CudaOf(driver) >= first)
          << r.key << " on CUDA " << CudaOf(driver);
    }
  }
  // NVIDIA's release notes: Hopper from CUDA 11.8, Blackwell (sm_100) from 12.8.
  EXPECT_EQ(kr::MinDriverForGpu(Arch("sm_90")), 11080);
  EXPECT_EQ(kr::MinDriverForGpu(Arch("sm_100")), 12080);
  EXPECT_EQ(kr::MinDriverForGpu(Arch("sm_52")), 0);  // older than every row: always known
  EXPECT_EQ(kr::MinDriverForGpu(Arch("sm_990")), -1);
  EXPECT_TRUE(kr::DriverKnowsGpu(10000, Arch("sm_990")));  // unknown: nothing to emulate
}

TEST(KernelRule, ImageChoice) {
  // NVIDIA's compatibility rules (CUDA C++ Programming Guide, "Binary Compatibility",
  // "Feature Availability"): SASS runs on the same major, minor at or above; 'a' only on its
  // own arch; 'f' across its family; PTX JITs for its arch and later ones.
  EXPECT_TRUE(kr::SassRunsOn(Arch("sm_80"), Arch("sm_86")));
  EXPECT_FALSE(kr::SassRunsOn(Arch("sm_86"), Arch("sm_80")));
  EXPECT_FALSE(kr::SassRunsOn(Arch("sm_90"), Arch("sm_100")));
  EXPECT_TRUE(kr::SassRunsOn(Arch("sm_90a"), Arch("sm_90")));
  EXPECT_FALSE(kr::SassRunsOn(Arch("sm_100a"), Arch("sm_103")));
  EXPECT_TRUE(kr::SassRunsOn(Arch("sm_100f"), Arch("sm_103")));
  EXPECT_TRUE(kr::PtxTargets(Arch("compute_80"), Arch("sm_90")));
  EXPECT_FALSE(kr::PtxTargets(Arch("compute_90"), Arch("sm_80")));
  EXPECT_FALSE(kr::PtxTargets(Arch("compute_90a"), Arch("sm_100")));

  auto sass = [](const char* a) {
    kr::Image i;
    i.arch = Arch(a);
    return i;
  };
  auto ptx = [](const char* a, int ma, int mi) {
    kr::Image i;
    i.ptx = true;
    i.arch = Arch(a);
    i.isa_major = ma;
    i.isa_minor = mi;
    return i;
  };
  const kr::GpuArch sm86 = Arch("sm_86");
  {  // SASS before PTX; of two SASS, the closer one
    const kr::Image imgs[] = {ptx("compute_86", 7, 1), sass("sm_80"), sass("sm_86")};
    const kr::Choice c = kr::ChooseImage(imgs, 3, 13000, sm86);
    EXPECT_EQ(c.error, 0);
    EXPECT_EQ(c.index, 2);
    EXPECT_FALSE(c.jit);
  }
  {  // of two usable PTX, the highest target
    const kr::Image imgs[] = {ptx("compute_75", 7, 0), ptx("compute_80", 7, 0),
                              ptx("compute_90", 7, 8)};
    const kr::Choice c = kr::ChooseImage(imgs, 3, 12000, sm86);
    EXPECT_EQ(c.index, 1);
    EXPECT_TRUE(c.jit);
  }
  {  // nothing for the arch: 209 even with too-new PTX for another arch
    const kr::Image imgs[] = {sass("sm_90"), ptx("compute_90", 9, 0)};
    EXPECT_EQ(kr::ChooseImage(imgs, 2, 12020, sm86).error, kr::kNoBinaryForGpu);
  }
  EXPECT_EQ(kr::ChooseImage(nullptr, 0, 13000, sm86).error, kr::kNoBinaryForGpu);
}

TEST(KernelRule, ParsesImages) {
  const char ptx[] = "//\n.version 9.0\n.target sm_80\n.address_size 64\n";
  int ma = 0, mi = 0;
  ASSERT_TRUE(kr::ParsePtxVersion(ptx, sizeof ptx - 1, &ma, &mi));
  EXPECT_EQ(ma * 10 + mi, 90);
  kr::GpuArch t;
  ASSERT_TRUE(kr::ParsePtxTarget(ptx, sizeof ptx - 1, &t));
  EXPECT_EQ(t.number(), 80);
  EXPECT_FALSE(kr::ParsePtxVersion(ptx, 8, &ma, &mi));  // bounded: ".version" not inside
  EXPECT_FALSE(kr::ParsePtxVersion("x.version 9.0", 13, &ma, &mi));
}

// ---- the environment -----------------------------------------------------------------------

TEST(ClampMode, Parse) {
  EXPECT_EQ(ParseClampMode("emulate"), true);
  EXPECT_EQ(ParseClampMode("EMULATE"), true);
  EXPECT_EQ(ParseClampMode("versions"), false);
  EXPECT_EQ(ParseClampMode(""), std::nullopt);
  EXPECT_EQ(ParseClampMode("emulated"), std::nullopt);
  EXPECT_EQ(ParseClampMode("1"), std::nullopt);
}

std::unique_ptr<Driver> OpenFromEnvironment(const char* mode, const char* clamp) {
  if (mode) setenv("CUDYN_CLAMP_MODE", mode, 1);
  if (clamp) setenv("CUDYN_MAX_CUDA_VERSION", clamp, 1);
  DriverOptions o;
  o.driver_path = FakeDriverPath(13000);
  o.use_environment = true;
  auto d = Driver::Open(o);
  unsetenv("CUDYN_CLAMP_MODE");
  unsetenv("CUDYN_MAX_CUDA_VERSION");
  return d;
}

bool HasWarning(const Driver& d, const std::string& part) {
  for (const auto& w : d.warnings()) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(ClampMode, Environment) {
  auto d = OpenFromEnvironment("emulate", "12.2");
  ASSERT_TRUE(d && d->ok());
  EXPECT_TRUE(d->emulating());
  d = OpenFromEnvironment("bogus", "12.2");
  ASSERT_TRUE(d && d->ok());
  EXPECT_FALSE(d->emulating());
  EXPECT_TRUE(HasWarning(*d, "CUDYN_CLAMP_MODE='bogus' is not one of versions/emulate"));
  EXPECT_EQ(d->effective_version(), 12020);  // the clamp itself still holds
  d = OpenFromEnvironment("versions", "12.2");
  EXPECT_FALSE(d->emulating());
  EXPECT_TRUE(d->warnings().empty());
  d = OpenFromEnvironment("emulate", nullptr);  // no clamp: nothing to emulate
  EXPECT_FALSE(d->emulating());
  // The option wins over the environment.
  setenv("CUDYN_CLAMP_MODE", "emulate", 1);
  DriverOptions o;
  o.driver_path = FakeDriverPath(13000);
  o.use_environment = true;
  o.max_cuda_version = 12020;
  o.emulate_driver = false;
  d = Driver::Open(o);
  unsetenv("CUDYN_CLAMP_MODE");
  EXPECT_FALSE(d->emulating());
}

// ---- module loads on a fake driver ------------------------------------------------------------

std::string ReadAll(const std::string& path) {
  std::string bytes;
  EXPECT_TRUE(cudyn::testing::ReadFileBytes(path, &bytes)) << path;
  return bytes;
}

std::string Image(const std::string& name) { return "tests/emulate/nvcc/" + name; }

class Fake {
 public:
  Fake(int clamp, bool emulate, const char* gpu = "90") {
    setenv("CUDYN_FAKE_GPU", gpu, 1);
    DriverOptions o;
    o.driver_path = FakeDriverPath(13000);
    o.max_cuda_version = clamp;
    o.emulate_driver = emulate;
    driver = Driver::Open(o);
    EXPECT_TRUE(driver && driver->ok());
    EXPECT_EQ(cudynFakeBind(driver->handle(), &api), 1);
    api.reset();
  }
  ~Fake() { unsetenv("CUDYN_FAKE_GPU"); }
  template <class Fn>
  Fn Get(int index) {
    return reinterpret_cast<Fn>(driver->Resolve(index));
  }
  // The last recorded call of `symbol`, or nullptr.
  const CudynFakeCall* Last(const char* symbol) const {
    const CudynFakeCall* found = nullptr;
    for (int i = 0; i < api.call_count(); ++i) {
      const CudynFakeCall* c = api.call(i);
      if (c != nullptr && std::strcmp(c->symbol, symbol) == 0) found = c;
    }
    return found;
  }
  std::unique_ptr<Driver> driver;
  CudynFakeApi api;
};

// What a recorded capture shows: "sm_90", "compute_80" (a fatbin with exactly that one entry),
// "fatbin x N" (N entries: unchanged), "ptx", "cubin", or "?".
std::string Handed(const CudynFakeCall* c) {
  if (c == nullptr) return "not called";
  const unsigned char* p = c->captured;
  if (c->captured_size < 16 + 0x40) return "?";
  uint32_t magic;
  std::memcpy(&magic, p, 4);
  if (std::memcmp(p, "\x7f" "ELF", 4) == 0) return "cubin";
  if (magic != kr::kFatbinMagic) {
    return std::string(reinterpret_cast<const char*>(p), 2) == "//" ? "ptx" : "?";
  }
  uint64_t header = 0, payload = 0;
  kr::DecodeFatbinHeader(p, c->captured_size, &header, &payload);
  kr::FatbinEntryHeader e;
  if (!kr::DecodeFatbinEntryHeader(p + header, kr::kFatbinEntryHeaderMin, &e)) {
    // The entry's payload lies beyond the capture: only its header was checked.
    uint32_t hs;
    uint64_t ps;
    std::memcpy(&hs, p + header + 4, 4);
    std::memcpy(&ps, p + header + 8, 8);
    e.kind = p[header];
    e.header_size = hs;
    e.payload_size = ps;
    std::memcpy(&e.arch, p + header + 0x1c, 4);
  }
  if (payload != e.header_size + e.payload_size) return "fatbin, several entries";
  return kr::ArchFromNumber(e.arch, '\0').Name(e.kind == 1 ? "compute_" : "sm_");
}

// cudyn-check's kernel verdict for a fatbin file on `gpu` (sm_90 unless given) under `version`:
// "sm_90", "compute_80" or the error number.
std::string Verdict(const std::string& file, int version, const char* gpu = "sm_90") {
  const fatbin::FatbinResult r = fatbin::ReadFatbins(file);
  EXPECT_TRUE(r.ok) << file << ": " << r.error;
  layers::Target t;
  t.cuda_version = version;
  t.has_gpu = true;
  t.gpu = Arch(gpu);
  const layers::LayerVerdict v = layers::JudgeKernels(layers::AnalyzeKernels(r.info), t);
  if (v.status == layers::Status::kFails) return std::to_string(v.cuda_error);
  return v.image.substr(0, v.image.find(' '));
}

// What NVIDIA documents for these images on sm_90: 13.0's PTX is ISA 9.0, which a driver
// before 13.0 cannot JIT (222); sm_100 SASS never runs on sm_90 (209).
std::string Documented(const std::string& image, int version) {
  if (image == "sm90.fatbin" || image == "both.fatbin") return "sm_90";
  if (image == "sm100.fatbin") return "209";
  return version >= 13000 ? "compute_80" : "222";
}

struct LoadPath {
  const char* name;
  const char* handed_to;  // the fake's function that gets the image
  int arg;                // its argument that is the image
  bool by_file;
};

const LoadPath kPaths[] = {
    {"cuModuleLoadData", "cuModuleLoadData", 1, false},
    {"cuModuleLoadDataEx", "cuModuleLoadDataEx", 1, false},
    {"cuModuleLoadFatBinary", "cuModuleLoadFatBinary", 1, false},
    {"cuLibraryLoadData", "cuLibraryLoadData", 1, false},
    {"cuLinkAddData", "cuLinkAddData", 2, false},
    {"cuLinkAddData_v2", "cuLinkAddData_v2", 2, false},
    {"cuModuleLoad", "cuModuleLoadData", 1, true},
    {"cuLibraryLoadFromFile", "cuLibraryLoadData", 1, true},
    {"cuLinkAddFile", "cuLinkAddData", 2, true},
    {"cuLinkAddFile_v2", "cuLinkAddData_v2", 2, true},
};

int Load(Fake& f, const LoadPath& p, const std::string& file_name, std::string* bytes) {
  // The path in a buffer the fake's 256-byte capture can read whole.
  static char path[1024];
  std::memset(path, 0, sizeof path);
  std::strncpy(path, file_name.c_str(), sizeof path - 1);
  struct {
    const char* c_str() const { return path; }
    size_t find(const char* s) const { return std::string(path).find(s); }
  } file;
  CUmodule mod = nullptr;
  CUlibrary lib = nullptr;
  CUlinkState link = reinterpret_cast<CUlinkState>(0x1);
  const std::string n = p.name;
  if (n == "cuModuleLoadData")
    return f.Get<CUresult (*)(CUmodule*, const void*)>(kEntry_cuModuleLoadData)(&mod,
                                                                                bytes->data());
  if (n == "cuModuleLoadDataEx")
    return f.Get<CUresult (*)(CUmodule*, const void*, unsigned, CUjit_option*, void**)>(
        kEntry_cuModuleLoadDataEx)(&mod, bytes->data(), 0, nullptr, nullptr);
  if (n == "cuModuleLoadFatBinary")
    return f.Get<CUresult (*)(CUmodule*, const void*)>(kEntry_cuModuleLoadFatBinary)(
        &mod, bytes->data());
  if (n == "cuLibraryLoadData")
    return f.Get<CUresult (*)(CUlibrary*, const void*, CUjit_option*, void**, unsigned,
                              CUlibraryOption*, void**, unsigned)>(kEntry_cuLibraryLoadData)(
        &lib, bytes->data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  using AddData = CUresult (*)(CUlinkState, CUjitInputType, void*, size_t, const char*, unsigned,
                               CUjit_option*, void**);
  using AddFile = CUresult (*)(CUlinkState, CUjitInputType, const char*, unsigned, CUjit_option*,
                               void**);
  const CUjitInputType type = file.find(".ptx") != std::string::npos ? CU_JIT_INPUT_PTX
                              : file.find(".cubin") != std::string::npos
                                  ? CU_JIT_INPUT_CUBIN
                                  : CU_JIT_INPUT_FATBINARY;
  if (n == "cuLinkAddData" || n == "cuLinkAddData_v2")
    return f.Get<AddData>(n == "cuLinkAddData" ? kEntry_cuLinkAddData : kEntry_cuLinkAddData_v2)(
        link, type, &(*bytes)[0], bytes->size(), "image", 0, nullptr, nullptr);
  if (n == "cuModuleLoad")
    return f.Get<CUresult (*)(CUmodule*, const char*)>(kEntry_cuModuleLoad)(&mod, file.c_str());
  if (n == "cuLibraryLoadFromFile")
    return f.Get<CUresult (*)(CUlibrary*, const char*, CUjit_option*, void**, unsigned,
                              CUlibraryOption*, void**, unsigned)>(kEntry_cuLibraryLoadFromFile)(
        &lib, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (n == "cuLinkAddFile" || n == "cuLinkAddFile_v2")
    return f.Get<AddFile>(n == "cuLinkAddFile" ? kEntry_cuLinkAddFile : kEntry_cuLinkAddFile_v2)(
        link, type, file.c_str(), 0, nullptr, nullptr);
  ADD_FAILURE() << n;
  return -1;
}

void Capture(Fake& f) {
  for (const LoadPath& p : kPaths) {
    ASSERT_EQ(f.api.set_capture(p.handed_to, p.arg, CUDYN_FAKE_MAX_CAPTURE), 0) << p.handed_to;
    if (p.by_file) {
      ASSERT_EQ(f.api.set_capture(p.name, p.arg, CUDYN_FAKE_MAX_CAPTURE), 0);
    }
  }
}

TEST(Emulation, FatbinsOnEveryLoadPathAgreeWithTheVerdict) {
  for (int version : {12020, 12080, 13000}) {
    for (const char* image : {"sm90.fatbin", "ptx80.fatbin", "sm100.fatbin", "both.fatbin"}) {
      const std::string file = Image(image);
      const std::string verdict = Verdict(file, version);
      // Agreement by construction (one function), and with what NVIDIA documents.
      EXPECT_EQ(verdict, Documented(image, version)) << image << " at " << version;
      for (const LoadPath& p : kPaths) {
        SCOPED_TRACE(std::string(image) + " at " + std::to_string(version) + " via " + p.name);
        Fake f(version, true);
        ASSERT_TRUE(f.driver->emulating());
        Capture(f);
        std::string bytes = ReadAll(file);
        const int rc = Load(f, p, file, &bytes);
        const CudynFakeCall* call = f.Last(p.handed_to);
        if (verdict == "209" || verdict == "222") {
          EXPECT_EQ(std::to_string(rc), verdict);
          EXPECT_EQ(Handed(call), "not called");
          EXPECT_EQ(f.Last(p.name), nullptr);
        } else {
          EXPECT_EQ(rc, CUDA_SUCCESS);
          EXPECT_EQ(Handed(call), verdict);
        }
      }
    }
  }
}

TEST(Emulation, BarePtxAndCubins) {
  struct Case {
    const char* image;
    int version;
    int rc;
    const char* handed;
  } cases[] = {
      {"ptx80.ptx", 12020, 222, "not called"}, {"ptx80.ptx", 12080, 222, "not called"},
      {"ptx80.ptx", 13000, 0, "ptx"},          {"sm90.cubin", 12020, 0, "cubin"},
      {"sm100.cubin", 12080, 209, "not called"}, {"sm100.cubin", 13000, 209, "not called"},
  };
  for (const Case& c : cases) {
    for (const LoadPath& p : kPaths) {
      if (std::strcmp(p.name, "cuModuleLoadFatBinary") == 0) continue;
      SCOPED_TRACE(std::string(c.image) + " at " + std::to_string(c.version) + " via " + p.name);
      Fake f(c.version, true);
      Capture(f);
      std::string bytes = ReadAll(Image(c.image));
      bytes.push_back('\0');  // PTX handed as data is NUL-terminated text
      EXPECT_EQ(Load(f, p, Image(c.image), &bytes), c.rc);
      // A whole file that is one image is handed on as the file itself.
      const char* to = p.by_file ? p.name : p.handed_to;
      const CudynFakeCall* call = f.Last(to);
      if (std::string(c.handed) == "not called" || !p.by_file) {
        EXPECT_EQ(Handed(call), c.handed);
      } else {
        ASSERT_NE(call, nullptr);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(call->captured)), Image(c.image));
      }
    }
  }
}

TEST(Emulation, OffChangesNothing) {
  for (bool clamp : {false, true}) {
    setenv("CUDYN_FAKE_GPU", "90", 1);
    DriverOptions o;
    o.driver_path = FakeDriverPath(13000);
    if (clamp) o.max_cuda_version = 12020;
    o.emulate_driver = clamp ? std::optional<bool>(false) : std::optional<bool>(true);
    auto d = Driver::Open(o);
    ASSERT_TRUE(d && d->ok());
    EXPECT_FALSE(d->emulating());
    for (int index : {kEntry_cuModuleLoadData, kEntry_cuLinkAddData_v2, kEntry_cuInit,
                      kEntry_cuDeviceGetCount, kEntry_cuLibraryLoadFromFile}) {
      // The slot holds the driver's own function: the call stays one jmp into the driver.
      EXPECT_EQ(d->Resolve(index), dlsym(d->handle(), EntrySymbol(index).data()))
          << EntrySymbol(index);
    }
    CudynFakeApi api;
    ASSERT_EQ(cudynFakeBind(d->handle(), &api), 1);
    api.reset();
    api.set_capture("cuModuleLoadData", 1, CUDYN_FAKE_MAX_CAPTURE);
    std::string bytes = ReadAll(Image("sm100.fatbin"));
    CUmodule mod = nullptr;
    EXPECT_EQ(reinterpret_cast<CUresult (*)(CUmodule*, const void*)>(
                  d->Resolve(kEntry_cuModuleLoadData))(&mod, bytes.data()),
              CUDA_SUCCESS);
    ASSERT_EQ(api.call_count(), 1);
    EXPECT_EQ(api.call(0)->args[1], reinterpret_cast<uintptr_t>(bytes.data()));
    unsetenv("CUDYN_FAKE_GPU");
  }
}

TEST(Emulation, WithEmulationTheSlotsHoldWrappers) {
  Fake f(12020, true);
  for (int index : {kEntry_cuModuleLoad, kEntry_cuModuleLoadData, kEntry_cuModuleLoadDataEx,
                    kEntry_cuModuleLoadFatBinary, kEntry_cuLibraryLoadData,
                    kEntry_cuLibraryLoadFromFile, kEntry_cuLinkAddData, kEntry_cuLinkAddData_v2,
                    kEntry_cuLinkAddFile, kEntry_cuLinkAddFile_v2, kEntry_cuInit,
                    kEntry_cuDeviceGetCount}) {
    EXPECT_NE(f.driver->Resolve(index), dlsym(f.driver->handle(), EntrySymbol(index).data()))
        << EntrySymbol(index);
    EXPECT_EQ(f.driver->status(index), EntryStatus::kNative) << EntrySymbol(index);
    // driver_symbol names the driver's function the wrapper calls, not the wrapper.
    EXPECT_EQ(f.driver->driver_symbol(index), std::string(EntrySymbol(index)));
  }
  // Entries emulation does not touch stay the driver's own.
  EXPECT_EQ(f.driver->Resolve(kEntry_cuModuleUnload),
            dlsym(f.driver->handle(), "cuModuleUnload"));
}

TEST(Emulation, GpuTheEmulatedDriverDoesNotKnow) {
  struct Case {
    const char* gpu;
    int version;
    bool known;
  } cases[] = {
      {"100", 12020, false}, {"100", 12080, true}, {"90", 11040, false},
      {"90", 11080, true},   {"90", 12020, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string("sm_") + c.gpu + " at " + std::to_string(c.version));
    Fake f(c.version, true, c.gpu);
    EXPECT_EQ(kr::DriverKnowsGpu(c.version, kr::ArchFromNumber(std::atoi(c.gpu), '\0')),
              c.known);
    auto init = f.Get<CUresult (*)(unsigned)>(kEntry_cuInit);
    auto count = f.Get<CUresult (*)(int*)>(kEntry_cuDeviceGetCount);
    int n = -7;
    if (c.known) {
      EXPECT_EQ(init(0), CUDA_SUCCESS);
      EXPECT_EQ(count(&n), CUDA_SUCCESS);
      EXPECT_EQ(n, 1);
    } else {
      // As a real driver with no GPU it supports: cuInit 100, then cuDeviceGetCount 3 with the
      // count untouched (measured on the real 535 driver without a GPU).
      EXPECT_EQ(init(0), CUDA_ERROR_NO_DEVICE);
      EXPECT_EQ(count(&n), CUDA_ERROR_NOT_INITIALIZED);
      EXPECT_EQ(n, -7);
    }
  }
}


// ---- the CUDA 11.8 nvcc matrix ---------------------------------------------------------------
// The same kernel built by Debian's CUDA 11.8 nvcc (nvcc_images.sh) through every load path,
// at every version a fake driver exists for (each emulated on the fake 13.0 driver by a clamp),
// on fake sm_80, sm_86 and sm_90 GPUs. The expectation is derived here from the facts alone:
// the tables in version_tables/inputs (read from the files) and NVIDIA's compatibility rules
// (CUDA C++ Programming Guide, "Binary Compatibility": SASS sm_AB runs on sm_XY when A == X and
// B <= Y; PTX compute_AB JITs for sm_XY when AB <= XY, on a driver whose release introduced
// that PTX ISA or a later one; a driver older than a GPU's first release does not offer it).

struct Facts {
  std::map<std::string, int> cuda_of_isa;  // "7.8" -> 11080
  std::map<int, std::string> isa_of_cuda;  // 11080 -> "7.8" (the ISA a release introduced)
  std::map<int, int> first_cuda_of_gpu;    // 90 -> 11080
};

const Facts& TableFacts() {
  static const Facts facts = [] {
    Facts f;
    for (const Row& r : ReadTsv("version_tables/inputs/ptx_isa.tsv")) {
      f.cuda_of_isa[r.key] = CudaOf(r);
      f.isa_of_cuda[CudaOf(r)] = r.key;
    }
    for (const Row& r : ReadTsv("version_tables/inputs/gpu_arch.tsv")) {
      if (r.key.rfind("sm_", 0) != 0) continue;
      const std::string isa = std::to_string(r.a) + "." + std::to_string(r.b);
      f.first_cuda_of_gpu[std::atoi(r.key.c_str() + 3)] = f.cuda_of_isa.at(isa);
    }
    return f;
  }();
  return facts;
}

// What an image holds, as nvcc_images.sh asked nvcc 11.8 for it.
struct Built {
  bool ptx;
  int arch;  // 80 for sm_80 / compute_80
};
struct Image118 {
  const char* name;
  std::vector<Built> entries;
  bool bare;  // a bare cubin or PTX file, not a fatbin
};
const std::vector<Image118>& Images118() {
  static const std::vector<Image118> images = {
      {"sm80.fatbin", {{false, 80}}, false},
      {"sm86.fatbin", {{false, 86}}, false},
      {"sm90.fatbin", {{false, 90}}, false},
      {"ptx80.fatbin", {{true, 80}}, false},
      {"both.fatbin", {{false, 80}, {true, 80}}, false},
      {"ptx80.ptx", {{true, 80}}, true},
      {"sm80.cubin", {{false, 80}}, true},
      {"sm90.cubin", {{false, 90}}, true},
  };
  return images;
}

std::string Image118Path(const std::string& name) { return "tests/emulate/nvcc118/" + name; }

// nvcc X.Y emits the PTX ISA its release introduced (ptx_isa.tsv): 7.8 for 11.8.
std::string Nvcc118Isa() { return TableFacts().isa_of_cuda.at(11080); }

bool GpuKnown(int version, int gpu) {
  const auto& first = TableFacts().first_cuda_of_gpu;
  return version >= first.at(gpu);
}

// The documented outcome of running `image` on sm_<gpu> under a CUDA `version` driver, as the
// kernel image it runs ("sm_80", "compute_80") or the error: "100" when that driver does not
// offer the GPU at all (cuInit's answer; nothing is loaded), else "209" or "222" from the load.
std::string Expected118(const Image118& image, int version, int gpu) {
  if (!GpuKnown(version, gpu)) return "100";
  int best_sass = -1, best_ptx = -1;
  bool too_new = false;
  const int isa_cuda = TableFacts().cuda_of_isa.at(Nvcc118Isa());
  for (const Built& b : image.entries) {
    if (!b.ptx && b.arch / 10 == gpu / 10 && b.arch % 10 <= gpu % 10) {
      best_sass = std::max(best_sass, b.arch);
    } else if (b.ptx && b.arch <= gpu) {
      if (isa_cuda <= version) {
        best_ptx = std::max(best_ptx, b.arch);
      } else {
        too_new = true;
      }
    }
  }
  if (best_sass >= 0) return "sm_" + std::to_string(best_sass);
  if (best_ptx >= 0) return "compute_" + std::to_string(best_ptx);
  return too_new ? "222" : "209";
}

// The first CUDA release with cuLibraryLoadData / cuLibraryLoadFromFile (CUDA 12.0's "Library
// Management" API): an older driver has no such entry.
constexpr int kLibraryApiFrom = 12000;
bool IsLibraryPath(const LoadPath& p) { return std::strncmp(p.name, "cuLibrary", 9) == 0; }

TEST(Nvcc118, ImagesAreWhatNvcc118Emits) {
  // PTX ISA 7.8 (read from the images): the bare PTX's .version and the fatbins' PTX entries.
  const std::string ptx = ReadAll(Image118Path("ptx80.ptx"));
  int ma = 0, mi = 0;
  ASSERT_TRUE(kr::ParsePtxVersion(ptx, &ma, &mi));
  EXPECT_EQ(std::to_string(ma) + "." + std::to_string(mi), Nvcc118Isa());
  EXPECT_EQ(Nvcc118Isa(), "7.8");
  for (const Image118& image : Images118()) {
    if (image.bare) continue;
    const fatbin::FatbinResult r = fatbin::ReadFatbins(Image118Path(image.name));
    ASSERT_TRUE(r.ok) << image.name << ": " << r.error;
    const layers::KernelLayer k = layers::AnalyzeKernels(r.info);
    ASSERT_EQ(k.images.size(), image.entries.size()) << image.name;
    for (const layers::KernelImage& img : k.images) {
      bool found = false;
      for (const Built& b : image.entries) {
        found = found || (b.ptx == img.ptx && b.arch == img.arch.number());
      }
      EXPECT_TRUE(found) << image.name << ": " << img.arch.Name(img.ptx ? "compute_" : "sm_");
      if (img.ptx) {
        EXPECT_EQ(std::to_string(img.isa_major) + "." + std::to_string(img.isa_minor),
                  Nvcc118Isa())
            << image.name;
      }
    }
  }
  kr::GpuArch arch;
  const std::string sm80 = ReadAll(Image118Path("sm80.cubin"));
  ASSERT_TRUE(kr::CubinArch(reinterpret_cast<const uint8_t*>(sm80.data()), sm80.size(), &arch));
  EXPECT_EQ(arch.number(), 80);
  const std::string sm90 = ReadAll(Image118Path("sm90.cubin"));
  ASSERT_TRUE(kr::CubinArch(reinterpret_cast<const uint8_t*>(sm90.data()), sm90.size(), &arch));
  EXPECT_EQ(arch.number(), 90);
}

TEST(Nvcc118, EveryLoadPathVersionAndGpuAgreesWithTheVerdictAndTheFacts) {
  int loads = 0, verdicts = 0, hidden_gpu_rows = 0, missing_entries = 0;
  for (int version : testing::kFakeCudaVersions) {
    for (int gpu : {80, 86, 90}) {
      const std::string gpu_text = std::to_string(gpu);
      const std::string sm = "sm_" + gpu_text;
      // One emulated driver per (version, GPU); its call log is reset before each load.
      Fake f(version, true, gpu_text.c_str());
      ASSERT_TRUE(f.driver->emulating());
      // Does the emulated driver offer the GPU? A program asks first (cuInit); when it answers
      // 100 (and cuDeviceGetCount 3, the count untouched, as a real driver without a GPU it
      // drives), that is the program's outcome: it loads nothing.
      int n = -7;
      const int init = f.Get<CUresult (*)(unsigned)>(kEntry_cuInit)(0);
      const int count = f.Get<CUresult (*)(int*)>(kEntry_cuDeviceGetCount)(&n);
      const bool offered = init == CUDA_SUCCESS;
      {
        SCOPED_TRACE(sm + " at " + std::to_string(version));
        EXPECT_EQ(offered, GpuKnown(version, gpu));  // as the table says
        if (offered) {
          EXPECT_EQ(count, CUDA_SUCCESS);
          EXPECT_EQ(n, 1);
        } else {
          ++hidden_gpu_rows;
          EXPECT_EQ(init, CUDA_ERROR_NO_DEVICE);
          EXPECT_EQ(count, CUDA_ERROR_NOT_INITIALIZED);
          EXPECT_EQ(n, -7);
        }
      }
      for (const Image118& image : Images118()) {
        const std::string file = Image118Path(image.name);
        const std::string expected = Expected118(image, version, gpu);
        const std::string where = std::string(image.name) + " on " + sm + " at " +
                                  std::to_string(version);
        if (!image.bare) {
          // cudyn-check's kernel verdict (the library code the CLI calls) equals the facts.
          EXPECT_EQ(Verdict(file, version, sm.c_str()), expected) << where;
          ++verdicts;
        }
        if (!offered) {
          // The emulated run's outcome is cuInit's: the same as the verdict's and the facts'.
          EXPECT_EQ(std::to_string(init), expected) << where;
          continue;
        }
        const bool error = expected == "209" || expected == "222";
        // A bare file that runs is handed on whole: its kind, not an entry.
        const std::string handed =
            !image.bare || error ? expected : (image.entries[0].ptx ? "ptx" : "cubin");
        for (const LoadPath& p : kPaths) {
          if (image.bare && std::strcmp(p.name, "cuModuleLoadFatBinary") == 0) continue;
          SCOPED_TRACE(where + " via " + p.name);
          if (IsLibraryPath(p) && version < kLibraryApiFrom) {
            // A CUDA 11.x driver has no cuLibrary* entry: nothing to load through.
            EXPECT_EQ(f.driver->Resolve(p.by_file ? kEntry_cuLibraryLoadFromFile
                                                  : kEntry_cuLibraryLoadData),
                      nullptr);
            ++missing_entries;
            continue;
          }
          f.api.reset();
          Capture(f);
          std::string bytes = ReadAll(file);
          if (image.bare) bytes.push_back('\0');  // PTX handed as data is NUL-terminated text
          const int rc = Load(f, p, file, &bytes);
          ++loads;
          if (error) {
            EXPECT_EQ(std::to_string(rc), expected);
            EXPECT_EQ(Handed(f.Last(p.handed_to)), "not called");
            EXPECT_EQ(f.Last(p.name), nullptr);
          } else if (image.bare && p.by_file) {
            EXPECT_EQ(rc, CUDA_SUCCESS);
            const CudynFakeCall* call = f.Last(p.name);
            ASSERT_NE(call, nullptr);
            EXPECT_EQ(std::string(reinterpret_cast<const char*>(call->captured)), file);
          } else {
            EXPECT_EQ(rc, CUDA_SUCCESS);
            EXPECT_EQ(Handed(f.Last(p.handed_to)), handed);
          }
        }
      }
    }
  }
  // 12 versions x 3 GPUs, of which the rows whose GPU the version offers: 8 images, 5 fatbins
  // through 10 paths and 3 bare files through 9, the two cuLibrary* paths only from 12.0.
  std::printf("nvcc 11.8 matrix: %d loads, %d verdicts, %d (version, GPU) rows without the GPU, "
              "%d cuLibrary* loads absent below 12.0\n",
              loads, verdicts, hidden_gpu_rows, missing_entries);
  EXPECT_GT(loads, 1000);
}

// The cudyn-check binary itself, `binary --target-version X --gpu sm_80,sm_86,sm_90 --json`, on
// the object nvcc 11.8 built (sm_80 SASS + compute_80 PTX with its runtime registration), one run
// per version: its kernels layer for each GPU says what the library verdict says for
// both.fatbin and what the facts say; it exits 1 when a GPU fails.
TEST(Nvcc118, CudynCheckBinaryAgrees) {
  const Image118* both = nullptr;
  for (const Image118& image : Images118()) {
    if (std::string(image.name) == "both.fatbin") both = &image;
  }
  ASSERT_NE(both, nullptr);
  int judged = 0;
  for (int version : testing::kFakeCudaVersions) {
    const std::string target = std::to_string(version / 1000) + "." +
                               std::to_string(version % 1000 / 10);
    SCOPED_TRACE("target " + target);
    const std::string cmd = "tools/cudyn-check binary " + Image118Path("both.o") +
                            " --target-version " + target + " --gpu sm_80,sm_86,sm_90 --json";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = pclose(pipe);
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    std::map<std::string, std::string> said;  // "sm_90" -> "222"
    for (const auto& l : j["files"][0]["layers"]) {
      if (l["layer"] != "kernels") continue;
      const std::string gpu = l["gpu"].get<std::string>();
      if (l["status"] == "fails") {
        said[gpu] = std::to_string(l["cuda_error"].get<int>());
      } else {
        const std::string image = l["image"].get<std::string>();
        said[gpu] = image.substr(0, image.find(' '));
      }
    }
    bool any_fails = false;
    for (int gpu : {80, 86, 90}) {
      const std::string sm = "sm_" + std::to_string(gpu);
      const std::string expected = Expected118(*both, version, gpu);
      ASSERT_EQ(said.count(sm), 1u) << out;
      EXPECT_EQ(said[sm], expected) << sm;
      EXPECT_EQ(said[sm], Verdict(Image118Path("both.fatbin"), version, sm.c_str())) << sm;
      any_fails = any_fails || expected == "100" || expected == "209" || expected == "222";
      ++judged;
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), any_fails ? 1 : 0);
  }
  EXPECT_EQ(judged, static_cast<int>(sizeof testing::kFakeCudaVersions /
                                     sizeof testing::kFakeCudaVersions[0]) * 3);
}

// ---- the runtime's fatbin registration (the drop-in's __cudaRegisterFatBinary) ----------------

// cudyn-check's kernel verdict for fatbin bytes, as Verdict() for a file.
std::string VerdictOfBytes(const std::string& bytes, int version, const char* gpu) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/handed.fatbin";
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return Verdict(path, version, gpu);
}

// The number of PTX / SASS entries of fatbin bytes.
size_t EntryCount(const std::string& bytes) {
  kr::JudgedFatbin j;
  const kr::GpuArch any{9, 0, '\0'};
  if (!kr::JudgeFatbin(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 13000, any,
                       &j))
    return 0;
  return j.images.size();
}

// A real 13.0 driver handed what RegistrationFatbin makes for an emulated driver must answer what
// the facts say that emulated driver answers: for every fatbin of both nvcc, every emulated
// version that offers the GPU, on sm_80 / sm_86 / sm_90. What it answers is cudyn-check's verdict
// at 13.0 for the handed bytes; what the facts say is Documented() / Expected118().
TEST(Registration, TheRealDriverAnswersAsTheEmulatedOne) {
  struct Case {
    std::string file;
    std::string expected;
  };
  int judged = 0, replaced = 0, stand_ins = 0;  // replaced: kOnlyChosen
  for (int version : testing::kFakeCudaVersions) {
    for (int gpu : {80, 86, 90}) {
      if (!GpuKnown(version, gpu)) continue;  // cuInit refuses: nothing is registered or loaded
      const std::string sm = "sm_" + std::to_string(gpu);
      std::vector<Case> cases;
      for (const Image118& image : Images118()) {
        if (!image.bare) cases.push_back({Image118Path(image.name), Expected118(image, version, gpu)});
      }
      if (gpu == 90) {
        for (const char* image : {"sm90.fatbin", "ptx80.fatbin", "sm100.fatbin", "both.fatbin"}) {
          cases.push_back({Image(image), Documented(image, version)});
        }
      }
      for (const Case& c : cases) {
        SCOPED_TRACE(c.file + " at " + std::to_string(version) + " on " + sm);
        const std::string original = ReadAll(c.file);
        std::string made;
        const kr::Registration how = kr::RegistrationFatbin(
            reinterpret_cast<const uint8_t*>(original.data()), original.size(), version, 13000,
            Arch(sm), &made);
        const std::string& handed = how == kr::Registration::kKeep ? original : made;
        const std::string answer = VerdictOfBytes(handed, 13000, sm.c_str());
        EXPECT_EQ(answer, c.expected);
        if (how == kr::Registration::kOnlyChosen) {
          EXPECT_EQ(EntryCount(handed), 1u);
          ++replaced;
        }
        if (how == kr::Registration::kTooNewPtx) {
          EXPECT_EQ(c.expected, "222");
          EXPECT_EQ(EntryCount(handed), 1u);
          ++stand_ins;
        }
        // Kept only where the real driver already answers what the emulated one would.
        if (how == kr::Registration::kKeep) {
          EXPECT_EQ(VerdictOfBytes(original, 13000, sm.c_str()), c.expected);
        }
        ++judged;
      }
    }
  }
  // None of these holds two images both drivers could load: the choice is the real driver's.
  EXPECT_EQ(replaced, 0);
  EXPECT_GT(stand_ins, 0);
  std::printf("registration: %d fatbins judged, %d by a stand-in\n", judged, stand_ins);
}

// One container holding the entries of two fatbins.
std::string Concatenated(const std::string& a, const std::string& b) {
  uint64_t ha = 0, pa = 0, hb = 0, pb = 0;
  EXPECT_TRUE(kr::DecodeFatbinHeader(reinterpret_cast<const uint8_t*>(a.data()), a.size(), &ha, &pa));
  EXPECT_TRUE(kr::DecodeFatbinHeader(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &hb, &pb));
  std::string s = a.substr(0, ha + pa) + b.substr(hb, pb);
  const uint64_t payload = pa + pb;
  std::memcpy(&s[8], &payload, sizeof payload);
  return s;
}

// compute_80 PTX of nvcc 11.8 (ISA 7.8) and of nvcc 13.0 (ISA 9.0) in one fatbin: a real 13.0
// driver JITs the newer ISA; an emulated driver that JITs only 7.8 must make the runtime get the
// 7.8 entry alone, and one that JITs neither a stand-in the real driver answers 222 to.
TEST(Registration, OfTwoPtxTheRuntimeGetsTheOneTheEmulatedDriverJits) {
  const std::string both = Concatenated(ReadAll(Image118Path("ptx80.fatbin")), ReadAll(Image("ptx80.fatbin")));
  const int isa78 = TableFacts().cuda_of_isa.at(Nvcc118Isa());
  const int isa_nvcc13 = TableFacts().cuda_of_isa.at(TableFacts().isa_of_cuda.at(13000));
  int only_chosen = 0;
  for (int version : testing::kFakeCudaVersions) {
    for (int gpu : {80, 86, 90}) {
      if (!GpuKnown(version, gpu)) continue;
      const std::string sm = "sm_" + std::to_string(gpu);
      SCOPED_TRACE(std::to_string(version) + " on " + sm);
      std::string made;
      const kr::Registration how = kr::RegistrationFatbin(
          reinterpret_cast<const uint8_t*>(both.data()), both.size(), version, 13000, Arch(sm), &made);
      if (version >= isa_nvcc13) {
        EXPECT_EQ(how, kr::Registration::kKeep);
      } else if (version >= isa78) {
        ASSERT_EQ(how, kr::Registration::kOnlyChosen);
        kr::JudgedFatbin j;
        ASSERT_TRUE(kr::JudgeFatbin(reinterpret_cast<const uint8_t*>(made.data()), made.size(), 13000,
                                    Arch(sm), &j));
        ASSERT_EQ(j.images.size(), 1u);
        EXPECT_TRUE(j.images[0].ptx);
        EXPECT_EQ(std::to_string(j.images[0].isa_major) + "." + std::to_string(j.images[0].isa_minor),
                  Nvcc118Isa());
        EXPECT_EQ(VerdictOfBytes(made, 13000, sm.c_str()), "compute_80");
        ++only_chosen;
      } else {
        EXPECT_EQ(how, kr::Registration::kTooNewPtx);
        EXPECT_EQ(VerdictOfBytes(made, 13000, sm.c_str()), "222");
      }
    }
  }
  EXPECT_GT(only_chosen, 0);
}

// The drop-in's hook on the process's own driver (a fake 13.0 with a fake sm_90, clamped to 12.2
// with emulation, from the environment as `cudyn run --emulate-driver` sets it): the wrapper the
// runtime gets points to a fatbin the real driver answers as a 12.2 driver would.
TEST(Registration, TheDropInHandsTheRuntimeWhatTheEmulatedDriverLoads) {
  setenv("CUDYN_DRIVER_PATH", FakeDriverPath(13000).c_str(), 1);
  setenv("CUDYN_MAX_CUDA_VERSION", "12.2", 1);
  setenv("CUDYN_CLAMP_MODE", "emulate", 1);
  setenv("CUDYN_FAKE_GPU", "90", 1);
  ASSERT_TRUE(DefaultDriver().ok());
  ASSERT_TRUE(DefaultDriver().emulating());
  struct Wrapper {
    int magic;
    int version;
    const void* data;
    void* filename_or_fatbins;
  };
  for (const char* image : {"sm90.fatbin", "ptx80.fatbin", "sm100.fatbin", "both.fatbin"}) {
    SCOPED_TRACE(image);
    const std::string original = ReadAll(Image(image));
    Wrapper w{static_cast<int>(kr::kFatbinWrapperMagic), 1, original.data(), nullptr};
    const auto* got = static_cast<const Wrapper*>(EmulateRegisteredFatbin(&w));
    ASSERT_NE(got, nullptr);
    std::string handed = original;
    if (got != &w) {
      EXPECT_EQ(got->magic, w.magic);
      EXPECT_EQ(got->version, w.version);
      kr::JudgedFatbin j;
      ASSERT_TRUE(kr::JudgeFatbin(static_cast<const uint8_t*>(got->data), UINT64_MAX, 13000,
                                  Arch("sm_90"), &j));
      handed.assign(static_cast<const char*>(got->data), j.offsets.back() + j.sizes.back());
    }
    EXPECT_EQ(VerdictOfBytes(handed, 13000, "sm_90"), Documented(image, 12020));
  }
  unsetenv("CUDYN_FAKE_GPU");
}


}  // namespace
}  // namespace cudyn
