// libFuzzer target: the runtime (libcudart) loader's SONAME parsing and environment. The input is
// up to nine lines:
//   a SONAME, CUDYN_CUDART_PATH, CUDYN_MAX_CUDA_VERSION, CUDA_HOME, CUDA_PATH, VIRTUAL_ENV,
//   CONDA_PREFIX, CUDYN_LOG, and a last line whose last byte picks the driver version (10.0, 10.1
//   or 10.2: byte % 3) and which, when it starts with "opt", makes the clamp an explicit option.
// ParseCudartSoname gets the first line (invariants checked), then the whole environment path
// runs: Runtime::Open(use_environment) with the fuzzed variables set (empty lines unset them).
// Nothing is ever loaded: CUDYN_CUDART_PATH is either kept relative (rejected without any file
// access) or put under a directory that does not exist, the other paths always are, with ".."
// removed; and a CUDA 10.x driver makes the search look only for libcudart.so.10.x, which exists
// nowhere on the machines this runs on (the default search, site-packages and /usr/local/cuda-*
// are probed: a 10.x runtime there would make Open succeed and the target trap).
//
//
// Adapter mode: an input starting with the line "adapters" drives the conversion adapters of
// loader/cudart_adapters.cc instead. Its next byte picks one of the older fake runtimes named by
// CUDYN_FUZZ_CUDART_FAKES (11.2, 11.8, 12.0, 12.4: tests/fake_runtime, opened once by explicit
// path, over the fake driver of CUDYN_DRIVER_PATH), the next the entry, the rest that entry's
// arguments: fuzzed 13.0 structs (cudaResourceDesc / cudaTextureDesc / cudaResourceViewDesc,
// cudaGraphNodeParams type and union bytes, cudaLaunchConfig_t with at most four attributes, edge
// data for at most four edges) in buffers of exactly their size, and what the fake answers.
// Checked with a trap (the line goes to stderr): the answer is the fake's, or the refusal the
// adapter documents (801 for what the old layout cannot hold: cudaResourceDesc.flags,
// cudaResourceViewDesc.reserved, seamlessCubemap on 11.2, valid non-default edges, a moved child
// graph; 1 for what a 13.0 runtime rejects: unknown node types, non-zero unused bytes, invalid
// edges, removing an edge with a non-default port), and then the
// fake was not called; when it was, the struct it recorded is the field-by-field conversion this
// file computes from the 13.0 header's member names (every shared member at its offset, padding
// and the old layout's own tail zero); outputs (resource descriptors, cudaDeviceProp, edge data)
// carry what the old runtime wrote and zero in every 13.0 field it lacks, nothing on failure;
// cudaChooseDevice's 13.0 cudaDeviceProp reaches the runtime in its layout, field by field.
//
// Build and run: tests/fuzz/run_fuzzer.sh cudart [seconds]. Under Bazel: :cudart_fuzzer_smoke.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loader/cudart.h"
#include "loader/cudart_family.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/util/device_prop_fields.h"

namespace {

std::string WithoutDotDot(std::string path) {
  for (size_t dots; (dots = path.find("..")) != std::string::npos;) path.erase(dots, 2);
  return path;
}

// A directory variable: always under the missing directory (relative ones too, so nothing is
// looked up from the working directory).
std::string Harmless(const std::string& value) {
  if (value.empty()) return value;
  std::string path = WithoutDotDot(value);
  return "/nonexistent-cudyn-fuzz" + (path.empty() || path[0] != '/' ? "/" + path : path);
}

void CheckSoname(const std::string& soname) {
  int family = -2, minor = -2;
  cudyn::ParseCudartSoname(soname, &family, &minor);
  if (family != 0 && (family < 1 || family > 99)) __builtin_trap();
  if (family != 0 && soname.rfind("libcudart.so.", 0) != 0) __builtin_trap();
  if (family == 0 && minor != -1) __builtin_trap();
  // A minor needs a '.' after the major, and is 0..99 or none (-1).
  if (soname.find('.', 13) == std::string::npos && minor != -1) __builtin_trap();
  if (minor < -1 || minor > 99) __builtin_trap();
  int family2 = -2, minor2 = -2;
  cudyn::ParseCudartSoname(soname, &family2, &minor2);
  if (family2 != family || minor2 != minor) __builtin_trap();  // deterministic
  if (family != 0) {  // the canonical spelling parses back to the same facts
    std::string canonical = "libcudart.so." + std::to_string(family);
    if (minor != -1) canonical += "." + std::to_string(minor);
    cudyn::ParseCudartSoname(canonical, &family2, &minor2);
    if (family2 != family || minor2 != minor) __builtin_trap();
  }
}

bool IsLogLevel(const std::string& v) {
  for (const char* level :
       {"trace", "debug", "info", "warn", "warning", "error", "critical", "off"}) {
    if (v == level) return true;
  }
  return false;
}

// ---- adapter mode ----------------------------------------------------------------------------

// A violated invariant: its line on stderr (the smoke test shows it; libFuzzer runs close stderr,
// replay the reproducer to see it), then the trap.
[[noreturn]] __attribute__((noinline)) void FailAt(int line) {
  std::fprintf(stderr, "cudart_fuzzer.cc:%d: adapter-mode invariant violated\n", line);
  __builtin_trap();
}
#define Fail() FailAt(__LINE__)

// The input's bytes in order; past its end, zeros (a short input is a mostly-zero struct).
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  void Fill(void* out, size_t n) {
    auto* p = static_cast<unsigned char*>(out);
    for (size_t k = 0; k < n; ++k) p[k] = Byte();
  }
  template <typename T>
  T Value() {
    T v;
    Fill(&v, sizeof(v));
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A fake runtime of an older family (tests/fake_runtime), opened once by explicit path, and its
// control API.
struct Fake {
  std::unique_ptr<cudyn::Runtime> rt;
  std::string version;  // "11.2", from the fake's directory name
  void (*reset)();
  void (*set_result)(const char*, int);
  int (*count)(const char*);
  int (*last_arg)(const char*, int, void*, size_t);
  int (*pointee)(const char*, int, void*, size_t);
  void (*set_out)(const char*, int, const void*, size_t);
  bool Has(const char* symbol) const { return dlsym(rt->handle(), symbol) != nullptr; }
  template <typename T>
  T Arg(const char* symbol, int index) const {
    T v{};
    if (last_arg(symbol, index, &v, sizeof(v)) != static_cast<int>(sizeof(v))) Fail();
    return v;
  }
};

template <typename Fn>
void Bind(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*fn == nullptr) Fail();
}

bool g_fakes_loaded = false;  // the environment mode then sees them as already loaded

// The fakes named by CUDYN_FUZZ_CUDART_FAKES (':'-separated paths .../<version>/<soname>, set by
// run_fuzzer.sh and the smoke test), over the fake driver CUDYN_DRIVER_PATH names.
std::vector<Fake>& Fakes() {
  static std::vector<Fake>* fakes = [] {
    auto* out = new std::vector<Fake>;
    const char* list = std::getenv("CUDYN_FUZZ_CUDART_FAKES");
    if (list == nullptr || std::getenv("CUDYN_DRIVER_PATH") == nullptr) Fail();
    // The environment mode's variables must not reach the driver's one-time open.
    for (const char* v : {"CUDYN_MAX_CUDA_VERSION", "CUDYN_CUDART_PATH", "CUDA_HOME", "CUDA_PATH",
                          "VIRTUAL_ENV", "CONDA_PREFIX"}) {
      unsetenv(v);
    }
    g_fakes_loaded = true;
    std::string all = list;
    for (size_t at = 0; at <= all.size();) {
      size_t end = all.find(':', at);
      if (end == std::string::npos) end = all.size();
      const std::string path = all.substr(at, end - at);
      at = end + 1;
      if (path.empty()) continue;
      Fake f;
      cudyn::RuntimeOptions o;
      o.runtime_path = path;
      f.rt = cudyn::Runtime::Open(o);
      if (f.rt == nullptr || !f.rt->ok() || f.rt->family() >= 13) Fail();
      const size_t slash = path.rfind('/');
      const size_t dir = path.rfind('/', slash - 1);
      f.version = path.substr(dir + 1, slash - dir - 1);
      Bind(f.rt->handle(), "fake_cudart_reset", &f.reset);
      Bind(f.rt->handle(), "fake_cudart_set_result", &f.set_result);
      Bind(f.rt->handle(), "fake_cudart_call_count", &f.count);
      Bind(f.rt->handle(), "fake_cudart_last_arg", &f.last_arg);
      Bind(f.rt->handle(), "fake_cudart_last_pointee", &f.pointee);
      Bind(f.rt->handle(), "fake_cudart_set_out", &f.set_out);
      out->push_back(std::move(f));
    }
    if (out->empty()) Fail();
    return out;
  }();
  return *fakes;
}

// An entry the runtime may leave missing: composed only on 11.x (12.0 has no typed node calls
// cudyn composes from, and no cudaGraphAddNode).
template <typename Fn>
Fn ComposedEntry(Fake& f, int index) {
  auto fn = reinterpret_cast<Fn>(f.rt->Resolve(index));
  if (fn == nullptr && f.rt->family() <= 11) Fail();
  return fn;
}

template <typename Fn>
Fn Entry(Fake& f, int index) {
  auto fn = reinterpret_cast<Fn>(f.rt->Resolve(index));
  if (fn == nullptr) Fail();  // every entry below is served on every older family
  return fn;
}

// What the fake answers when reached: success mostly, else an error a runtime could give
// (cudaErrorMemoryAllocation, cudaErrorInvalidResourceHandle).
int FakeResult(Bytes& in) {
  static constexpr int kResults[] = {0, 0, 0, 2, 400};
  return kResults[in.Byte() % 5];
}

bool Zero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t k = 0; k < n; ++k) {
    if (b[k] != 0) return false;
  }
  return true;
}

