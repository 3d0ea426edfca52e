// The generated fake runtimes (//tests/fake_runtime): each exports exactly its facts' names
// (minus the ones left out) plus the control API, all as name@@SONAME, has its SONAME, and
// behaves as fake_runtime_control.h says when loaded with dlopen. Expectations come from the
// facts' export lists, the header's documented rules and literal values, not from the generator.
//
// Arguments (BUILD): one per fake, VERSION=SONAME=LIBRARY=EXPORT_LIST[=WITHOUT_REGEX,...].
#include <dlfcn.h>
#include <elf.h>
#include <regex.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fake_runtime/fake_runtime_control.h"

namespace {

struct Fake {
  std::string version;  // "11.8"
  std::string soname;
  std::string path;
  std::string exports;  // the facts' export list
  std::vector<std::string> without;
  int major = 0;
  int reported = 0;  // what cudaRuntimeGetVersion says
};
std::vector<Fake>* g_fakes = new std::vector<Fake>();

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

const char* const kControlApi[] = {
    "fake_cudart_reset",        "fake_cudart_set_result", "fake_cudart_set_driver_version",
    "fake_cudart_call_count",   "fake_cudart_last_arg",   "fake_cudart_set_out",
    "fake_cudart_chosen_field", "fake_cudart_identity",   "fake_cudart_last_pointee",
};

// ---- the ELF file, as `readelf --dyn-syms --wide` and `readelf -d` show it ------------------

struct Elf {
  std::string soname;
  // Defined GLOBAL/WEAK FUNC/OBJECT symbols of .dynsym, as name@@VERSION (name@VERSION when
  // hidden, bare name when unversioned); the ABS symbols naming a version definition left out,
  // as in the facts.
  std::set<std::string> exports;
};

Elf ReadElf(const std::string& path) {
  Elf elf;
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof(Elf64_Ehdr)) return elf;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
    return elf;
  }
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
  const Elf64_Shdr *dynsym = nullptr, *versym = nullptr, *verdef = nullptr, *dynamic = nullptr;
  for (int s = 0; s < eh->e_shnum; ++s) {
    if (sh[s].sh_type == SHT_DYNSYM) dynsym = &sh[s];
    if (sh[s].sh_type == SHT_GNU_versym) versym = &sh[s];
    if (sh[s].sh_type == SHT_GNU_verdef) verdef = &sh[s];
    if (sh[s].sh_type == SHT_DYNAMIC) dynamic = &sh[s];
  }
  if (dynsym == nullptr) return elf;
  const char* strtab = data.data() + sh[dynsym->sh_link].sh_offset;
  std::vector<std::string> versions(2);  // index -> name; 0 local, 1 global (unversioned)
  if (verdef != nullptr) {
    const char* vstr = data.data() + sh[verdef->sh_link].sh_offset;
    size_t off = verdef->sh_offset;
    for (unsigned i = 0; i < verdef->sh_info; ++i) {
      const auto* vd = reinterpret_cast<const Elf64_Verdef*>(data.data() + off);
      const auto* aux = reinterpret_cast<const Elf64_Verdaux*>(data.data() + off + vd->vd_aux);
      if (versions.size() <= vd->vd_ndx) versions.resize(vd->vd_ndx + 1);
      if (!(vd->vd_flags & VER_FLG_BASE)) versions[vd->vd_ndx] = vstr + aux->vda_name;
      if (vd->vd_next == 0) break;
      off += vd->vd_next;
    }
  }
  if (dynamic != nullptr) {
    const char* dstr = data.data() + sh[dynamic->sh_link].sh_offset;
    const auto* dyn = reinterpret_cast<const Elf64_Dyn*>(data.data() + dynamic->sh_offset);
    for (size_t k = 0; k < dynamic->sh_size / sizeof(Elf64_Dyn) && dyn[k].d_tag != DT_NULL; ++k) {
      if (dyn[k].d_tag == DT_SONAME) elf.soname = dstr + dyn[k].d_un.d_val;
    }
  }
  const std::set<std::string> version_names(versions.begin(), versions.end());
  const auto* sym = reinterpret_cast<const Elf64_Sym*>(data.data() + dynsym->sh_offset);
  const auto* vs = versym != nullptr
                       ? reinterpret_cast<const Elf64_Half*>(data.data() + versym->sh_offset)
                       : nullptr;
  for (size_t k = 1; k < dynsym->sh_size / sizeof(Elf64_Sym); ++k) {
    const int bind = ELF64_ST_BIND(sym[k].st_info), type = ELF64_ST_TYPE(sym[k].st_info);
    if (sym[k].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
        (type != STT_FUNC && type != STT_OBJECT)) {
      continue;
    }
    std::string name = strtab + sym[k].st_name;
    if (sym[k].st_shndx == SHN_ABS && version_names.count(name)) continue;
    const unsigned v = vs != nullptr ? vs[k] : 1;
    if ((v & 0x7fff) >= 2 && (v & 0x7fff) < versions.size()) {
      name += ((v & 0x8000) ? "@" : "@@") + versions[v & 0x7fff];
    }
    elf.exports.insert(name);
  }
  return elf;
}

