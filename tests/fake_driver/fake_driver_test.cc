// The generated fake drivers behave as the design says a CUDA <V> driver does: exact export set,
// cuDriverGetVersion, cuGetProcAddress(_v2) per generation, call log and fault injection.
// Expectations come from version_tables/api_table.h (the C++ view of the tables), not from
// gen_fake_driver.py, plus the behaviours measured on drivers 470, 535 and 580 written out as
// literal cases.
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fake_driver/fake_driver.h"
#include "tests/fake_driver/fake_versions.h"
#include "version_tables/api_table.h"

namespace {

using cudyn::EntryBase;
using cudyn::EntrySymbol;
using cudyn::kEntries;
using cudyn::kEntryCount;
using cudyn::StreamClass;

constexpr int kNotFound = 500;
constexpr int kInvalidValue = 1;

using GpaV1 = int (*)(const char*, void**, int, unsigned long long);
using GpaV2 = int (*)(const char*, void**, int, unsigned long long, int*);

std::string FakePath(int version) { return cudyn::testing::FakeDriverPath(version); }
bool Expected(int version, int i) { return cudyn::testing::FakeExports(version, i); }

std::set<std::string> ExpectedSet(int version) {
  std::set<std::string> out;
  for (int i = 0; i < kEntryCount; ++i) {
    if (Expected(version, i)) out.insert(std::string(EntrySymbol(i)));
  }
  return out;
}

// Defined global/weak names in the ELF's .dynsym (what `nm -D --defined-only` lists).
std::vector<std::string> DynamicExports(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  if (data.size() < sizeof(Elf64_Ehdr)) return out;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return out;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
  for (int s = 0; s < eh->e_shnum; ++s) {
    if (sh[s].sh_type != SHT_DYNSYM) continue;
    const char* strtab = data.data() + sh[sh[s].sh_link].sh_offset;
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(data.data() + sh[s].sh_offset);
    size_t n = sh[s].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 1; k < n; ++k) {
      int bind = ELF64_ST_BIND(sym[k].st_info);
      if (sym[k].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      out.push_back(strtab + sym[k].st_name);
    }
  }
  return out;
}

std::string SymbolAt(void* fn) {
  Dl_info info;
  if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_sname == nullptr) return "";
  return info.dli_sname;
}

// What a driver of this fake's generation returns for (name, version, flags), computed from the
// tables: the newest variant of base `name` the fake exports with abi <= version, among the
// per-thread ones when flags has bit 2 and the base has per-thread variants, else among the
// legacy ones. Variants cuGetProcAddress never returns (gpa=no) do not count; suffixed names
// are unknown. Status as cuGetProcAddress_v2 reports it.
struct Lookup {
  int status;          // 0 found, 1 no such symbol, 2 version not sufficient
  std::string symbol;  // when found
};

// Entry indices by base name.
const std::map<std::string, std::vector<int>>& ByBase() {
  static const auto* by_base = [] {
    auto* m = new std::map<std::string, std::vector<int>>;
    for (int i = 0; i < kEntryCount; ++i) (*m)[std::string(EntryBase(i))].push_back(i);
    return m;
  }();
  return *by_base;
}

Lookup ExpectLookup(const std::vector<bool>& exported, const std::string& name, int version,
                    unsigned long long flags) {
  auto it = ByBase().find(name);
  if (it == ByBase().end()) return {1, ""};
  std::vector<int> variants;  // what cuGetProcAddress can return for this name
  bool has_pt = false;
  for (int i : it->second) {
    if (!exported[i] || !kEntries[i].gpa_reachable) continue;
    variants.push_back(i);
    has_pt = has_pt || kEntries[i].stream != StreamClass::kLegacy;
  }
  if (variants.empty()) return {1, ""};
  bool pt = (flags & 2) != 0 && has_pt;
  int best = -1;
  for (int i : variants) {
    if ((kEntries[i].stream != StreamClass::kLegacy) != pt) continue;
    if (kEntries[i].abi_version > version) continue;
    if (best < 0 || kEntries[i].abi_version > kEntries[best].abi_version) best = i;
  }
  if (best < 0) return {2, ""};
  return {0, std::string(EntrySymbol(best))};
}

class FakeDriverTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    version_ = GetParam();
    path_ = FakePath(version_);
    ASSERT_FALSE(path_.empty()) << "fake for " << version_ << " not in runfiles";
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    ASSERT_TRUE(cudynFakeBind(handle_, &api_));
    api_.reset();
    gpa_ = reinterpret_cast<GpaV1>(dlsym(handle_, "cuGetProcAddress"));
    gpa2_ = reinterpret_cast<GpaV2>(dlsym(handle_, "cuGetProcAddress_v2"));
  }
  void TearDown() override {
    if (handle_ != nullptr) {
      api_.reset();
      dlclose(handle_);
    }
  }
  void* Sym(const char* name) { return dlsym(handle_, name); }

  int version_ = 0;
  std::string path_;
  void* handle_ = nullptr;
  CudynFakeApi api_{};
  GpaV1 gpa_ = nullptr;
  GpaV2 gpa2_ = nullptr;
};

TEST_P(FakeDriverTest, ExportsExactlyTheRuleSet) {
  std::set<std::string> expected = ExpectedSet(version_);
  for (int i = 0; i < kEntryCount; ++i) {
    std::string symbol(EntrySymbol(i));
    void* fn = Sym(symbol.c_str());
    EXPECT_EQ(fn != nullptr, expected.count(symbol) == 1) << symbol << " on fake " << version_;
    if (fn != nullptr) {
      EXPECT_EQ(SymbolAt(fn), symbol) << "aliased function";
    }
  }
  // The ELF's dynamic symbol table: the rule's cu* set, the cudynFake* API and nothing else.
  const std::set<std::string> api = {"cudynFakeCallCount", "cudynFakeCall", "cudynFakeReset",
                                     "cudynFakeSetResult", "cudynFakeCudaVersion",
                                     "cudynFakeSetCapture"};
  const std::set<std::string> linker = {"_init", "_fini", "__bss_start", "_edata", "_end"};
  std::set<std::string> cu, fake_api;
  std::vector<std::string> exports = DynamicExports(path_);
  ASSERT_FALSE(exports.empty());
  for (const std::string& name : exports) {
    if (name.rfind("cudynFake", 0) == 0) {
      fake_api.insert(name);
    } else if (name.size() > 2 && name.rfind("cu", 0) == 0 && isupper(name[2])) {
      cu.insert(name);
    } else {
      EXPECT_EQ(linker.count(name), 1u) << "unexpected export " << name;
    }
  }
  EXPECT_EQ(cu, expected);
  EXPECT_EQ(fake_api, api);
  for (int k = 0; k < cudyn::kRealDriverCount; ++k) {
    if (cudyn::kRealDrivers[k].cuda_version == version_) {
      EXPECT_EQ(static_cast<int>(cu.size()), cudyn::kRealDrivers[k].exported_count);
    }
  }
}

TEST_P(FakeDriverTest, ReportsItsVersion) {
  auto get_version = reinterpret_cast<int (*)(int*)>(Sym("cuDriverGetVersion"));
  ASSERT_NE(get_version, nullptr);
  int v = 0;
  EXPECT_EQ(get_version(&v), 0);
  EXPECT_EQ(v, version_);
  EXPECT_EQ(get_version(nullptr), kInvalidValue);
  EXPECT_EQ(api_.cuda_version(), version_);
  // Recorded like any call.
  ASSERT_EQ(api_.call_count(), 2);
  EXPECT_STREQ(api_.call(0)->symbol, "cuDriverGetVersion");
  EXPECT_EQ(api_.call(0)->args[0], reinterpret_cast<uintptr_t>(&v));
}

TEST_P(FakeDriverTest, CuInitReturnsNoDeviceUnlessTold) {
  auto init = reinterpret_cast<int (*)(unsigned)>(Sym("cuInit"));
  ASSERT_NE(init, nullptr);
  unsetenv("CUDYN_FAKE_INIT_RESULT");
  EXPECT_EQ(init(0), 100);
  setenv("CUDYN_FAKE_INIT_RESULT", "0", 1);
  EXPECT_EQ(init(0), 0);
  setenv("CUDYN_FAKE_INIT_RESULT", "999", 1);
  EXPECT_EQ(init(7), 999);
  setenv("CUDYN_FAKE_INIT_RESULT", "junk", 1);
  EXPECT_EQ(init(0), 100);
  unsetenv("CUDYN_FAKE_INIT_RESULT");
  EXPECT_EQ(api_.set_result("cuInit", 3), 0);
  EXPECT_EQ(init(0), 3);
  ASSERT_EQ(api_.call_count(), 5);
  EXPECT_STREQ(api_.call(2)->symbol, "cuInit");
  EXPECT_EQ(api_.call(2)->num_args, 1);
  EXPECT_EQ(api_.call(2)->args[0], 7u);
  EXPECT_EQ(api_.call(2)->result, 999);
  api_.reset();  // clears injected results too
  EXPECT_EQ(init(0), 100);
}