// Copies member `field` of struct T from `in` to `out`, both in the 13.0 layout: the field-by-field
// conversions below are written from the 13.0 header's member names, not from cudyn's tables.
#define CUDYN_COPY(T, field, out, in)                                          \
  std::memcpy(static_cast<unsigned char*>(out) + offsetof(T, field),           \
              reinterpret_cast<const unsigned char*>(in) + offsetof(T, field), \
              sizeof(static_cast<T*>(nullptr)->field))

// The layouts before 13.0 (11.2, 11.8, 12.4 driver_types.h): every member below sits at its 13.0
// offset; cudaResourceDesc ends after its 56-B union (no res.reserved beyond it, no flags),
// cudaResourceViewDesc before reserved[16], 11.x's cudaTextureDesc before seamlessCubemap.
constexpr size_t kOldResourceDescSize = offsetof(cudaResourceDesc, res) + 56;
constexpr size_t kOldViewDescSize = offsetof(cudaResourceViewDesc, reserved);
constexpr size_t kOldTextureDescSize11 = offsetof(cudaTextureDesc, seamlessCubemap);

void ResourceDescFields(void* out, const void* in) {
  CUDYN_COPY(cudaResourceDesc, resType, out, in);
  CUDYN_COPY(cudaResourceDesc, res.array.array, out, in);
  CUDYN_COPY(cudaResourceDesc, res.mipmap.mipmap, out, in);
  CUDYN_COPY(cudaResourceDesc, res.linear.devPtr, out, in);
  CUDYN_COPY(cudaResourceDesc, res.linear.desc, out, in);
  CUDYN_COPY(cudaResourceDesc, res.linear.sizeInBytes, out, in);
  CUDYN_COPY(cudaResourceDesc, res.pitch2D.devPtr, out, in);
  CUDYN_COPY(cudaResourceDesc, res.pitch2D.desc, out, in);
  CUDYN_COPY(cudaResourceDesc, res.pitch2D.width, out, in);
  CUDYN_COPY(cudaResourceDesc, res.pitch2D.height, out, in);
  CUDYN_COPY(cudaResourceDesc, res.pitch2D.pitchInBytes, out, in);
}
void ViewDescFields(void* out, const void* in) {
  CUDYN_COPY(cudaResourceViewDesc, format, out, in);
  CUDYN_COPY(cudaResourceViewDesc, width, out, in);
  CUDYN_COPY(cudaResourceViewDesc, height, out, in);
  CUDYN_COPY(cudaResourceViewDesc, depth, out, in);
  CUDYN_COPY(cudaResourceViewDesc, firstMipmapLevel, out, in);
  CUDYN_COPY(cudaResourceViewDesc, lastMipmapLevel, out, in);
  CUDYN_COPY(cudaResourceViewDesc, firstLayer, out, in);
  CUDYN_COPY(cudaResourceViewDesc, lastLayer, out, in);
}
void TextureDescFields(void* out, const void* in, bool seamless) {
  CUDYN_COPY(cudaTextureDesc, addressMode, out, in);
  CUDYN_COPY(cudaTextureDesc, filterMode, out, in);
  CUDYN_COPY(cudaTextureDesc, readMode, out, in);
  CUDYN_COPY(cudaTextureDesc, sRGB, out, in);
  CUDYN_COPY(cudaTextureDesc, borderColor, out, in);
  CUDYN_COPY(cudaTextureDesc, normalizedCoords, out, in);
  CUDYN_COPY(cudaTextureDesc, maxAnisotropy, out, in);
  CUDYN_COPY(cudaTextureDesc, mipmapFilterMode, out, in);
  CUDYN_COPY(cudaTextureDesc, mipmapLevelBias, out, in);
  CUDYN_COPY(cudaTextureDesc, minMipmapLevelClamp, out, in);
  CUDYN_COPY(cudaTextureDesc, maxMipmapLevelClamp, out, in);
  CUDYN_COPY(cudaTextureDesc, disableTrilinearOptimization, out, in);
  if (seamless) CUDYN_COPY(cudaTextureDesc, seamlessCubemap, out, in);
}