// What the fake must export: the facts' names (minus --without), then the control API, all
// under the fake's SONAME.
std::set<std::string> ExpectedExports(const Fake& f) {
  std::set<std::string> out;
  std::ifstream in(f.exports);
  std::string line;
  // POSIX extended regexes (<regex.h>): the patterns are in the subset Python's re agrees on, and
  // std::regex cost this file seconds of compile time in every build configuration.
  std::vector<regex_t> without(f.without.size());
  for (size_t i = 0; i < f.without.size(); ++i) {
    EXPECT_EQ(regcomp(&without[i], f.without[i].c_str(), REG_EXTENDED | REG_NOSUB), 0)
        << f.without[i];
  }
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find("@@"));
    bool left_out = false;
    for (const regex_t& re : without) {
      left_out = left_out || regexec(&re, name.c_str(), 0, nullptr, 0) == 0;
    }
    if (!left_out) out.insert(name + "@@" + f.soname);
  }
  for (regex_t& re : without) regfree(&re);
  for (const char* c : kControlApi) out.insert(std::string(c) + "@@" + f.soname);
  return out;
}

TEST(FakeRuntime, ExportsExactlyTheFactsAndTheControlApi) {
  ASSERT_EQ(g_fakes->size(), 9u);
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    const Elf elf = ReadElf(f.path);
    EXPECT_EQ(elf.soname, f.soname);
    const std::set<std::string> want = ExpectedExports(f);
    ASSERT_GT(want.size(), 300u);
    std::vector<std::string> missing, extra;
    for (const std::string& s : want) {
      if (!elf.exports.count(s)) missing.push_back(s);
    }
    for (const std::string& s : elf.exports) {
      if (!want.count(s)) extra.push_back(s);
    }
    EXPECT_TRUE(missing.empty()) << missing.size() << " missing, first " << missing[0];
    EXPECT_TRUE(extra.empty()) << extra.size() << " extra, first " << extra[0];
  }
}

TEST(FakeRuntime, LeavesOutWhatTheBuildSays) {
  // The 12.0 fake: 12.4's exports without the edge-data API of CUDA 12.3.
  for (const Fake& f : *g_fakes) {
    if (f.version != "12.0") continue;
    const Elf elf = ReadElf(f.path);
    for (const char* gone : {"cudaStreamGetCaptureInfo_v3", "cudaStreamGetCaptureInfo_v3_ptsz",
                             "cudaGraphAddNode_v2", "cudaGraphGetEdges_v2",
                             "cudaStreamUpdateCaptureDependencies_v2_ptsz"}) {
      EXPECT_FALSE(elf.exports.count(std::string(gone) + "@@libcudart.so.12")) << gone;
    }
    for (const char* kept : {"cudaStreamGetCaptureInfo_v2", "cudaGraphAddNode",
                             "cudaGetDeviceProperties_v2", "cudaGraphGetEdges"}) {
      EXPECT_TRUE(elf.exports.count(std::string(kept) + "@@libcudart.so.12")) << kept;
    }
  }
}

// ---- behaviour through dlopen -------------------------------------------------------------

// Types with the CUDA ABI, spelled out so that one test covers every version's fake.
struct Dim3 {
  unsigned x, y, z;
};
struct MemLocation {  // struct cudaMemLocation (12.2+)
  int type;
  int id;
};
struct PitchedPtr {  // struct cudaPitchedPtr
  void* ptr;
  size_t pitch, xsize, ysize;
};
struct Extent {  // struct cudaExtent
  size_t width, height, depth;
};

