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
// * The environment: CUDYN_CLAMP_MODE values, and that without the mode nothing is wrapped.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "loader/cudyn.h"
#include "loader/kernel_rule.h"
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

// cudyn-check's kernel verdict for a fatbin file on sm_90 under `version`: "sm_90",
// "compute_80" or the error number.
std::string Verdict(const std::string& file, int version) {
  const fatbin::FatbinResult r = fatbin::ReadFatbins(file);
  EXPECT_TRUE(r.ok) << file << ": " << r.error;
  layers::Target t;
  t.cuda_version = version;
  t.has_gpu = true;
  t.gpu = Arch("sm_90");
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

}  // namespace
}  // namespace cudyn