// The struct the fake recorded for `symbol`'s argument `index` equals `want` (its size too).
void ExpectPointee(Fake& f, const char* symbol, int index, const void* want, size_t size) {
  unsigned char got[512];
  if (size > sizeof(got)) Fail();
  if (f.pointee(symbol, index, got, sizeof(got)) != static_cast<int>(size)) Fail();
  if (std::memcmp(got, want, size) != 0) Fail();
}

// A fuzzed struct whose "must be zero" parts are cleared unless `keep` (else nearly every input
// would only exercise the refusal).
template <typename T>
void FuzzStruct(Bytes& in, T* out) {
  std::memset(static_cast<void*>(out), 0, sizeof(*out));
  in.Fill(out, sizeof(*out));
}

void CreateTexture(Fake& f, Bytes& in) {
  const uint8_t shape = in.Byte();
  cudaResourceDesc res;
  cudaTextureDesc tex;
  cudaResourceViewDesc view;
  FuzzStruct(in, &res);
  FuzzStruct(in, &tex);
  FuzzStruct(in, &view);
  if ((shape & 8) == 0) res.flags = 0;
  if ((shape & 16) == 0) tex.seamlessCubemap &= 1;
  if ((shape & 32) == 0) std::memset(view.reserved, 0, sizeof(view.reserved));
  const cudaResourceDesc* pres = (shape & 1) ? nullptr : &res;
  const cudaTextureDesc* ptex = (shape & 2) ? nullptr : &tex;
  const cudaResourceViewDesc* pview = (shape & 4) ? nullptr : &view;
  // 11.6+ runtimes take the 72-B descriptor through cudaCreateTextureObject_v2; older 11.x ones a
  // 68-B one without seamlessCubemap; 12.x the 72-B one under the plain name.
  const bool v2 = f.rt->family() == 11 && f.Has("cudaCreateTextureObject_v2");
  const char* sym = v2 ? "cudaCreateTextureObject_v2" : "cudaCreateTextureObject";
  const bool seamless = v2 || f.rt->family() == 12;
  const int result = FakeResult(in);
  f.set_result(sym, result);
  cudaTextureObject_t object = 0;
  const int rc = Entry<decltype(&cudaCreateTextureObject)>(f, cudyn::kCudart_cudaCreateTextureObject)(
      &object, pres, ptex, pview);
  const bool refused = (pres != nullptr && res.flags != 0) ||
                       (ptex != nullptr && !seamless && tex.seamlessCubemap != 0) ||
                       (pview != nullptr && !Zero(view.reserved, sizeof(view.reserved)));
  if (refused) {
    if (rc != cudaErrorNotSupported || f.count(sym) != 0) Fail();
    return;
  }
  if (rc != result || f.count(sym) != 1) Fail();
  if (f.Arg<cudaTextureObject_t*>(sym, 0) != &object) Fail();
  unsigned char want[sizeof(cudaResourceDesc)] = {};
  if (pres != nullptr) {
    ResourceDescFields(want, &res);
    ExpectPointee(f, sym, 1, want, kOldResourceDescSize);
  } else if (f.Arg<const void*>(sym, 1) != nullptr) {
    Fail();
  }
  if (ptex != nullptr) {
    std::memset(want, 0, sizeof(want));
    TextureDescFields(want, &tex, seamless);
    ExpectPointee(f, sym, 2, want, seamless ? sizeof(cudaTextureDesc) : kOldTextureDescSize11);
  } else if (f.Arg<const void*>(sym, 2) != nullptr) {
    Fail();
  }
  if (pview != nullptr) {
    std::memset(want, 0, sizeof(want));
    ViewDescFields(want, &view);
    ExpectPointee(f, sym, 3, want, kOldViewDescSize);
  } else if (f.Arg<const void*>(sym, 3) != nullptr) {
    Fail();
  }
}

void CreateSurface(Fake& f, Bytes& in) {
  const uint8_t shape = in.Byte();
  cudaResourceDesc res;
  FuzzStruct(in, &res);
  if ((shape & 8) == 0) res.flags = 0;
  const char* sym = "cudaCreateSurfaceObject";
  const int result = FakeResult(in);
  f.set_result(sym, result);
  cudaSurfaceObject_t object = 0;
  const bool null = (shape & 1) != 0;
  const int rc = Entry<decltype(&cudaCreateSurfaceObject)>(f, cudyn::kCudart_cudaCreateSurfaceObject)(
      &object, null ? nullptr : &res);
  if (!null && res.flags != 0) {
    if (rc != cudaErrorNotSupported || f.count(sym) != 0) Fail();
    return;
  }
  if (rc != result || f.count(sym) != 1) Fail();
  if (null) {
    if (f.Arg<const void*>(sym, 1) != nullptr) Fail();
    return;
  }
  unsigned char want[sizeof(cudaResourceDesc)] = {};
  ResourceDescFields(want, &res);
  ExpectPointee(f, sym, 1, want, kOldResourceDescSize);
}

// Out direction: the fake writes a fuzzed old-layout descriptor; the caller's 13.0 struct gets
// each member at its offset and zero everywhere else (flags, res.reserved, padding).
void GetResourceDesc(Fake& f, Bytes& in) {
  const bool surface = (in.Byte() & 1) != 0;
  const char* sym = surface ? "cudaGetSurfaceObjectResourceDesc" : "cudaGetTextureObjectResourceDesc";
  unsigned char old[kOldResourceDescSize];
  in.Fill(old, sizeof(old));
  const unsigned long long object = in.Value<unsigned long long>();
  const uint8_t garbage = in.Byte() | 1;
  const int result = FakeResult(in);
  f.set_result(sym, result);
  f.set_out(sym, 0, old, sizeof(old));
  cudaResourceDesc out;
  std::memset(static_cast<void*>(&out), garbage, sizeof(out));
  const int rc =
      surface ? Entry<decltype(&cudaGetSurfaceObjectResourceDesc)>(
                    f, cudyn::kCudart_cudaGetSurfaceObjectResourceDesc)(&out, object)
              : Entry<decltype(&cudaGetTextureObjectResourceDesc)>(
                    f, cudyn::kCudart_cudaGetTextureObjectResourceDesc)(&out, object);
  if (rc != result || f.count(sym) != 1) Fail();
  if (f.Arg<unsigned long long>(sym, 1) != object) Fail();
  unsigned char want[sizeof(cudaResourceDesc)];
  if (result != 0) {
    std::memset(want, garbage, sizeof(want));  // nothing written on failure
  } else {
    std::memset(want, 0, sizeof(want));
    ResourceDescFields(want, old);
  }
  if (std::memcmp(&out, want, sizeof(want)) != 0) Fail();
}