// A fake stays loaded once opened, as a real runtime does (cudyn never unloads one: it has exit
// handlers and threads of its own). Unloading a fake whose thread_local call log other threads
// used made LeakSanitizer's exit scan crash once the fakes were built uninstrumented
// (tests/exec_config.bzl); a later dlopen of the same file returns the same handle.
class Loaded {
 public:
  explicit Loaded(const Fake& f) : h_(dlopen(f.path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    EXPECT_NE(h_, nullptr) << dlerror();
    if (h_ != nullptr) F<void (*)()>("fake_cudart_reset")();
  }
  bool ok() const { return h_ != nullptr; }
  bool Has(const char* name) const { return dlsym(h_, name) != nullptr; }
  template <typename Fn>
  Fn F(const char* name) const {
    void* p = dlsym(h_, name);
    EXPECT_NE(p, nullptr) << name;
    return reinterpret_cast<Fn>(p);
  }
  int Calls(const char* symbol) const {
    return F<int (*)(const char*)>("fake_cudart_call_count")(symbol);
  }
  std::vector<unsigned char> Arg(const char* symbol, int index) const {
    unsigned char buf[256];
    int n = F<int (*)(const char*, int, void*, size_t)>("fake_cudart_last_arg")(symbol, index, buf,
                                                                              sizeof(buf));
    return n < 0 ? std::vector<unsigned char>() : std::vector<unsigned char>(buf, buf + n);
  }
  template <typename T>
  std::vector<unsigned char> Bytes(const T& v) const {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    return std::vector<unsigned char>(p, p + sizeof(T));
  }
  void SetResult(const char* symbol, int rc) const {
    F<void (*)(const char*, int)>("fake_cudart_set_result")(symbol, rc);
  }
  void SetOut(const char* symbol, int index, const void* bytes, size_t size) const {
    F<void (*)(const char*, int, const void*, size_t)>("fake_cudart_set_out")(symbol, index, bytes,
                                                                              size);
  }
  int Chosen(const char* field, void* out, size_t size) const {
    return F<int (*)(const char*, void*, size_t)>("fake_cudart_chosen_field")(field, out, size);
  }

 private:
  void* h_;
};

uint32_t Fnv1a(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
  return h;
}

TEST(FakeRuntime, ReportsItsVersions) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    EXPECT_STREQ(fake.F<const char* (*)()>("fake_cudart_identity")(),
                 ("fake libcudart " + f.version).c_str());
    int v = -1;
    EXPECT_EQ(fake.F<int (*)(int*)>("cudaRuntimeGetVersion")(&v), 0);
    EXPECT_EQ(v, f.reported);
    auto driver = fake.F<int (*)(int*)>("cudaDriverGetVersion");
    EXPECT_EQ(driver(&v), 0);
    EXPECT_EQ(v, f.reported);
    fake.F<void (*)(int)>("fake_cudart_set_driver_version")(11040);
    EXPECT_EQ(driver(&v), 0);
    EXPECT_EQ(v, 11040);
    int n = 0;
    EXPECT_EQ(fake.F<int (*)(int*)>("cudaGetDeviceCount")(&n), 0);
    EXPECT_EQ(n, 1);
    // A configured result: returned, and the out-parameter left alone.
    fake.SetResult("cudaRuntimeGetVersion", 35);
    v = -1;
    EXPECT_EQ(fake.F<int (*)(int*)>("cudaRuntimeGetVersion")(&v), 35);
    EXPECT_EQ(v, -1);
    EXPECT_EQ(fake.Calls("cudaRuntimeGetVersion"), 2);
    fake.F<void (*)()>("fake_cudart_reset")();
    EXPECT_EQ(fake.Calls("cudaRuntimeGetVersion"), 0);
    EXPECT_EQ(fake.F<int (*)(int*)>("cudaRuntimeGetVersion")(&v), 0);
    EXPECT_EQ(driver(&v), 0);
    EXPECT_EQ(v, f.reported);
  }
}