TEST_P(FakeDriverTest, CapturesPointeesAtCallTime) {
  auto htod = reinterpret_cast<int (*)(unsigned long long, const void*, size_t)>(
      Sym("cuMemcpyHtoD_v2"));
  ASSERT_NE(htod, nullptr);
  EXPECT_EQ(api_.set_capture("cuMemcpyHtoD_v2", 1, 8), 0);
  EXPECT_EQ(api_.set_capture("cuNoSuchFunction", 1, 8), -1);
  EXPECT_EQ(api_.set_capture("cuMemcpyHtoD_v2", 1, CUDYN_FAKE_MAX_CAPTURE + 1), -1);
  unsigned long long host = 0x1122334455667788ull;
  EXPECT_EQ(htod(0x10, &host, 8), 0);
  host = 0;  // changed after the call: the record keeps what the driver saw
  EXPECT_EQ(htod(0x10, nullptr, 8), 0);
  ASSERT_EQ(api_.call_count(), 2);
  ASSERT_EQ(api_.call(0)->captured_size, 8);
  unsigned long long seen = 0;
  memcpy(&seen, api_.call(0)->captured, sizeof(seen));
  EXPECT_EQ(seen, 0x1122334455667788ull);
  EXPECT_EQ(api_.call(1)->captured_size, 0);  // NULL: nothing to copy
  api_.reset();  // clears the capture too
  EXPECT_EQ(htod(0x10, &host, 8), 0);
  EXPECT_EQ(api_.call(0)->captured_size, 0);
}

TEST_P(FakeDriverTest, RecordsArgumentsAndInjectsResults) {
  // cuMemcpyHtoD_v2(CUdeviceptr, const void*, size_t): every fake has it.
  auto htod = reinterpret_cast<int (*)(unsigned long long, const void*, size_t)>(
      Sym("cuMemcpyHtoD_v2"));
  ASSERT_NE(htod, nullptr);
  int host = 0;
  EXPECT_EQ(htod(0x1234, &host, 99), 0);
  EXPECT_EQ(api_.set_result("cuMemcpyHtoD_v2", 2), 0);
  EXPECT_EQ(htod(1, nullptr, 0), 2);
  EXPECT_EQ(api_.set_result("cuNoSuchFunction", 2), -1);
  EXPECT_EQ(api_.set_result("cudynFakeReset", 2), -1);
  ASSERT_EQ(api_.call_count(), 2);
  const CudynFakeCall* c = api_.call(0);
  EXPECT_STREQ(c->symbol, "cuMemcpyHtoD_v2");
  EXPECT_EQ(c->num_args, 3);
  EXPECT_EQ(c->num_words, 3);
  EXPECT_EQ(c->args[0], 0x1234u);
  EXPECT_EQ(c->args[1], reinterpret_cast<uintptr_t>(&host));
  EXPECT_EQ(c->args[2], 99u);
  EXPECT_EQ(c->result, 0);
  EXPECT_EQ(api_.call(1)->result, 2);
  EXPECT_EQ(api_.call(2), nullptr);
  EXPECT_EQ(api_.call(-1), nullptr);
  // Signed arguments are sign-extended: cuMemAdvise(ptr, size, advice, CU_DEVICE_CPU).
  auto advise = reinterpret_cast<int (*)(unsigned long long, size_t, int, int)>(Sym("cuMemAdvise"));
  ASSERT_NE(advise, nullptr);
  api_.reset();
  EXPECT_EQ(advise(0x10, 0x20, 3, -1), 0);
  ASSERT_EQ(api_.call_count(), 1);
  EXPECT_EQ(static_cast<long long>(api_.call(0)->args[3]), -1);
  EXPECT_EQ(api_.call(0)->args[2], 3u);
}