// The fake's cudaDeviceProp fill (fake_runtime_control.h): byte k of field F is the low byte of
// fnv1a32(F) + k, but for the fields it sets to fixed values.
uint32_t Fnv1a32(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; ++s) h = (h ^ static_cast<uint8_t>(*s)) * 16777619u;
  return h;
}
void FakePropField(const std::string& version, const char* name, int size, unsigned char* out) {
  const std::string field = name;
  auto put = [&](auto v) {
    if (static_cast<int>(sizeof(v)) != size) Fail();
    std::memcpy(out, &v, sizeof(v));
  };
  if (field == "name") {
    std::memset(out, 0, size);
    const std::string text = "cudyn fake runtime " + version;
    std::memcpy(out, text.data(), text.size());
  } else if (field == "major") {
    put(int{9});
  } else if (field == "minor") {
    put(int{0});
  } else if (field == "multiProcessorCount") {
    put(int{132});
  } else if (field == "totalGlobalMem") {
    put(size_t{85899345920ull});
  } else {
    const uint32_t h = Fnv1a32(name);
    for (int k = 0; k < size; ++k) out[k] = static_cast<unsigned char>(h + k);
  }
}

// Out direction, every field: what the older layout has comes back (the fake's fill), what it
// lacks and the padding read zero; the field list (names, 13.0 offsets, presence in each family)
// is the generated table of the real headers' facts.
using cudyn::testing::kPropFields;
using cudyn::testing::PropField;
using cudyn::testing::PropSize;

void DeviceProperties(Fake& f, Bytes& in) {
  const int device = in.Value<int>();
  const uint8_t garbage = in.Byte() | 1;
  const int result = FakeResult(in);
  // 12.x runtimes answer through cudaGetDeviceProperties_v2 (their 1032-B layout).
  const char* sym =
      f.Has("cudaGetDeviceProperties_v2") ? "cudaGetDeviceProperties_v2" : "cudaGetDeviceProperties";
  f.set_result(sym, result);
  cudaDeviceProp prop;
  std::memset(static_cast<void*>(&prop), garbage, sizeof(prop));
  const int rc =
      Entry<decltype(&cudaGetDeviceProperties)>(f, cudyn::kCudart_cudaGetDeviceProperties)(&prop, device);
  if (rc != result || f.count(sym) != 1 || f.Arg<int>(sym, 1) != device) Fail();
  static unsigned char want[sizeof(cudaDeviceProp)];
  std::memset(want, result != 0 ? garbage : 0, sizeof(want));
  if (result == 0) {
    for (const PropField& p : kPropFields) {
      if ((f.rt->family() == 12 ? p.off12 : p.off11) < 0) continue;  // absent: zero
      FakePropField(f.version, p.name, p.size, want + p.off13);
    }
  }
  if (std::memcmp(&prop, want, sizeof(want)) != 0) Fail();
}

// In direction (cudaChooseDevice): the fuzzed 13.0 cudaDeviceProp reaches the runtime in its own
// layout, every field it has at its offset, the rest of its struct zero; NULL passes on as NULL.
void ChooseDevice(Fake& f, Bytes& in) {
  const bool null_prop = (in.Byte() & 7) == 0;
  const int result = FakeResult(in);
  f.set_result("cudaChooseDevice", result);
  cudaDeviceProp prop;
  in.Fill(&prop, sizeof(prop));  // past the input's end: zero
  int device = -7;
  const int rc = Entry<decltype(&cudaChooseDevice)>(f, cudyn::kCudart_cudaChooseDevice)(
      &device, null_prop ? nullptr : &prop);
  if (rc != result || f.count("cudaChooseDevice") != 1) Fail();
  if (f.Arg<int*>("cudaChooseDevice", 0) != &device) Fail();
  if (null_prop) {
    if (f.Arg<const void*>("cudaChooseDevice", 1) != nullptr) Fail();
    return;
  }
  const int family = f.rt->family();
  const int size = PropSize(family == 12 ? 12 : 11);
  std::vector<unsigned char> got(size), want(size, 0);
  if (f.pointee("cudaChooseDevice", 1, got.data(), got.size()) != size) Fail();
  const auto* from = reinterpret_cast<const unsigned char*>(&prop);
  for (const PropField& p : kPropFields) {
    const int off = family == 12 ? p.off12 : p.off11;
    if (off >= 0) std::memcpy(want.data() + off, from + p.off13, p.size);
  }
  if (got != want) Fail();
}

// Storage for a cudaGraphNodeParams (its union's members have constructors, so the struct has no
// default constructor or copy); copies are byte copies.
struct NodeParamsBytes {
  alignas(cudaGraphNodeParams) unsigned char bytes[sizeof(cudaGraphNodeParams)];
  cudaGraphNodeParams& get() { return *reinterpret_cast<cudaGraphNodeParams*>(bytes); }
};

// The bytes of the union member a 13.0 node type uses, or -1 for a type 13.0 does not know.
int MemberSize(int type) {
  const cudaGraphNodeParams* p = nullptr;
  switch (type) {
    case cudaGraphNodeTypeKernel: return sizeof(p->kernel);
    case cudaGraphNodeTypeMemcpy: return sizeof(p->memcpy);
    case cudaGraphNodeTypeMemset: return sizeof(p->memset);
    case cudaGraphNodeTypeHost: return sizeof(p->host);
    case cudaGraphNodeTypeGraph: return sizeof(p->graph);
    case cudaGraphNodeTypeEmpty: return 0;
    case cudaGraphNodeTypeWaitEvent: return sizeof(p->eventWait);
    case cudaGraphNodeTypeEventRecord: return sizeof(p->eventRecord);
    case cudaGraphNodeTypeExtSemaphoreSignal: return sizeof(p->extSemSignal);
    case cudaGraphNodeTypeExtSemaphoreWait: return sizeof(p->extSemWait);
    case cudaGraphNodeTypeMemAlloc: return sizeof(p->alloc);
    case cudaGraphNodeTypeMemFree: return sizeof(p->free);
    case cudaGraphNodeTypeConditional: return sizeof(p->conditional);
    default: return -1;
  }
}

// A fuzzed cudaGraphNodeParams: a type (mostly one 13.0 knows), its member's bytes, and, when
// `dirty`, one stray byte among reserved0, reserved2 and the union past the member.
void FuzzNodeParams(Bytes& in, cudaGraphNodeParams* p, int* type) {
  const uint8_t t = in.Byte();
  const uint8_t dirt = in.Byte();
  std::memset(static_cast<void*>(p), 0, sizeof(*p));
  *type = t < 0xf0 ? t % 14 : static_cast<int>(static_cast<int8_t>(t));
  std::memcpy(&p->type, type, sizeof(int));
  const int used = MemberSize(*type);
  auto* bytes = reinterpret_cast<unsigned char*>(p);
  const size_t union_at = offsetof(cudaGraphNodeParams, reserved1);
  in.Fill(bytes + union_at, used > 0 ? used : 0);
  if (*type == cudaGraphNodeTypeMemcpy && (dirt & 2) == 0) {
    p->memcpy.flags = 0;
    std::memset(p->memcpy.reserved, 0, sizeof(p->memcpy.reserved));
  }
  if (*type == cudaGraphNodeTypeGraph) {
    const int ownership = in.Byte() % 3;
    std::memcpy(&p->graph.ownership, &ownership, sizeof(int));
  }
  if ((dirt & 1) != 0) {
    // Any byte of the struct but the type and the member in use.
    const size_t k = in.Byte() % sizeof(*p);
    const bool in_member = k >= union_at && k < union_at + (used > 0 ? used : 0);
    if (k >= sizeof(int) && !in_member) bytes[k] = in.Byte() | 1;
  }
}