TEST(FakeRuntime, RecordsArgumentBytes) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    const void* ptr = reinterpret_cast<const void*>(0x7f0012345000);
    const size_t count = 1 << 20;
    const int advice = 5;  // cudaMemAdviseSetAccessedBy
    if (f.major >= 13) {   // 13.0: the 12.x _v2 signature under the plain name
      const MemLocation loc{1, 3};
      auto advise = fake.F<int (*)(const void*, size_t, int, MemLocation)>("cudaMemAdvise");
      EXPECT_EQ(advise(ptr, count, advice, loc), 0);
      EXPECT_EQ(fake.Arg("cudaMemAdvise", 3), fake.Bytes(loc));
    } else {
      auto advise = fake.F<int (*)(const void*, size_t, int, int)>("cudaMemAdvise");
      EXPECT_EQ(advise(ptr, count, advice, 3), 0);
      EXPECT_EQ(fake.Arg("cudaMemAdvise", 3), fake.Bytes(3));
    }
    EXPECT_EQ(fake.Arg("cudaMemAdvise", 0), fake.Bytes(ptr));
    EXPECT_EQ(fake.Arg("cudaMemAdvise", 1), fake.Bytes(count));
    EXPECT_EQ(fake.Arg("cudaMemAdvise", 2), fake.Bytes(advice));
    EXPECT_TRUE(fake.Arg("cudaMemAdvise", 4).empty());
    EXPECT_TRUE(fake.Arg("cudaMemPrefetchAsync", 0).empty());
    if (f.major == 12) {
      const MemLocation loc{2, 0};
      auto advise = fake.F<int (*)(const void*, size_t, int, MemLocation)>("cudaMemAdvise_v2");
      EXPECT_EQ(advise(ptr, count, advice, loc), 0);
      EXPECT_EQ(fake.Arg("cudaMemAdvise_v2", 3), fake.Bytes(loc));
    }
    // Structs by value larger than two registers (passed in memory).
    const PitchedPtr p{reinterpret_cast<void*>(0x1000), 512, 500, 7};
    const Extent e{500, 7, 3};
    auto memset3d = fake.F<int (*)(PitchedPtr, int, Extent)>("cudaMemset3D");
    EXPECT_EQ(memset3d(p, 0x5a, e), 0);
    EXPECT_EQ(fake.Arg("cudaMemset3D", 0), fake.Bytes(p));
    EXPECT_EQ(fake.Arg("cudaMemset3D", 1), fake.Bytes(0x5a));
    EXPECT_EQ(fake.Arg("cudaMemset3D", 2), fake.Bytes(e));
    // The configured result comes back; the call is still recorded.
    fake.SetResult("cudaMemset3D", 801);
    EXPECT_EQ(memset3d(p, 1, e), 801);
    EXPECT_EQ(fake.Calls("cudaMemset3D"), 2);
    EXPECT_EQ(fake.Arg("cudaMemset3D", 1), fake.Bytes(1));
    EXPECT_STREQ(fake.F<const char* (*)(int)>("cudaGetErrorString")(2), "fake:cudaGetErrorString");
  }
}

TEST(FakeRuntime, WritesInjectedOutputs) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    const int five = 5;
    fake.SetOut("cudaGetDevice", 0, &five, sizeof(five));
    int d = 0;
    auto get_device = fake.F<int (*)(int*)>("cudaGetDevice");
    EXPECT_EQ(get_device(&d), 0);
    EXPECT_EQ(d, 5);
    d = 0;
    EXPECT_EQ(get_device(&d), 0);  // every later call
    EXPECT_EQ(d, 5);
    EXPECT_EQ(get_device(nullptr), 0);  // a NULL pointer is left alone
    // Injection wins over the fake's own answer.
    const int four = 4;
    fake.SetOut("cudaGetDeviceCount", 0, &four, sizeof(four));
    EXPECT_EQ(fake.F<int (*)(int*)>("cudaGetDeviceCount")(&d), 0);
    EXPECT_EQ(d, 4);
    // An index that is not a pointer argument: ignored.
    fake.SetOut("cudaSetDevice", 0, &five, sizeof(five));
    fake.SetOut("cudaSetDevice", 3, &five, sizeof(five));
    EXPECT_EQ(fake.F<int (*)(int)>("cudaSetDevice")(2), 0);
    if (f.major == 11) {
      // 11.x cudaGraphExecUpdate(exec, graph, cudaGraphNode_t* errorNode, enum ...* result):
      // the error outputs a test simulates.
      void* node = reinterpret_cast<void*>(0xdead0);
      const int result = 7;  // cudaGraphExecUpdateErrorAttributesChanged
      fake.SetResult("cudaGraphExecUpdate", 910);
      fake.SetOut("cudaGraphExecUpdate", 2, &node, sizeof(node));
      fake.SetOut("cudaGraphExecUpdate", 3, &result, sizeof(result));
      void* got_node = nullptr;
      int got_result = 0;
      auto update = fake.F<int (*)(void*, void*, void**, int*)>("cudaGraphExecUpdate");
      EXPECT_EQ(update(nullptr, nullptr, &got_node, &got_result), 910);
      EXPECT_EQ(got_node, node);
      EXPECT_EQ(got_result, 7);
    }
  }
}