TEST_P(FakeDriverTest, RecordsStructArgumentsBytewise) {
  void* fn = Sym("cuMemAdvise_v2");
  if (version_ < 12020) {
    EXPECT_EQ(fn, nullptr);
    return;
  }
  ASSERT_NE(fn, nullptr);
  struct Location {  // CUmemLocation: {CUmemLocationType type; int id;}
    int type;
    int id;
  };
  auto call = reinterpret_cast<int (*)(unsigned long long, size_t, int, Location)>(fn);
  EXPECT_EQ(call(0x1000, 64, 1, Location{1 /*DEVICE*/, 3}), 0);
  ASSERT_EQ(api_.call_count(), 1);
  const CudynFakeCall* c = api_.call(0);
  EXPECT_STREQ(c->symbol, "cuMemAdvise_v2");
  EXPECT_EQ(c->num_args, 4);
  EXPECT_EQ(c->arg_word[3], 3);
  Location got;
  std::memcpy(&got, &c->args[3], sizeof(got));
  EXPECT_EQ(got.type, 1);
  EXPECT_EQ(got.id, 3);
}

TEST_P(FakeDriverTest, GetProcAddressExportedByGeneration) {
  EXPECT_EQ(gpa_ != nullptr, version_ >= 11040) << "cuGetProcAddress appeared in 11.3 (470)";
  EXPECT_EQ(gpa2_ != nullptr, version_ >= 12000) << "cuGetProcAddress_v2 appeared in 12.0";
}