// What a 13.0 runtime checks first: a known type and zero in reserved0, reserved2 and the union
// past the member the type uses.
bool NodeParamsValid(const cudaGraphNodeParams& p, int type) {
  const int used = MemberSize(type);
  if (used < 0) return false;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&p);
  const size_t union_at = offsetof(cudaGraphNodeParams, reserved1);
  return Zero(p.reserved0, sizeof(p.reserved0)) && p.reserved2 == 0 &&
         Zero(bytes + union_at + used, sizeof(p.reserved1) - used);
}

// The typed call's struct expected for a node, from the 13.0 member (zero where that struct has
// padding); false for a type whose typed call takes no struct checked here.
bool TypedStruct(const cudaGraphNodeParams& p, int type, unsigned char* want, size_t* size) {
  std::memset(want, 0, 256);
  switch (type) {
    case cudaGraphNodeTypeKernel:
      *size = sizeof(cudaKernelNodeParams);
      CUDYN_COPY(cudaKernelNodeParams, func, want, &p.kernel);
      CUDYN_COPY(cudaKernelNodeParams, gridDim, want, &p.kernel);
      CUDYN_COPY(cudaKernelNodeParams, blockDim, want, &p.kernel);
      CUDYN_COPY(cudaKernelNodeParams, sharedMemBytes, want, &p.kernel);
      CUDYN_COPY(cudaKernelNodeParams, kernelParams, want, &p.kernel);
      CUDYN_COPY(cudaKernelNodeParams, extra, want, &p.kernel);
      return true;
    case cudaGraphNodeTypeMemcpy:  // passed through: the caller's bytes
      *size = sizeof(cudaMemcpy3DParms);
      std::memcpy(want, &p.memcpy.copyParams, *size);
      return true;
    case cudaGraphNodeTypeMemset:
      *size = sizeof(cudaMemsetParams);
      CUDYN_COPY(cudaMemsetParams, dst, want, &p.memset);
      CUDYN_COPY(cudaMemsetParams, pitch, want, &p.memset);
      CUDYN_COPY(cudaMemsetParams, value, want, &p.memset);
      CUDYN_COPY(cudaMemsetParams, elementSize, want, &p.memset);
      CUDYN_COPY(cudaMemsetParams, width, want, &p.memset);
      CUDYN_COPY(cudaMemsetParams, height, want, &p.memset);
      return true;
    case cudaGraphNodeTypeHost:
      *size = sizeof(cudaHostNodeParams);
      CUDYN_COPY(cudaHostNodeParams, fn, want, &p.host);
      CUDYN_COPY(cudaHostNodeParams, userData, want, &p.host);
      return true;
    case cudaGraphNodeTypeExtSemaphoreSignal:
    case cudaGraphNodeTypeExtSemaphoreWait:  // the same three fields at the same offsets
      *size = sizeof(cudaExternalSemaphoreSignalNodeParams);
      CUDYN_COPY(cudaExternalSemaphoreSignalNodeParams, extSemArray, want, &p.extSemSignal);
      CUDYN_COPY(cudaExternalSemaphoreSignalNodeParams, paramsArray, want, &p.extSemSignal);
      CUDYN_COPY(cudaExternalSemaphoreSignalNodeParams, numExtSems, want, &p.extSemSignal);
      return true;
    default:
      return false;
  }
}

// The runtime's typed add call of each node type (nullptr: served by the driver, not checked).
const char* TypedAdd(int type) {
  switch (type) {
    case cudaGraphNodeTypeKernel: return "cudaGraphAddKernelNode";
    case cudaGraphNodeTypeMemcpy: return "cudaGraphAddMemcpyNode";
    case cudaGraphNodeTypeMemset: return "cudaGraphAddMemsetNode";
    case cudaGraphNodeTypeHost: return "cudaGraphAddHostNode";
    case cudaGraphNodeTypeGraph: return "cudaGraphAddChildGraphNode";
    case cudaGraphNodeTypeEmpty: return "cudaGraphAddEmptyNode";
    case cudaGraphNodeTypeWaitEvent: return "cudaGraphAddEventWaitNode";
    case cudaGraphNodeTypeEventRecord: return "cudaGraphAddEventRecordNode";
    case cudaGraphNodeTypeExtSemaphoreSignal: return "cudaGraphAddExternalSemaphoresSignalNode";
    case cudaGraphNodeTypeExtSemaphoreWait: return "cudaGraphAddExternalSemaphoresWaitNode";
    default: return nullptr;
  }
}

// Up to four dependencies (fuzzed handles) and, maybe, edge data for each (fuzzed, mostly zero,
// or one edge made of small port / type / reserved values, so that valid non-default edges
// occur), and what the runtime's cudaGraphNodeGetType says of every node (read only where an
// edge is not the default).
struct Deps {
  cudaGraphNode_t nodes[8];  // from = nodes, to = nodes + 1: both n long
  cudaGraphEdgeData edges[4];
  size_t n;
  bool with_edges;
  bool default_edges;
  bool nodes_are_kernels;  // cudaGraphNodeGetType answers 0 and cudaGraphNodeTypeKernel
};
void FuzzDeps(Bytes& in, Deps* d) {
  const uint8_t shape = in.Byte();
  d->n = shape % 5;
  d->with_edges = (shape & 8) != 0;
  std::memset(d->edges, 0, sizeof(d->edges));
  for (size_t k = 0; k < 8; ++k) d->nodes[k] = reinterpret_cast<cudaGraphNode_t>(0x1000 + k);
  if ((shape & 16) != 0 && d->n > 0) {
    cudaGraphEdgeData& e = d->edges[in.Byte() % d->n];
    if ((shape & 32) != 0) {
      const uint8_t b = in.Byte();
      e.from_port = b & 3;
      e.type = (b >> 2) & 3;
      e.to_port = (b >> 4) & 1;
      e.reserved[4] = (b >> 5) & 1;
    } else {
      in.Fill(&e, sizeof(e));
    }
  }
  d->default_edges = !d->with_edges || Zero(d->edges, d->n * sizeof(d->edges[0]));
  d->nodes_are_kernels = false;
}

// The runtime's node types (fuzzed: a kernel, another type, or an error), for non-default edges.
void FuzzNodeTypes(Fake& f, Bytes& in, Deps* d) {
  if (d->default_edges) return;
  const uint8_t kind = in.Byte() % 3;
  const int type = kind == 0 ? cudaGraphNodeTypeKernel : cudaGraphNodeTypeMemcpy;
  f.set_out("cudaGraphNodeGetType", 1, &type, sizeof(type));
  f.set_result("cudaGraphNodeGetType", kind == 2 ? cudaErrorInvalidValue : 0);
  d->nodes_are_kernels = kind == 0;
}