TEST(FakeRuntime, FillsDeviceProperties) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    // 12.x headers call cudaGetDeviceProperties_v2; 11.x and 13.0 the plain name.
    const char* entry = f.major == 12 ? "cudaGetDeviceProperties_v2" : "cudaGetDeviceProperties";
    alignas(8) unsigned char prop[4096];
    std::memset(prop, 0xee, sizeof(prop));
    EXPECT_EQ(fake.F<int (*)(void*, int)>(entry)(prop, 0), 0);
    EXPECT_EQ(fake.Calls(entry), 1);
    // name (offset 0, char[256]) and totalGlobalMem (offset 288) in every layout since 10.0.
    const std::string name = "cudyn fake runtime " + f.version;
    const char* text = reinterpret_cast<const char*>(prop);
    EXPECT_EQ(std::string(text, strnlen(text, 256)), name);
    for (size_t k = name.size(); k < 256; ++k) ASSERT_EQ(prop[k], 0) << k;
    size_t memory = 0;
    std::memcpy(&memory, prop + 288, sizeof(memory));
    EXPECT_EQ(memory, 85899345920ull);
    // Everything else by field name, through cudaChooseDevice's copy in the fake's own layout.
    EXPECT_EQ(fake.Chosen("major", nullptr, 0), -1);  // no cudaChooseDevice yet
    int device = -1;
    EXPECT_EQ(fake.F<int (*)(int*, const void*)>("cudaChooseDevice")(&device, prop), 0);
    EXPECT_EQ(device, 0);
    int major = -1, minor = -1, sms = -1;
    EXPECT_EQ(fake.Chosen("major", &major, sizeof(major)), 4);
    EXPECT_EQ(fake.Chosen("minor", &minor, sizeof(minor)), 4);
    EXPECT_EQ(fake.Chosen("multiProcessorCount", &sms, sizeof(sms)), 4);
    EXPECT_EQ(major, 9);
    EXPECT_EQ(minor, 0);
    EXPECT_EQ(sms, 132);
    char chosen_name[256];
    EXPECT_EQ(fake.Chosen("name", chosen_name, sizeof(chosen_name)), 256);
    EXPECT_EQ(std::string(chosen_name, strnlen(chosen_name, sizeof(chosen_name))), name);
    for (const char* field : {"warpSize", "maxThreadsDim", "sharedMemPerBlock", "uuid"}) {
      unsigned char bytes[64];
      const int n = fake.Chosen(field, bytes, sizeof(bytes));
      ASSERT_GT(n, 0) << field;
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ(bytes[k], static_cast<unsigned char>(Fnv1a(field) + k)) << field << " " << k;
      }
    }
    // 13.0 removed fields mid-struct; 12.0 appended some.
    EXPECT_EQ(fake.Chosen("clockRate", nullptr, 0), f.major >= 13 ? -1 : 4);
    EXPECT_EQ(fake.Chosen("hostNumaId", nullptr, 0), f.major >= 13 ? 4 : -1);
    EXPECT_EQ(fake.Chosen("memoryPoolsSupported", nullptr, 0), f.major >= 12 ? 4 : -1);
    EXPECT_EQ(fake.Chosen("noSuchField", nullptr, 0), -1);
  }
}

