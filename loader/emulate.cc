// Driver emulation (CUDYN_CLAMP_MODE=emulate under a clamp; loader/DESIGN.md "Driver emulation"):
// the module-load entries hand the real driver only the image a real driver of the effective
// (clamped) version would choose on this GPU, or return that driver's error; cuInit and
// cuDeviceGetCount hide a GPU that driver does not know. The choice is loader/kernel_rule.h's,
// the same function cudyn-check's kernel verdict calls.
//
// Like the custom adapters, each wrapper is a template over (instance id, entry index): the
// instance finds the Driver, the entry finds the function the entry was bound to (recorded by
// EmulationWrapper at bind time). Nothing here throws or aborts: where the image cannot be
// judged (unknown format, no memory, no GPU answer) the call passes through unchanged.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <link.h>

#include <atomic>
#include <memory>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "loader/internal.h"
#include "loader/kernel_rule.h"

#include "version_tables/cuda_driver_api.h"

namespace cudyn {
namespace internal {
namespace {

namespace kr = kernel_rule;

}  // namespace

// The entries emulation wraps, in one list: the wrapper table's rows and the recorded functions'
// columns (and EmulationAnswersLookup's module loads).
constexpr int kEmulatedEntries[] = {
    kEntry_cuInit,
    kEntry_cuDeviceGetCount,
    kEntry_cuModuleLoad,
    kEntry_cuModuleLoadData,
    kEntry_cuModuleLoadDataEx,
    kEntry_cuModuleLoadFatBinary,
    kEntry_cuLinkAddData,
    kEntry_cuLinkAddData_v2,
    kEntry_cuLinkAddFile,
    kEntry_cuLinkAddFile_v2,
    kEntry_cuLibraryLoadData,
    kEntry_cuLibraryLoadFromFile,
};
constexpr int kRows = sizeof(kEmulatedEntries) / sizeof(kEmulatedEntries[0]);

namespace {

constexpr int Row(int index) {
  for (int i = 0; i < kRows; ++i) {
    if (kEmulatedEntries[i] == index) return i;
  }
  return -1;
}

// What each entry of each instance was bound to (the real driver function or an adapter).
std::atomic<void*> g_bound[kMaxAdapterInstances][kRows];
// Per instance: 0 not yet known, 1 the emulated driver knows a GPU, 2 it knows none.
std::atomic<int> g_gpu_state[kMaxAdapterInstances];

template <class Fn>
Fn Bound(int id, int index) {
  Driver* d = AdapterInstanceDriver(id);
  if (d == nullptr) return nullptr;
  d->Resolve(index);  // binds it (recording the bound function) if it was not yet
  return reinterpret_cast<Fn>(g_bound[id][Row(index)].load(std::memory_order_acquire));
}

template <class Fn>
Fn Plain(int id, int index) {
  Driver* d = AdapterInstanceDriver(id);
  return d != nullptr ? reinterpret_cast<Fn>(d->Resolve(index)) : nullptr;
}

int Effective(int id) {
  Driver* d = AdapterInstanceDriver(id);
  return d != nullptr ? d->effective_version() : 0;
}

// The compute capability of `device`; false when the driver does not answer.
bool DeviceArch(int id, CUdevice device, kr::GpuArch* out) {
  using GetAttribute = CUresult(CUDAAPI*)(int*, CUdevice_attribute, CUdevice);
  auto get = Plain<GetAttribute>(id, kEntry_cuDeviceGetAttribute);
  if (get == nullptr) return false;
  int major = 0, minor = 0;
  if (get(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      get(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS ||
      major <= 0 || minor < 0 || minor > 9)
    return false;
  *out = kr::GpuArch{major, minor, '\0'};
  return true;
}

// The GPU a module load is for: the current context's device, else device 0.
bool CurrentArch(int id, kr::GpuArch* out) {
  using CtxGetDevice = CUresult(CUDAAPI*)(CUdevice*);
  CUdevice device = 0;
  auto get = Plain<CtxGetDevice>(id, kEntry_cuCtxGetDevice);
  if (get == nullptr || get(&device) != CUDA_SUCCESS) device = 0;
  return DeviceArch(id, device, out);
}

// Does the emulated driver know some GPU of this machine? Decided once, after a successful
// cuInit; 0 while that is unknown.
int GpuStateOnce(int id);

int GpuState(int id) noexcept {
  const int state = g_gpu_state[id].load(std::memory_order_acquire);
  if (state != 0) return state;
  try {
    return GpuStateOnce(id);
  } catch (...) {  // no memory for the log line: decide again next time
    return 0;
  }
}

int GpuStateOnce(int id) {
  int state = 0;
  using GetCount = CUresult(CUDAAPI*)(int*);
  auto count_fn = Bound<GetCount>(id, kEntry_cuDeviceGetCount);
  int count = 0;
  if (count_fn == nullptr || count_fn(&count) != CUDA_SUCCESS) return 0;
  int known = 0;
  std::string hidden;
  for (int i = 0; i < count; ++i) {
    kr::GpuArch arch;
    if (!DeviceArch(id, i, &arch)) return 0;
    if (kr::DriverKnowsGpu(Effective(id), arch)) {
      ++known;
    } else {
      hidden += (hidden.empty() ? "" : ", ") + arch.Name();
    }
  }
  state = count > 0 && known == 0 ? 2 : 1;
  if (state == 2) {
    LogAt(LogLevel::kWarn, "driver emulation: a CUDA ", Effective(id),
          " driver knows none of this machine's GPUs (", hidden,
          "): cuInit returns 100, cuDeviceGetCount 3");
  } else if (!hidden.empty()) {
    LogAt(LogLevel::kWarn, "driver emulation: a CUDA ", Effective(id), " driver would not know ",
          hidden, "; those devices stay visible (cudyn does not renumber devices)");
  }
  g_gpu_state[id].store(state, std::memory_order_release);
  return state;
}

// The emulated driver's answer for an image: load `image` as it is, load `replacement`
// instead, or return `error`.
struct Judged {
  int error = 0;
  bool replaced = false;
  std::string replacement;  // a fatbin with only the chosen entry
};

void LogOutcome(int id, const char* what, const char* entry, const kr::GpuArch& gpu,
                const Judged& j) {
  if (j.error != 0) {
    LogAt(LogLevel::kInfo, "driver emulation: ", entry, " on ", gpu.Name(), ": a CUDA ",
          Effective(id), " driver returns ", j.error, " (", what, ")");
  } else {
    LogAt(LogLevel::kDebug, "driver emulation: ", entry, " on ", gpu.Name(), ": ", what);
  }
}

// Judges a fatbin container at `data` (`avail` readable bytes, or UINT64_MAX when unknown).
Judged JudgeFatbin(int id, const uint8_t* data, uint64_t avail, const kr::GpuArch& gpu,
                   const char* entry) {
  Judged j;
  kr::JudgedFatbin f;
  if (!kr::JudgeFatbin(data, avail, Effective(id), gpu, &f)) return j;
  const kr::Choice& c = f.choice;
  if (c.error != 0) {
    j.error = c.error;
    LogOutcome(id, c.error == kr::kUnsupportedPtxVersion ? "only PTX too new for it fits"
                                                         : "no image for the GPU",
               entry, gpu, j);
    return j;
  }
  j.replaced = true;
  j.replacement = kr::FatbinWithOnlyEntry(data, f, c.index);
  LogOutcome(id, f.images[c.index].ptx ? "hands the driver the chosen PTX"
                                       : "hands the driver the chosen SASS",
             entry, gpu, j);
  return j;
}

// Judges an image as a module load receives it: a fatbin (or nvcc's wrapper of one), a cubin
// (ELF) or PTX text. `size`: its size when the API gives one, else SIZE_MAX.
Judged JudgeImage(int id, const void* image, uint64_t size, const char* entry) noexcept {
  try {
    const auto* p = static_cast<const uint8_t*>(image);
    if (p == nullptr || size < 4) return Judged{};
    kr::GpuArch gpu;
    if (!CurrentArch(id, &gpu)) return Judged{};
    uint32_t magic;
    std::memcpy(&magic, p, 4);
    if (magic == kr::kFatbinWrapperMagic && size >= 16) {
      const uint8_t* inner;
      std::memcpy(&inner, p + 8, sizeof inner);
      return JudgeFatbin(id, inner, UINT64_MAX, gpu, entry);
    }
    if (magic == kr::kFatbinMagic) return JudgeFatbin(id, p, size, gpu, entry);
    Judged j;
    if (std::memcmp(p, "\x7f" "ELF", 4) == 0) {
      kr::Image img;
      if (!kr::CubinArch(p, size == UINT64_MAX ? 64 : static_cast<size_t>(size), &img.arch))
        return j;
      const kr::Choice c = kr::ChooseImage(&img, 1, Effective(id), gpu);
      j.error = c.error;
      LogOutcome(id, c.error ? "a cubin for another GPU" : "a cubin for the GPU", entry, gpu, j);
      return j;
    }
    // PTX text: NUL-terminated when no size is given.
    const char* text = static_cast<const char*>(image);
    const size_t n = size == UINT64_MAX ? std::strlen(text) : static_cast<size_t>(size);
    kr::Image img;
    img.ptx = true;
    if (!kr::ParsePtxVersion(text, n, &img.isa_major, &img.isa_minor)) return j;
    if (!kr::ParsePtxTarget(text, n, &img.arch)) img.arch = gpu;  // no .target: any GPU
    const kr::Choice c = kr::ChooseImage(&img, 1, Effective(id), gpu);
    j.error = c.error;
    LogOutcome(id, c.error == kr::kUnsupportedPtxVersion ? "PTX ISA too new for it"
                   : c.error                             ? "PTX for a newer GPU"
                                                         : "PTX it JITs",
               entry, gpu, j);
    return j;
  } catch (...) {
    return Judged{};
  }
}

// Reads a whole file (at most 1 GiB) and a NUL after it (PTX text is judged up to its end);
// false when it cannot.
bool ReadFile(const char* path, std::string* out) noexcept {
  if (path == nullptr) return false;
  try {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (1 << 30);
    if (ok) {
      out->resize(static_cast<size_t>(st.st_size));
      size_t got = 0;
      while (got < out->size()) {
        const ssize_t r = read(fd, &(*out)[got], out->size() - got);
        if (r <= 0) break;
        got += static_cast<size_t>(r);
      }
      ok = got == out->size();
      if (ok) out->push_back('\0');
    }
    close(fd);
    return ok;
  } catch (...) {
    return false;
  }
}

// ---- wrappers --------------------------------------------------------------------------------

template <int I, int kSelf>
CUresult CUDAAPI Init(unsigned int flags) {
  auto real = Bound<CUresult(CUDAAPI*)(unsigned int)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  CUresult rc = real(flags);
  if (rc != CUDA_SUCCESS) return rc;
  // A real driver that knows none of the GPUs answers 100, as on a machine without a GPU.
  return GpuState(I) == 2 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

template <int I, int kSelf>
CUresult CUDAAPI DeviceGetCount(int* count) {
  auto real = Bound<CUresult(CUDAAPI*)(int*)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  // After cuInit answered 100, a real driver answers 3 and leaves *count alone (measured: 535
  // without a GPU).
  if (GpuState(I) == 2) return CUDA_ERROR_NOT_INITIALIZED;
  return real(count);
}

template <int I, int kSelf>
CUresult CUDAAPI ModuleLoadData(CUmodule* module, const void* image) {
  auto real = Bound<CUresult(CUDAAPI*)(CUmodule*, const void*)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  Judged j = JudgeImage(I, image, UINT64_MAX, "cuModuleLoadData");
  if (j.error) return static_cast<CUresult>(j.error);
  return real(module, j.replaced ? j.replacement.data() : image);
}

template <int I, int kSelf>
CUresult CUDAAPI ModuleLoadFatBinary(CUmodule* module, const void* image) {
  auto real = Bound<CUresult(CUDAAPI*)(CUmodule*, const void*)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  Judged j = JudgeImage(I, image, UINT64_MAX, "cuModuleLoadFatBinary");
  if (j.error) return static_cast<CUresult>(j.error);
  return real(module, j.replaced ? j.replacement.data() : image);
}

template <int I, int kSelf>
CUresult CUDAAPI ModuleLoadDataEx(CUmodule* module, const void* image, unsigned int n,
                                  CUjit_option* options, void** values) {
  auto real = Bound<CUresult(CUDAAPI*)(CUmodule*, const void*, unsigned int, CUjit_option*,
                                       void**)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  Judged j = JudgeImage(I, image, UINT64_MAX, "cuModuleLoadDataEx");
  if (j.error) return static_cast<CUresult>(j.error);
  return real(module, j.replaced ? j.replacement.data() : image, n, options, values);
}

template <int I, int kSelf>
CUresult CUDAAPI ModuleLoad(CUmodule* module, const char* path) {
  auto real = Bound<CUresult(CUDAAPI*)(CUmodule*, const char*)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  std::string data;
  if (!ReadFile(path, &data)) return real(module, path);  // the driver reports its own error
  Judged j = JudgeImage(I, data.data(), data.size() - 1, "cuModuleLoad");
  if (j.error) return static_cast<CUresult>(j.error);
  if (!j.replaced) return real(module, path);
  // Only part of the file may be loaded: hand the driver that part as data.
  auto data_fn = Bound<CUresult(CUDAAPI*)(CUmodule*, const void*)>(I, kEntry_cuModuleLoadData);
  if (data_fn == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  return data_fn(module, j.replacement.data());
}

template <int I, int kSelf>
CUresult CUDAAPI LinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                             const char* name, unsigned int n, CUjit_option* options,
                             void** values) {
  auto real = Bound<CUresult(CUDAAPI*)(CUlinkState, CUjitInputType, void*, size_t, const char*,
                                       unsigned int, CUjit_option*, void**)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  if (type != CU_JIT_INPUT_CUBIN && type != CU_JIT_INPUT_PTX && type != CU_JIT_INPUT_FATBINARY)
    return real(state, type, data, size, name, n, options, values);
  Judged j = JudgeImage(I, data, size, "cuLinkAddData");
  if (j.error) return static_cast<CUresult>(j.error);
  if (!j.replaced) return real(state, type, data, size, name, n, options, values);
  return real(state, type, &j.replacement[0], j.replacement.size(), name, n, options, values);
}

template <int I, int kSelf>
CUresult CUDAAPI LinkAddFile(CUlinkState state, CUjitInputType type, const char* path,
                             unsigned int n, CUjit_option* options, void** values) {
  auto real = Bound<CUresult(CUDAAPI*)(CUlinkState, CUjitInputType, const char*, unsigned int,
                                       CUjit_option*, void**)>(I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  std::string data;
  if ((type != CU_JIT_INPUT_CUBIN && type != CU_JIT_INPUT_PTX &&
       type != CU_JIT_INPUT_FATBINARY) ||
      !ReadFile(path, &data))
    return real(state, type, path, n, options, values);
  Judged j = JudgeImage(I, data.data(), data.size() - 1, "cuLinkAddFile");
  if (j.error) return static_cast<CUresult>(j.error);
  if (!j.replaced) return real(state, type, path, n, options, values);
  using AddData = CUresult(CUDAAPI*)(CUlinkState, CUjitInputType, void*, size_t, const char*,
                                     unsigned int, CUjit_option*, void**);
  auto data_fn = Bound<AddData>(
      I, kSelf == kEntry_cuLinkAddFile ? kEntry_cuLinkAddData : kEntry_cuLinkAddData_v2);
  if (data_fn == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  return data_fn(state, type, &j.replacement[0], j.replacement.size(), path, n, options, values);
}

#if CUDA_VERSION >= 12000
template <int I, int kSelf>
CUresult CUDAAPI LibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jit_options,
                                 void** jit_values, unsigned int num_jit, CUlibraryOption* options,
                                 void** values, unsigned int num) {
  auto real = Bound<CUresult(CUDAAPI*)(CUlibrary*, const void*, CUjit_option*, void**,
                                       unsigned int, CUlibraryOption*, void**, unsigned int)>(
      I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  Judged j = JudgeImage(I, code, UINT64_MAX, "cuLibraryLoadData");
  if (j.error) return static_cast<CUresult>(j.error);
  return real(library, j.replaced ? j.replacement.data() : code, jit_options, jit_values, num_jit,
              options, values, num);
}

template <int I, int kSelf>
CUresult CUDAAPI LibraryLoadFromFile(CUlibrary* library, const char* path,
                                     CUjit_option* jit_options, void** jit_values,
                                     unsigned int num_jit, CUlibraryOption* options, void** values,
                                     unsigned int num) {
  auto real = Bound<CUresult(CUDAAPI*)(CUlibrary*, const char*, CUjit_option*, void**,
                                       unsigned int, CUlibraryOption*, void**, unsigned int)>(
      I, kSelf);
  if (real == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  std::string data;
  if (!ReadFile(path, &data))
    return real(library, path, jit_options, jit_values, num_jit, options, values, num);
  Judged j = JudgeImage(I, data.data(), data.size() - 1, "cuLibraryLoadFromFile");
  if (j.error) return static_cast<CUresult>(j.error);
  if (!j.replaced)
    return real(library, path, jit_options, jit_values, num_jit, options, values, num);
  using LoadData = CUresult(CUDAAPI*)(CUlibrary*, const void*, CUjit_option*, void**, unsigned int,
                                      CUlibraryOption*, void**, unsigned int);
  auto data_fn = Bound<LoadData>(I, kEntry_cuLibraryLoadData);
  if (data_fn == nullptr) return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;
  return data_fn(library, j.replacement.data(), jit_options, jit_values, num_jit, options, values,
                 num);
}
#endif

// ---- dispatch --------------------------------------------------------------------------------

struct WrapperRow {
  int index;
  void* instances[kMaxAdapterInstances];
};

#define CUDYN_INSTANCES(fn, self)                                                            \
  {                                                                                          \
    self, {                                                                                  \
      reinterpret_cast<void*>(&fn<0, self>), reinterpret_cast<void*>(&fn<1, self>),          \
          reinterpret_cast<void*>(&fn<2, self>), reinterpret_cast<void*>(&fn<3, self>),      \
          reinterpret_cast<void*>(&fn<4, self>), reinterpret_cast<void*>(&fn<5, self>),      \
          reinterpret_cast<void*>(&fn<6, self>), reinterpret_cast<void*>(&fn<7, self>),      \
          reinterpret_cast<void*>(&fn<8, self>), reinterpret_cast<void*>(&fn<9, self>),      \
          reinterpret_cast<void*>(&fn<10, self>), reinterpret_cast<void*>(&fn<11, self>),    \
          reinterpret_cast<void*>(&fn<12, self>), reinterpret_cast<void*>(&fn<13, self>),    \
          reinterpret_cast<void*>(&fn<14, self>), reinterpret_cast<void*>(&fn<15, self>)     \
    }                                                                                        \
  }

const WrapperRow kWrapperRows[] = {
    CUDYN_INSTANCES(Init, kEntry_cuInit),
    CUDYN_INSTANCES(DeviceGetCount, kEntry_cuDeviceGetCount),
    CUDYN_INSTANCES(ModuleLoad, kEntry_cuModuleLoad),
    CUDYN_INSTANCES(ModuleLoadData, kEntry_cuModuleLoadData),
    CUDYN_INSTANCES(ModuleLoadDataEx, kEntry_cuModuleLoadDataEx),
    CUDYN_INSTANCES(ModuleLoadFatBinary, kEntry_cuModuleLoadFatBinary),
    CUDYN_INSTANCES(LinkAddData, kEntry_cuLinkAddData),
    CUDYN_INSTANCES(LinkAddData, kEntry_cuLinkAddData_v2),
    CUDYN_INSTANCES(LinkAddFile, kEntry_cuLinkAddFile),
    CUDYN_INSTANCES(LinkAddFile, kEntry_cuLinkAddFile_v2),
#if CUDA_VERSION >= 12000
    CUDYN_INSTANCES(LibraryLoadData, kEntry_cuLibraryLoadData),
    CUDYN_INSTANCES(LibraryLoadFromFile, kEntry_cuLibraryLoadFromFile),
#endif
};
#undef CUDYN_INSTANCES

}  // namespace

void* EmulationBound(int index, int id) {
  const int row = Row(index);
  if (id < 0 || id >= kMaxAdapterInstances || row < 0) return nullptr;
  return g_bound[id][row].load(std::memory_order_acquire);
}

void ResetEmulation(int id) {
  if (id < 0 || id >= kMaxAdapterInstances) return;
  for (auto& slot : g_bound[id]) slot.store(nullptr, std::memory_order_relaxed);
  g_gpu_state[id].store(0, std::memory_order_release);
}

void* EmulationWrapper(int index, int id, void* bound) {
  if (id < 0 || id >= kMaxAdapterInstances || bound == nullptr) return nullptr;
  const int row = Row(index);
  if (row < 0) return nullptr;
  for (const WrapperRow& w : kWrapperRows) {
    if (w.index != index) continue;
    if (AdapterInstanceDriver(id) == nullptr) return nullptr;
    g_bound[id][row].store(bound, std::memory_order_release);
    return w.instances[id];
  }
  return nullptr;
}

bool EmulatedDevice0Arch(Driver& driver, kr::GpuArch* out) {
  using Init = CUresult(CUDAAPI*)(unsigned int);
  using GetAttribute = CUresult(CUDAAPI*)(int*, CUdevice_attribute, CUdevice);
  auto init = reinterpret_cast<Init>(driver.Resolve(kEntry_cuInit));
  auto get = reinterpret_cast<GetAttribute>(driver.Resolve(kEntry_cuDeviceGetAttribute));
  int major = 0, minor = 0;
  if (init == nullptr || get == nullptr || init(0) != CUDA_SUCCESS ||
      get(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) != CUDA_SUCCESS ||
      get(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) != CUDA_SUCCESS || major <= 0 ||
      minor < 0 || minor > 9)
    return false;
  *out = kr::GpuArch{major, minor, '\0'};
  return true;
}

namespace {

// nvcc's fatbin wrappers in the main program's writable segments: 8-byte aligned, the wrapper
// magic, and a `data` pointer to a fatbin container inside one of its readable segments.
struct ProgramWrappers {
  std::vector<kr::FatbinWrapper*> wrappers;
  std::vector<uint64_t> avail;  // readable bytes from each wrapper's data to its segment's end
};

// Reads the program's writable data word by word: an instrumented program keeps AddressSanitizer
// redzones between its globals there.
__attribute__((no_sanitize("address"))) int FindProgramWrappers(struct dl_phdr_info* info, size_t,
                                                                void* data) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // the main program only
  auto* found = static_cast<ProgramWrappers*>(data);
  auto readable_left = [info](uintptr_t p) -> uint64_t {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
      if (ph.p_type == PT_LOAD && (ph.p_flags & PF_R) != 0 && p >= start &&
          p - start < ph.p_memsz) {
        return ph.p_memsz - (p - start);
      }
    }
    return 0;
  };
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) == 0) continue;
    const uintptr_t begin = (info->dlpi_addr + ph.p_vaddr + 7) & ~uintptr_t{7};
    const uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_filesz;  // bss holds no wrapper
    for (uintptr_t p = begin; p + sizeof(kr::FatbinWrapper) <= end; p += 8) {
      auto* w = reinterpret_cast<kr::FatbinWrapper*>(p);
      if (static_cast<uint32_t>(w->magic) != kr::kFatbinWrapperMagic) continue;
      const uint64_t left = readable_left(reinterpret_cast<uintptr_t>(w->data));
      uint32_t magic = 0;
      if (left < kr::kFatbinHeaderSize) continue;
      std::memcpy(&magic, w->data, sizeof magic);
      if (magic != kr::kFatbinMagic) continue;
      found->wrappers.push_back(w);
      found->avail.push_back(left);
    }
  }
  return 1;
}

// The replacements handed to the program's runtime: read whenever it loads a module, so kept for
// the process's life (reachable from here, never destroyed).
std::vector<std::unique_ptr<std::string>>* g_program_fatbins = nullptr;

void EmulateMainProgramFatbinsOnce(Driver& driver) {
  ProgramWrappers found;
  dl_iterate_phdr(FindProgramWrappers, &found);
  if (found.wrappers.empty()) return;
  kr::GpuArch gpu;
  if (!EmulatedDevice0Arch(driver, &gpu)) return;
  for (size_t i = 0; i < found.wrappers.size(); ++i) {
    kr::FatbinWrapper* w = found.wrappers[i];
    auto fatbin = std::make_unique<std::string>();
    const kr::Registration how =
        kr::RegistrationFatbin(static_cast<const uint8_t*>(w->data), found.avail[i],
                               driver.effective_version(), driver.cuda_version(), gpu, fatbin.get());
    if (how == kr::Registration::kKeep) continue;
    LogAt(LogLevel::kInfo, "driver emulation: a fatbin of the program's own runtime on ",
          gpu.Name(), ": it gets ",
          how == kr::Registration::kOnlyChosen ? "only the image a CUDA "
                                               : "a PTX no driver JITs, as only PTX too new for "
                                                 "a CUDA ",
          driver.effective_version(),
          how == kr::Registration::kOnlyChosen ? " driver chooses" : " driver fits (222)");
    if (g_program_fatbins == nullptr) {
      g_program_fatbins = new std::vector<std::unique_ptr<std::string>>();
    }
    g_program_fatbins->push_back(std::move(fatbin));  // first: a throw leaves `w` as it was
    w->data = g_program_fatbins->back()->data();
  }
}

}  // namespace
}  // namespace internal

void EmulateMainProgramFatbins(Driver& driver, const void* caller) {
  if (!driver.ok() || !driver.emulating() || internal::MainProgramCudaRuntimeVersion(caller) <= 0) {
    return;
  }
  static std::once_flag once;
  try {
    std::call_once(once, [&driver] { internal::EmulateMainProgramFatbinsOnce(driver); });
  } catch (...) {  // no memory: the fatbins stay as they are
  }
}

bool EmulationAnswersLookup(const Driver& driver, const void* caller, std::string_view symbol) {
  if (!driver.emulating()) return false;
  // The GPU offer, for every caller (and cuGetProcAddress, through which a runtime asks again).
  if (symbol == "cuInit" || symbol == "cuDeviceGetCount" || symbol == "cuGetProcAddress") {
    return true;
  }
  // The module loads of a runtime linked into the main program: no registration hook reaches its
  // fatbins (its __cudaRegisterFatBinary is the program's own), so its loads are judged here.
  if (internal::MainProgramCudaRuntimeVersion(caller) <= 0) return false;
  for (const int index : internal::kEmulatedEntries) {
    if (EntryBase(index) == symbol) return true;
  }
  return false;
}

}  // namespace cudyn