// What a runtime with default edges only must answer for edges into a graph, by the 13.0
// runtime's rules (cudaGraphEdgeData's documentation; the 13.0 runtime on a GPU,
// tests/gpu/RESULTS.md): 0 to pass default edges on, 1 for an invalid edge, 801 for a valid
// non-default one. The valid (from_port, type) pairs: (Default, Default), (LaunchCompletion,
// Default), (Programmatic, Programmatic), (LaunchCompletion, Programmatic); a non-default pair
// only out of a kernel node, the Programmatic type only into one.
int ExpectedEdgesIn(const Deps& d, bool to_kernel) {
  if (d.default_edges) return 0;
  for (size_t k = 0; k < d.n; ++k) {
    const cudaGraphEdgeData& e = d.edges[k];
    const int pair = e.type < 10 ? e.from_port * 10 + e.type : -1;
    const bool valid_pair = pair == 0 || pair == 20 || pair == 11 || pair == 21;
    if (!valid_pair || e.to_port != 0 || !Zero(e.reserved, sizeof(e.reserved))) return 1;
    if (pair == 0) continue;
    if (!d.nodes_are_kernels) return 1;
    if (e.type == cudaGraphDependencyTypeProgrammatic && !to_kernel) return 1;
  }
  return cudaErrorNotSupported;
}

// cudaGraphAddNode where the runtime lacks it (before 12.2): composed from the typed calls.
void GraphAddNode(Fake& f, Bytes& in) {
  NodeParamsBytes storage;
  cudaGraphNodeParams& p = storage.get();
  int type = 0;
  FuzzNodeParams(in, &p, &type);
  Deps d;
  FuzzDeps(in, &d);
  FuzzNodeTypes(f, in, &d);
  const int result = FakeResult(in);
  const char* typed = TypedAdd(type);
  if (typed != nullptr) f.set_result(typed, result);
  const bool composed = !f.Has("cudaGraphAddNode");
  cudaGraphNode_t node = nullptr;
  const auto graph = reinterpret_cast<cudaGraph_t>(0x6000);
  NodeParamsBytes before_storage = storage;
  const cudaGraphNodeParams& before = before_storage.get();
  auto add = ComposedEntry<decltype(&cudaGraphAddNode)>(f, cudyn::kCudart_cudaGraphAddNode);
  if (add == nullptr) return;
  const int rc =
      add(&node, graph, d.n ? d.nodes : nullptr, d.with_edges ? d.edges : nullptr, d.n, &p);
  if (!composed) {
    if (rc != result && rc != 0 && rc != cudaErrorInvalidValue && rc != cudaErrorNotSupported) {
      Fail();
    }
    return;
  }
  const int reached = typed != nullptr ? f.count(typed) : 0;
  // The adapter's order: the common checks, the edges, then the member's own "must be zero".
  if (!NodeParamsValid(before, type)) {
    if (rc != cudaErrorInvalidValue || reached != 0) Fail();
    return;
  }
  if (const int edges = ExpectedEdgesIn(d, type == cudaGraphNodeTypeKernel); edges != 0) {
    if (rc != edges || reached != 0) Fail();  // before 12.3: default edges only
    return;
  }
  if (type == cudaGraphNodeTypeMemcpy &&
      (before.memcpy.flags != 0 || !Zero(before.memcpy.reserved, sizeof(before.memcpy.reserved)))) {
    if (rc != cudaErrorInvalidValue || reached != 0) Fail();
    return;
  }
  int ownership = 0;
  std::memcpy(&ownership, &before.graph.ownership, sizeof(int));
  if (type == cudaGraphNodeTypeGraph && ownership == cudaGraphChildGraphOwnershipMove) {
    if (rc != cudaErrorNotSupported || reached != 0) Fail();
    return;
  }
  if (typed == nullptr || !f.Has(typed)) {  // driver-served (alloc, free, conditional)
    if (rc != 0 && rc != cudaErrorInsufficientDriver && rc != cudaErrorNotSupported) {
      Fail();
    }
    return;
  }
  if (rc != result || reached != 1) Fail();
  if (f.Arg<cudaGraphNode_t*>(typed, 0) != &node || f.Arg<cudaGraph_t>(typed, 1) != graph ||
      f.Arg<const cudaGraphNode_t*>(typed, 2) != (d.n ? d.nodes : nullptr) ||
      f.Arg<size_t>(typed, 3) != d.n) {
    Fail();
  }
  unsigned char want[256];
  size_t size = 0;
  if (TypedStruct(before, type, want, &size)) ExpectPointee(f, typed, 4, want, size);
  if (type == cudaGraphNodeTypeGraph && f.Arg<cudaGraph_t>(typed, 4) != before.graph.graph) {
    Fail();
  }
  if (type == cudaGraphNodeTypeWaitEvent &&
      f.Arg<cudaEvent_t>(typed, 4) != before.eventWait.event) {
    Fail();
  }
  if (type == cudaGraphNodeTypeEventRecord &&
      f.Arg<cudaEvent_t>(typed, 4) != before.eventRecord.event) {
    Fail();
  }
}

// cudaGraphNodeSetParams / cudaGraphExecNodeSetParams before 12.2: the typed setters.
void GraphNodeSetParams(Fake& f, Bytes& in) {
  const bool exec = (in.Byte() & 1) != 0;
  NodeParamsBytes storage;
  cudaGraphNodeParams& p = storage.get();
  int type = 0;
  FuzzNodeParams(in, &p, &type);
  const int result = FakeResult(in);
  const char* typed = nullptr;
  switch (type) {
    case cudaGraphNodeTypeKernel: typed = exec ? "cudaGraphExecKernelNodeSetParams" : "cudaGraphKernelNodeSetParams"; break;
    case cudaGraphNodeTypeMemcpy: typed = exec ? "cudaGraphExecMemcpyNodeSetParams" : "cudaGraphMemcpyNodeSetParams"; break;
    case cudaGraphNodeTypeMemset: typed = exec ? "cudaGraphExecMemsetNodeSetParams" : "cudaGraphMemsetNodeSetParams"; break;
    case cudaGraphNodeTypeHost: typed = exec ? "cudaGraphExecHostNodeSetParams" : "cudaGraphHostNodeSetParams"; break;
    default: break;
  }
  if (typed != nullptr) f.set_result(typed, result);
  NodeParamsBytes before_storage = storage;
  const cudaGraphNodeParams& before = before_storage.get();
  const auto node = reinterpret_cast<cudaGraphNode_t>(0x7000);
  const auto graph_exec = reinterpret_cast<cudaGraphExec_t>(0x8000);
  auto exec_set = ComposedEntry<decltype(&cudaGraphExecNodeSetParams)>(
      f, cudyn::kCudart_cudaGraphExecNodeSetParams);
  auto set =
      ComposedEntry<decltype(&cudaGraphNodeSetParams)>(f, cudyn::kCudart_cudaGraphNodeSetParams);
  if ((exec && exec_set == nullptr) || (!exec && set == nullptr)) return;
  const int rc = exec ? exec_set(graph_exec, node, &p) : set(node, &p);
  if (f.Has("cudaGraphNodeSetParams")) {  // native (12.2+)
    if (rc != result && rc != 0 && rc != cudaErrorInvalidValue && rc != cudaErrorNotSupported) {
      Fail();
    }
    return;
  }
  const int reached = typed != nullptr ? f.count(typed) : 0;
  if (!NodeParamsValid(before, type) ||
      (type == cudaGraphNodeTypeMemcpy && (before.memcpy.flags != 0 ||
                                           !Zero(before.memcpy.reserved,
                                                 sizeof(before.memcpy.reserved))))) {
    if (rc != cudaErrorInvalidValue || reached != 0) Fail();
    return;
  }
  if (typed == nullptr) {  // other types: an answer a 13.0 runtime could give, nothing checked
    if (rc < 0 || (rc > 2 && rc != cudaErrorInsufficientDriver && rc != cudaErrorNotSupported &&
                   rc != 400)) {
      Fail();
    }
    return;
  }
  if (rc != result || reached != 1) Fail();
  const int at = exec ? 2 : 1;
  if (exec && f.Arg<cudaGraphExec_t>(typed, 0) != graph_exec) Fail();
  if (f.Arg<cudaGraphNode_t>(typed, at - 1) != node) Fail();
  unsigned char want[256];
  size_t size = 0;
  if (!TypedStruct(before, type, want, &size)) Fail();
  ExpectPointee(f, typed, at, want, size);
}