TEST(FakeRuntime, HostStubAbi) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    int fatbin = 0;
    auto reg = fake.F<void** (*)(void*)>("__cudaRegisterFatBinary");
    void** handle = reg(&fatbin);
    EXPECT_NE(handle, nullptr);
    EXPECT_EQ(fake.Arg("__cudaRegisterFatBinary", 0), fake.Bytes(static_cast<void*>(&fatbin)));
    EXPECT_EQ(fake.F<char (*)(void**)>("__cudaInitModule")(handle), 1);
    auto push = fake.F<unsigned (*)(Dim3, Dim3, size_t, void*)>("__cudaPushCallConfiguration");
    auto pop = fake.F<int (*)(Dim3*, Dim3*, size_t*, void*)>("__cudaPopCallConfiguration");
    void* stream = reinterpret_cast<void*>(0x5700);
    EXPECT_EQ(push(Dim3{3, 2, 1}, Dim3{64, 1, 1}, 128, stream), 0u);
    EXPECT_EQ(fake.Arg("__cudaPushCallConfiguration", 0), fake.Bytes(Dim3{3, 2, 1}));
    Dim3 grid{}, block{};
    size_t shared = 0;
    void* got_stream = nullptr;
    EXPECT_EQ(pop(&grid, &block, &shared, &got_stream), 0);
    EXPECT_EQ(grid.x * 100 + grid.y * 10 + grid.z, 321u);
    EXPECT_EQ(block.x, 64u);
    EXPECT_EQ(shared, 128u);
    EXPECT_EQ(got_stream, stream);
    EXPECT_EQ(pop(&grid, &block, &shared, &got_stream), 52);  // nothing pushed
    // An export no header declares: int NAME(void), recorded, configurable.
    auto undeclared = fake.F<int (*)()>("cudaProfilerStart");
    EXPECT_EQ(undeclared(), 0);
    fake.SetResult("cudaProfilerStart", 3);
    EXPECT_EQ(undeclared(), 3);
    EXPECT_EQ(fake.Calls("cudaProfilerStart"), 2);
    if (f.major >= 12) {
      void* kernel = nullptr;
      EXPECT_EQ(fake.F<int (*)(void**, const void*)>("__cudaGetKernel")(&kernel, &fatbin), 0);
      EXPECT_EQ(kernel, static_cast<void*>(&fatbin));
    }
  }
}

// cudaGetLastError / cudaPeekAtLastError: the thread's last non-zero result of any other
// cudaError_t entry (Get clears it, Peek does not), unless a result is configured for them.
TEST(FakeRuntime, KeepsAPerThreadLastError) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    fake.F<void (*)()>("fake_cudart_reset")();
    auto get = fake.F<int (*)()>("cudaGetLastError");
    auto peek = fake.F<int (*)()>("cudaPeekAtLastError");
    auto set_device = fake.F<int (*)(int)>("cudaSetDevice");
    EXPECT_EQ(get(), 0);
    fake.SetResult("cudaSetDevice", 101);
    EXPECT_EQ(set_device(7), 101);
    fake.SetResult("cudaSetDevice", 0);
    EXPECT_EQ(set_device(0), 0);  // a success leaves it
    EXPECT_EQ(peek(), 101);
    EXPECT_EQ(peek(), 101);
    int seen = -1;
    std::thread([&] { seen = peek(); }).join();
    EXPECT_EQ(seen, 0);  // another thread's is its own
    EXPECT_EQ(get(), 101);
    EXPECT_EQ(get(), 0);
    fake.SetResult("cudaGetLastError", 2);  // configured: returned as it is
    EXPECT_EQ(get(), 2);
    fake.SetResult("cudaSetDevice", 101);
    EXPECT_EQ(set_device(7), 101);
    fake.F<void (*)()>("fake_cudart_reset")();  // forgets the calling thread's
    EXPECT_EQ(peek(), 0);
  }
}

TEST(FakeRuntime, ThreadSafe) {
  for (const Fake& f : *g_fakes) {
    SCOPED_TRACE(f.version);
    Loaded fake(f);
    ASSERT_TRUE(fake.ok());
    auto set_device = fake.F<int (*)(int)>("cudaSetDevice");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&fake, set_device, t] {
        for (int i = 0; i < 500; ++i) {
          set_device(t);
          fake.Arg("cudaSetDevice", 0);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(fake.Calls("cudaSetDevice"), 2000);
    const std::vector<unsigned char> last = fake.Arg("cudaSetDevice", 0);
    ASSERT_EQ(last.size(), 4u);
    EXPECT_LT(last[0], 4);
  }
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::string> parts = Split(argv[i], '=');
    if (parts.size() < 4) {
      fprintf(stderr, "bad argument %s: VERSION=SONAME=LIBRARY=EXPORT_LIST[=REGEX,...]\n", argv[i]);
      return 2;
    }
    Fake f;
    f.version = parts[0];
    f.soname = parts[1];
    f.path = parts[2];
    f.exports = parts[3];
    if (parts.size() > 4 && !parts[4].empty()) f.without = Split(parts[4], ',');
    f.major = std::stoi(f.version);
    f.reported = f.major * 1000 + std::stoi(f.version.substr(f.version.find('.') + 1)) * 10;
    g_fakes->push_back(f);
  }
  return RUN_ALL_TESTS();
}