// Every base and suffixed name the tables know, at each variant's ABI version and around it,
// with flags 0/1/2/3, through v1 and v2, against the lookup computed from the tables.
TEST_P(FakeDriverTest, GetProcAddressMatchesTheTables) {
  if (gpa_ == nullptr) return;
  std::vector<bool> exported(kEntryCount);
  for (int i = 0; i < kEntryCount; ++i) exported[i] = Expected(version_, i);
  std::map<std::string, std::set<int>> names;  // name -> versions to ask for
  for (int i = 0; i < kEntryCount; ++i) {
    std::set<int>& versions = names[std::string(EntryBase(i))];
    int abi = kEntries[i].abi_version;
    versions.insert({abi - 10, abi, abi + 10, 1000, version_, version_ + 10, 99999});
    names[std::string(EntrySymbol(i))].insert({abi, version_});
  }
  names["cuNoSuchFunction"].insert(version_);
  int checked = 0;
  for (const auto& [name, versions] : names) {
    for (int v : versions) {
      for (unsigned long long flags : {0ull, 1ull, 2ull, 3ull}) {
        auto where = [&] {  // evaluated only when an expectation fails
          return name + "@" + std::to_string(v) + " flags " + std::to_string(flags) + " fake " +
                 std::to_string(version_);
        };
        bool strict_reject = version_ >= 13000 && v > version_;
        Lookup want = ExpectLookup(exported, name, v, flags);
        void* sentinel = reinterpret_cast<void*>(0x1);
        void* fn = sentinel;
        int rc = gpa_(name.c_str(), &fn, v, flags);
        if (strict_reject) {
          EXPECT_EQ(rc, kInvalidValue) << where();
          EXPECT_EQ(fn, sentinel) << where();
        } else if (want.status == 0) {
          EXPECT_EQ(rc, 0) << where();
          EXPECT_EQ(fn, Sym(want.symbol.c_str()))
              << where() << ": got " << SymbolAt(fn) << ", want " << want.symbol;
        } else {
          EXPECT_EQ(rc, kNotFound) << where();
          EXPECT_EQ(fn, sentinel) << "v1 leaves *pfn untouched when not found" << where();
        }
        ++checked;
        if (gpa2_ == nullptr) continue;
        fn = sentinel;
        int status = -7;
        rc = gpa2_(name.c_str(), &fn, v, flags, &status);
        if (strict_reject) {
          EXPECT_EQ(rc, kInvalidValue) << where();
          EXPECT_EQ(fn, sentinel) << where();
          EXPECT_EQ(status, -7) << where();
        } else {
          EXPECT_EQ(rc, 0) << where();
          EXPECT_EQ(status, want.status) << where();
          if (want.status == 0) {
            EXPECT_EQ(fn, Sym(want.symbol.c_str()))
                << where() << ": got " << SymbolAt(fn) << ", want " << want.symbol;
          } else {
            EXPECT_EQ(fn, nullptr) << where();
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// The behaviours measured on the real drivers, as literal cases.
TEST_P(FakeDriverTest, MeasuredCuGetProcAddressCases) {
  if (gpa_ == nullptr) return;
  const bool strict = version_ >= 13000;
  auto v1 = [&](const char* name, int v, unsigned long long flags, std::string* got) {
    void* fn = nullptr;
    int rc = gpa_(name, &fn, v, flags);
    *got = rc == 0 ? SymbolAt(fn) : "";
    return rc;
  };
  std::string got;
  // Base names at their own ABI version.
  EXPECT_EQ(v1("cuMemAdvise", 8000, 0, &got), 0);
  EXPECT_EQ(got, "cuMemAdvise");
  EXPECT_EQ(v1("cuMemcpy", 4000, 0, &got), 0);
  EXPECT_EQ(got, "cuMemcpy");
  // Per-thread variants only with flags 2; a base without any gives the legacy one.
  EXPECT_EQ(v1("cuMemcpy", 11040, 2, &got), 0);
  EXPECT_EQ(got, "cuMemcpy_ptds");
  EXPECT_EQ(v1("cuMemcpy", 11040, 1, &got), 0);
  EXPECT_EQ(got, "cuMemcpy");
  EXPECT_EQ(v1("cuCtxCreate", 3020, 2, &got), 0);
  EXPECT_EQ(got, "cuCtxCreate_v2");
  // ... and a per-thread request below the oldest per-thread variant is not found.
  EXPECT_EQ(v1("cuMemcpyDtoD", 3020, 2, &got), kNotFound);
  EXPECT_EQ(v1("cuMemcpyDtoD", 7000, 2, &got), 0);
  EXPECT_EQ(got, "cuMemcpyDtoD_v2_ptds");
  // Below the oldest variant: 500.
  EXPECT_EQ(v1("cuMemcpy", 1000, 0, &got), kNotFound);
  // Suffixed, unknown and gpa=no names: 500.
  EXPECT_EQ(v1("cuMemAdvise_v2", version_, 0, &got), kNotFound);
  EXPECT_EQ(v1("cuMemcpy_ptds", version_, 2, &got), kNotFound);
  EXPECT_EQ(v1("cuNoSuchFunction", version_, 0, &got), kNotFound);
  EXPECT_EQ(v1("cuMemGetAttribute", version_, 0, &got), kNotFound);
  ASSERT_NE(Sym("cuMemGetAttribute"), nullptr) << "exported, yet never returned";
  // Above the driver: 11.x/12.x return the newest variant (470: v1 cuMemAdvise for 12020);
  // 13.x answers INVALID_VALUE.
  if (strict) {
    EXPECT_EQ(v1("cuMemAdvise", version_ + 10, 0, &got), kInvalidValue);
    EXPECT_EQ(v1("cuMemAdvise", 99999, 0, &got), kInvalidValue);
    EXPECT_EQ(v1("cuNoSuchFunction", 99999, 0, &got), kInvalidValue);
    EXPECT_EQ(v1("cuCtxSynchronize", 13000, 0, &got), 0);
    EXPECT_EQ(got, "cuCtxSynchronize_v2");
  } else {
    EXPECT_EQ(v1("cuMemAdvise", 99999, 0, &got), 0);
    EXPECT_EQ(got, version_ >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
  }
  if (version_ == 11040) {
    EXPECT_EQ(v1("cuMemAdvise", 12020, 0, &got), 0);
    EXPECT_EQ(got, "cuMemAdvise");
  }
  if (version_ >= 12020) {
    EXPECT_EQ(v1("cuMemAdvise", 12020, 0, &got), 0);
    EXPECT_EQ(got, "cuMemAdvise_v2");
  }
  EXPECT_EQ(v1("cuGetProcAddress", 11030, 0, &got), 0);
  EXPECT_EQ(got, "cuGetProcAddress");
  void* unused = nullptr;
  EXPECT_EQ(gpa_(nullptr, &unused, 11040, 0), kInvalidValue);
  EXPECT_EQ(gpa_("cuInit", nullptr, 11040, 0), kInvalidValue);

  if (gpa2_ == nullptr) return;
  auto v2 = [&](const char* name, int v, unsigned long long flags, int* status) {
    void* fn = reinterpret_cast<void*>(0x1);
    *status = -1;
    int rc = gpa2_(name, &fn, v, flags, status);
    got = fn == nullptr ? "NULL" : fn == reinterpret_cast<void*>(0x1) ? "UNTOUCHED" : SymbolAt(fn);
    return rc;
  };
  int st = 0;
  EXPECT_EQ(v2("cuMemAdvise", 12020, 0, &st), 0);
  EXPECT_EQ(st, 0);
  EXPECT_EQ(got, version_ >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
  EXPECT_EQ(v2("cuNoSuchFunction", 12000, 0, &st), 0);
  EXPECT_EQ(st, 1);
  EXPECT_EQ(got, "NULL");
  EXPECT_EQ(v2("cuMemAdvise_v2", 12020, 0, &st), 0);
  EXPECT_EQ(st, 1);
  EXPECT_EQ(v2("cuMemGetAttribute", 12000, 0, &st), 0);
  EXPECT_EQ(st, 1);
  EXPECT_EQ(v2("cuMemcpy", 1000, 0, &st), 0);
  EXPECT_EQ(st, 2);
  EXPECT_EQ(got, "NULL");
  EXPECT_EQ(v2("cuMemcpyDtoD", 3020, 2, &st), 0);
  EXPECT_EQ(st, 2);
  EXPECT_EQ(v2("cuMemcpy", 12000, 2, &st), 0);
  EXPECT_EQ(st, 0);
  EXPECT_EQ(got, "cuMemcpy_ptds");
  EXPECT_EQ(v2("cuGetProcAddress", 12000, 0, &st), 0);
  EXPECT_EQ(got, "cuGetProcAddress_v2");
  if (strict) {
    EXPECT_EQ(v2("cuMemAdvise", 13010, 0, &st), kInvalidValue);
    EXPECT_EQ(st, -1);
    EXPECT_EQ(got, "UNTOUCHED");
  } else {
    EXPECT_EQ(v2("cuMemAdvise", 99999, 0, &st), 0);
    EXPECT_EQ(st, 0);
    EXPECT_EQ(got, version_ >= 12020 ? "cuMemAdvise_v2" : "cuMemAdvise");
  }
}

TEST_P(FakeDriverTest, GetProcAddressFaultInjection) {
  if (gpa_ == nullptr) return;
  ASSERT_EQ(api_.set_result("cuGetProcAddress", 3), 0);
  void* fn = nullptr;
  EXPECT_EQ(gpa_("cuInit", &fn, 2000, 0), 3);
  EXPECT_EQ(fn, nullptr);
  api_.reset();
  EXPECT_EQ(gpa_("cuInit", &fn, 2000, 0), 0);
  EXPECT_EQ(SymbolAt(fn), "cuInit");
  ASSERT_EQ(api_.call_count(), 1);
  EXPECT_STREQ(api_.call(0)->symbol, "cuGetProcAddress");
  EXPECT_EQ(api_.call(0)->num_args, 4);
  EXPECT_EQ(api_.call(0)->args[2], 2000u);
  EXPECT_STREQ(api_.call(0)->requested, "cuInit");
}

INSTANTIATE_TEST_SUITE_P(AllVersions, FakeDriverTest, ::testing::ValuesIn(cudyn::testing::kFakeCudaVersions),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "cuda_" + std::to_string(info.param);
                         });

// Several fakes can be loaded at once (distinct paths, same soname) without interfering.
TEST(FakeDrivers, CoexistInOneProcess) {
  std::vector<void*> handles;
  for (int v : cudyn::testing::kFakeCudaVersions) {
    void* h = dlopen(FakePath(v).c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    handles.push_back(h);
  }
  for (size_t k = 0; k < handles.size(); ++k) {
    auto get_version = reinterpret_cast<int (*)(int*)>(dlsym(handles[k], "cuDriverGetVersion"));
    int v = 0;
    ASSERT_EQ(get_version(&v), 0);
    EXPECT_EQ(v, cudyn::testing::kFakeCudaVersions[k]);
  }
  for (void* h : handles) dlclose(h);
}

}  // namespace