// cudaLaunchKernelExC on 11.2 (no such entry): without attributes the runtime's cudaLaunchKernel
// with the configuration's fields; with attributes (at most four, the array exactly that long)
// the driver's cuLaunchKernelEx, its answer.
void LaunchKernelExC(Fake& f, Bytes& in) {
  cudaLaunchConfig_t config;
  std::memset(static_cast<void*>(&config), 0, sizeof(config));
  config.gridDim = dim3(in.Value<unsigned>(), in.Value<unsigned>(), in.Value<unsigned>());
  config.blockDim = dim3(in.Value<unsigned>(), in.Value<unsigned>(), in.Value<unsigned>());
  config.dynamicSmemBytes = in.Value<size_t>();
  config.stream = reinterpret_cast<cudaStream_t>(in.Value<uintptr_t>());
  const unsigned attrs = in.Byte() % 5;
  std::vector<cudaLaunchAttribute> attr(attrs);
  for (cudaLaunchAttribute& a : attr) in.Fill(&a, sizeof(a));
  config.attrs = attrs ? attr.data() : nullptr;
  config.numAttrs = attrs;
  static int kernel_stub;
  const void* func = (in.Byte() & 1) ? nullptr : &kernel_stub;
  void* args[2] = {nullptr, nullptr};
  const int result = FakeResult(in);
  f.set_result("cudaLaunchKernel", result);
  const int rc = Entry<decltype(&cudaLaunchKernelExC)>(f, cudyn::kCudart_cudaLaunchKernelExC)(
      &config, func, args);
  if (f.Has("cudaLaunchKernelExC")) {  // native (11.8+): the runtime's answer
    if (rc != 0 || f.count("cudaLaunchKernelExC") != 1) Fail();
    return;
  }
  if (attrs != 0) {  // the driver's answer; the runtime's launch is not used
    if (f.count("cudaLaunchKernel") != 0) Fail();
    if (rc != 0 && rc != cudaErrorInsufficientDriver && rc != cudaErrorInvalidDeviceFunction &&
        rc != cudaErrorInvalidValue) {
      Fail();
    }
    return;
  }
  if (rc != result || f.count("cudaLaunchKernel") != 1) Fail();
  const dim3 grid = f.Arg<dim3>("cudaLaunchKernel", 1), block = f.Arg<dim3>("cudaLaunchKernel", 2);
  if (f.Arg<const void*>("cudaLaunchKernel", 0) != func || grid.x != config.gridDim.x ||
      grid.y != config.gridDim.y || grid.z != config.gridDim.z || block.x != config.blockDim.x ||
      block.y != config.blockDim.y || block.z != config.blockDim.z ||
      f.Arg<void**>("cudaLaunchKernel", 3) != args ||
      f.Arg<size_t>("cudaLaunchKernel", 4) != config.dynamicSmemBytes ||
      f.Arg<cudaStream_t>("cudaLaunchKernel", 5) != config.stream) {
    Fail();
  }
}

// The edge-data graph calls before 12.3: edges in must be default ones (NULL or all zero), edges
// out come back zero for every entry written, nothing past the caller's count.
void EdgeData(Fake& f, Bytes& in) {
  const uint8_t which = in.Byte() % 5;
  Deps d;
  FuzzDeps(in, &d);
  FuzzNodeTypes(f, in, &d);
  const int result = FakeResult(in);
  const bool native = f.Has("cudaGraphAddDependencies_v2");
  const auto graph = reinterpret_cast<cudaGraph_t>(0x6000);
  if (which < 2) {
    const char* sym = which == 0 ? "cudaGraphAddDependencies" : "cudaGraphRemoveDependencies";
    f.set_result(sym, result);
    const int index =
        which == 0 ? cudyn::kCudart_cudaGraphAddDependencies : cudyn::kCudart_cudaGraphRemoveDependencies;
    const int rc = Entry<decltype(&cudaGraphAddDependencies)>(f, index)(
        graph, d.nodes, d.nodes + 1, d.with_edges ? d.edges : nullptr, d.n);
    if (native) {
      if (rc != 0) Fail();
      return;
    }
    // Removing: only default edges exist, so an edge named with a non-default port is none (1);
    // the type is not compared (as the 13.0 runtime). Adding: ExpectedEdgesIn.
    bool ports_default = true;
    for (size_t k = 0; d.with_edges && k < d.n; ++k) {
      ports_default = ports_default && d.edges[k].from_port == 0 && d.edges[k].to_port == 0;
    }
    const int refusal = which == 0 ? ExpectedEdgesIn(d, d.nodes_are_kernels)
                                   : (ports_default ? 0 : cudaErrorInvalidValue);
    if (refusal != 0) {
      if (rc != refusal || f.count(sym) != 0) Fail();
      return;
    }
    if (rc != result || f.count(sym) != 1) Fail();
    if (f.Arg<cudaGraph_t>(sym, 0) != graph || f.Arg<const void*>(sym, 1) != d.nodes ||
        f.Arg<const void*>(sym, 2) != d.nodes + 1 || f.Arg<size_t>(sym, 3) != d.n) {
      Fail();
    }
    return;
  }
  // Out: the fake reports `reported` entries; the caller's arrays hold `capacity`.
  const size_t capacity = in.Byte() % 5;
  const size_t reported = in.Byte() % 7;
  const bool no_nodes = (in.Byte() & 1) != 0;
  const char* sym = which == 2   ? "cudaGraphGetEdges"
                    : which == 3 ? "cudaGraphNodeGetDependencies"
                                 : "cudaGraphNodeGetDependentNodes";
  f.set_result(sym, result);
  f.set_out(sym, which == 2 ? 3 : 2, &reported, sizeof(reported));
  std::vector<cudaGraphNode_t> from(capacity), to(capacity);
  std::vector<cudaGraphEdgeData> edges(capacity);
  if (capacity != 0) std::memset(edges.data(), 0xee, capacity * sizeof(cudaGraphEdgeData));
  size_t count = capacity;
  cudaGraphNode_t* nodes = no_nodes || capacity == 0 ? nullptr : from.data();
  cudaGraphEdgeData* edge_out = d.with_edges && capacity ? edges.data() : nullptr;
  const auto node = reinterpret_cast<cudaGraphNode_t>(0x7000);
  int rc;
  if (which == 2) {
    rc = Entry<decltype(&cudaGraphGetEdges)>(f, cudyn::kCudart_cudaGraphGetEdges)(
        graph, nodes, nodes ? to.data() : nullptr, edge_out, &count);
  } else {
    rc = Entry<decltype(&cudaGraphNodeGetDependencies)>(
        f, which == 3 ? cudyn::kCudart_cudaGraphNodeGetDependencies
                      : cudyn::kCudart_cudaGraphNodeGetDependentNodes)(node, nodes, edge_out, &count);
  }
  if (native) {
    if (rc != 0) Fail();
    return;
  }
  if (rc != result || f.count(sym) != 1) Fail();
  if (result == 0 && count != reported) Fail();
  const size_t written =
      result == 0 && nodes != nullptr && edge_out != nullptr ? std::min(capacity, reported) : 0;
  for (size_t k = 0; k < capacity; ++k) {
    const auto* e = reinterpret_cast<const unsigned char*>(&edges[k]);
    for (size_t b = 0; b < sizeof(cudaGraphEdgeData); ++b) {
      if (e[b] != (k < written ? 0 : 0xee)) Fail();
    }
  }
}

// Adapter mode: "adapters\n", then a byte choosing the fake (among those given), one choosing the
// entry, and that entry's fuzzed arguments.
void Adapters(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  std::vector<Fake>& fakes = Fakes();
  Fake& f = fakes[in.Byte() % fakes.size()];
  f.reset();
  switch (in.Byte() % 9) {
    case 0: CreateTexture(f, in); break;
    case 1: CreateSurface(f, in); break;
    case 2: GetResourceDesc(f, in); break;
    case 3: DeviceProperties(f, in); break;
    case 4: GraphAddNode(f, in); break;
    case 5: GraphNodeSetParams(f, in); break;
    case 6: LaunchKernelExC(f, in); break;
    case 7: EdgeData(f, in); break;
    default: ChooseDevice(f, in); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr char kAdapters[] = "adapters\n";
  if (size >= sizeof(kAdapters) - 1 && std::memcmp(data, kAdapters, sizeof(kAdapters) - 1) == 0) {
    Adapters(data + sizeof(kAdapters) - 1, size - (sizeof(kAdapters) - 1));
    return 0;
  }
  const std::vector<std::string> f = cudyn::fuzz::Lines(data, size, 9);
  CheckSoname(f[0]);

  // CUDYN_CUDART_PATH: relative (rejected before any file access) or under a missing directory.
  std::string path = WithoutDotDot(f[1]);
  if (!path.empty() && path[0] == '/') path = "/nonexistent-cudyn-fuzz" + path;

  cudyn::fuzz::SetOrUnset("CUDYN_CUDART_PATH", path);
  cudyn::fuzz::SetOrUnset("CUDYN_MAX_CUDA_VERSION", f[2]);
  cudyn::fuzz::SetOrUnset("CUDA_HOME", Harmless(f[3]));
  cudyn::fuzz::SetOrUnset("CUDA_PATH", Harmless(f[4]));
  cudyn::fuzz::SetOrUnset("VIRTUAL_ENV", Harmless(f[5]));
  cudyn::fuzz::SetOrUnset("CONDA_PREFIX", Harmless(f[6]));
  cudyn::fuzz::SetOrUnset("CUDYN_LOG", f[7]);
  static constexpr int kDrivers[] = {10000, 10010, 10020};
  const int driver = kDrivers[(f[8].empty() ? 0 : static_cast<uint8_t>(f[8].back())) % 3];
  const std::optional<int> version = cudyn::ParseCudaVersion(f[2]);
  cudyn::RuntimeOptions options;
  options.use_environment = true;
  options.driver_version = driver;
  if (f[8].rfind("opt", 0) == 0) options.max_cuda_version = version.value_or(12000);
  // No search_paths: the environment's directories and the system search run (10.x only).
  std::unique_ptr<cudyn::Runtime> runtime = cudyn::Runtime::Open(options);
  if (runtime == nullptr) __builtin_trap();
  if (runtime->ok() || runtime->error() != cudyn::kCudartErrorInitFailed) __builtin_trap();
  if (runtime->Resolve(0) != nullptr) __builtin_trap();
  if (runtime->last_error().empty()) __builtin_trap();
  // The clamp (option, else environment) only ever lowers the driver version.
  const std::optional<int> clamp = options.max_cuda_version ? options.max_cuda_version : version;
  if (runtime->driver_version() != (clamp && *clamp < driver ? *clamp : driver)) __builtin_trap();
  // The adapter mode's fake runtimes, once loaded, are seen as already loaded (and rejected: no
  // 10.x family); nothing else may be.
  std::vector<cudyn::RuntimeCandidate> candidates;
  for (const cudyn::RuntimeCandidate& c : runtime->candidates()) {
    if (c.accepted()) __builtin_trap();
    if (c.source == cudyn::RuntimeSource::kAlreadyLoaded) {
      if (!g_fakes_loaded) __builtin_trap();
      continue;
    }
    candidates.push_back(c);
  }
  if (!path.empty()) {
    const std::vector<cudyn::RuntimeCandidate>& c = candidates;
    if (c.size() != 1 || c[0].path != path || c[0].source != cudyn::RuntimeSource::kEnvironment) {
      __builtin_trap();
    }
    if (c[0].rejection != (path[0] == '/' ? cudyn::RuntimeRejection::kUnloadableFile
                                          : cudyn::RuntimeRejection::kNotAbsolute)) {
      __builtin_trap();
    }
  } else {
    // Only skipped families and failed default-search dlopens: no file was found anywhere.
    for (const cudyn::RuntimeCandidate& c : candidates) {
      if (c.source != cudyn::RuntimeSource::kFamilyPolicy &&
          c.source != cudyn::RuntimeSource::kDefaultSearch) {
        __builtin_trap();
      }
    }
  }
  // The runtime side warns only about CUDYN_LOG (the driver side owns the clamp's warning).
  const bool log_junk = !f[7].empty() && !IsLogLevel(f[7]);
  if (runtime->warnings().size() != (log_junk ? 1u : 0u)) __builtin_trap();
  if (log_junk && runtime->warnings()[0].rfind("CUDYN_LOG='", 0) != 0) __builtin_trap();
  return 0;
}
