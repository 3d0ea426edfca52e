// See fake_runtime.h and fake_driver.h.
#include "tests/fake_driver/fake_runtime.h"

#include <pthread.h>

#include <cstdlib>

namespace cudyn_fake {
namespace {

constexpr int kMaxExports = 4096;
constexpr int kNotFound = 500;  // CUDA_ERROR_NOT_FOUND
constexpr int kInvalidValue = 1;
constexpr int kNoDevice = 100;
constexpr unsigned long long kPerThreadFlag = 2;  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

// cuGetProcAddress_v2's symbolStatus values.
constexpr int kSymbolFound = 0;
constexpr int kSymbolNotFound = 1;
constexpr int kVersionNotSufficient = 2;

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
CudynFakeCall g_calls[CUDYN_FAKE_MAX_CALLS];
int g_call_count = 0;
bool g_injected[kMaxExports];
int g_injected_result[kMaxExports];
int g_capture_arg[kMaxExports];   // cudynFakeSetCapture: which argument to copy from
int g_capture_size[kMaxExports];  // ... and how many bytes (0: none)

struct Lock {
  Lock() { pthread_mutex_lock(&g_mutex); }
  ~Lock() { pthread_mutex_unlock(&g_mutex); }
};

// The driver's lookup: the newest variant of `name` with an ABI version <= `version`, among the
// per-thread variants when flags ask for them and the base has any, else among the legacy ones.
// Suffixed names (cuMemAdvise_v2, cuMemcpy_ptds) and variants cuGetProcAddress never returns
// are unknown. Returns a symbolStatus value.
int Find(const char* name, int version, cuuint64_t flags, void** fn) {
  bool known = false, has_per_thread = false;
  for (int i = 0; i < kExportCount; ++i) {
    if (kExports[i].gpa && std::strcmp(kExports[i].base, name) == 0) {
      known = true;
      has_per_thread = has_per_thread || kExports[i].per_thread;
    }
  }
  if (!known) return kSymbolNotFound;
  bool per_thread = (flags & kPerThreadFlag) != 0 && has_per_thread;
  const Export* best = nullptr;
  for (int i = 0; i < kExportCount; ++i) {
    const Export& e = kExports[i];
    if (!e.gpa || e.per_thread != per_thread || e.abi_version > version ||
        std::strcmp(e.base, name) != 0) {
      continue;
    }
    if (best == nullptr || e.abi_version > best->abi_version) best = &e;
  }
  if (best == nullptr) return kVersionNotSufficient;
  *fn = best->fn;
  return kSymbolFound;
}

template <class... A>
Args Pack(const A&... values) {
  Args args;
  (Put(&args, values), ...);
  return args;
}

}  // namespace

int Record(int index, const Args& args, int result, const char* requested) {
  Lock lock;
  if (g_call_count < CUDYN_FAKE_MAX_CALLS) {
    CudynFakeCall& c = g_calls[g_call_count];
    c.symbol = kExports[index].symbol;
    c.num_args = args.num_args;
    c.num_words = args.num_words;
    for (int i = 0; i < CUDYN_FAKE_MAX_WORDS; ++i) {
      c.args[i] = args.words[i];
      c.arg_word[i] = args.arg_word[i];
    }
    c.result = result;
    c.captured_size = 0;
    int arg = g_capture_arg[index], size = g_capture_size[index];
    if (size > 0 && arg < args.num_args && args.arg_word[arg] < args.num_words) {
      if (const void* from = reinterpret_cast<const void*>(args.words[args.arg_word[arg]])) {
        std::memcpy(c.captured, from, static_cast<size_t>(size));
        c.captured_size = size;
      }
    }
    c.requested[0] = '\0';
    if (requested != nullptr) {
      std::strncpy(c.requested, requested, sizeof(c.requested) - 1);
      c.requested[sizeof(c.requested) - 1] = '\0';
    }
  }
  if (g_call_count < 0x7fffffff) ++g_call_count;
  return result;
}

bool Injected(int index, int* result) {
  Lock lock;
  if (index < 0 || index >= kMaxExports || !g_injected[index]) return false;
  *result = g_injected_result[index];
  return true;
}

// $CUDYN_FAKE_GPU: the fake GPU's compute capability number (90), else 0 (no GPU).
int FakeGpu() {
  const char* env = std::getenv("CUDYN_FAKE_GPU");
  if (env == nullptr || *env == '\0') return 0;
  char* end = nullptr;
  long value = std::strtol(env, &end, 10);
  return *end == '\0' && value >= 10 && value < 1000 ? static_cast<int>(value) : 0;
}

int DefaultResult(int index) {
  if (std::strcmp(kExports[index].symbol, "cuInit") != 0) return 0;
  const char* env = std::getenv("CUDYN_FAKE_INIT_RESULT");
  if (env == nullptr || *env == '\0') return FakeGpu() ? 0 : kNoDevice;
  char* end = nullptr;
  long value = std::strtol(env, &end, 10);
  return *end == '\0' ? static_cast<int>(value) : kNoDevice;
}

int DeviceGetCount(int index, int* count) {
  Args args;
  Put(&args, count);
  int result;
  if (!Injected(index, &result)) result = DefaultResult(index);
  if (result == 0 && count != nullptr && FakeGpu()) *count = 1;
  return Record(index, args, result);
}

int DeviceGetAttribute(int index, int* value, int attribute, int device) {
  Args args;
  Put(&args, value);
  Put(&args, attribute);
  Put(&args, device);
  int result;
  if (!Injected(index, &result)) result = DefaultResult(index);
  const int gpu = FakeGpu();
  if (result == 0 && value != nullptr && gpu && device == 0) {
    if (attribute == 75) *value = gpu / 10;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    if (attribute == 76) *value = gpu % 10;  // ..._MINOR
  }
  return Record(index, args, result);
}

int CtxGetDevice(int index, int* device) {
  Args args;
  Put(&args, device);
  int result;
  if (!Injected(index, &result)) result = DefaultResult(index);
  if (result == 0 && device != nullptr && FakeGpu()) *device = 0;
  return Record(index, args, result);
}

int DriverGetVersion(int index, int* version) {
  int result;
  if (!Injected(index, &result)) {
    result = version == nullptr ? kInvalidValue : 0;
    if (version != nullptr) *version = kCudaVersion;
  }
  return Record(index, Pack(version), result);
}

namespace {

struct ErrorText {
  int code;
  const char* name;
  const char* text;
};

#define CUDYN_ERROR_STRING(code, name, text, first_major, last_major) {code, name, text},
constexpr ErrorText kErrorTexts[] = {
#include "version_tables/cudyn_error_strings.inc"
};
#undef CUDYN_ERROR_STRING

int AnswerErrorText(int index, int result, const char** out, bool want_name) {
  int status;
  if (!Injected(index, &status)) {
    const char* found = nullptr;
    for (const auto& e : kErrorTexts) {
      if (e.code == result) found = want_name ? e.name : e.text;
    }
    status = out == nullptr || found == nullptr ? kInvalidValue : 0;
    if (out != nullptr) *out = found;
  }
  return Record(index, Pack(result, out), status);
}

}  // namespace

int ErrorName(int index, int result, const char** out) {
  return AnswerErrorText(index, result, out, /*want_name=*/true);
}

int ErrorString(int index, int result, const char** out) {
  return AnswerErrorText(index, result, out, /*want_name=*/false);
}

int GetProcAddressV1(int index, const char* symbol, void** pfn, int version, cuuint64_t flags) {
  int result;
  if (!Injected(index, &result)) {
    if (symbol == nullptr || pfn == nullptr) {
      result = kInvalidValue;
    } else if (kGeneration >= 13 && version > kCudaVersion) {
      result = kInvalidValue;  // 13.x: never above the driver's own version; *pfn untouched
    } else {
      // 11.x/12.x: not found is 500 with *pfn untouched.
      result = Find(symbol, version, flags, pfn) == kSymbolFound ? 0 : kNotFound;
    }
  }
  return Record(index, Pack(symbol, pfn, version, flags), result, symbol);
}

int GetProcAddressV2(int index, const char* symbol, void** pfn, int version, cuuint64_t flags,
                     int* symbol_status) {
  int result;
  if (!Injected(index, &result)) {
    if (symbol == nullptr || pfn == nullptr) {
      result = kInvalidValue;
    } else if (kGeneration >= 13 && version > kCudaVersion) {
      result = kInvalidValue;  // *pfn and *symbol_status untouched
    } else {
      void* fn = nullptr;
      int status = Find(symbol, version, flags, &fn);
      *pfn = fn;  // NULL when not found
      if (symbol_status != nullptr) *symbol_status = status;
      result = 0;
    }
  }
  return Record(index, Pack(symbol, pfn, version, flags, symbol_status), result, symbol);
}

}  // namespace cudyn_fake

using cudyn_fake::Lock;

extern "C" {

CUDYN_FAKE_EXPORT int cudynFakeCallCount(void) {
  Lock lock;
  return cudyn_fake::g_call_count;
}

CUDYN_FAKE_EXPORT const CudynFakeCall* cudynFakeCall(int i) {
  Lock lock;
  if (i < 0 || i >= cudyn_fake::g_call_count || i >= CUDYN_FAKE_MAX_CALLS) return nullptr;
  return &cudyn_fake::g_calls[i];
}

CUDYN_FAKE_EXPORT void cudynFakeReset(void) {
  Lock lock;
  cudyn_fake::g_call_count = 0;
  for (int i = 0; i < cudyn_fake::kMaxExports; ++i) {
    cudyn_fake::g_injected[i] = false;
    cudyn_fake::g_capture_size[i] = 0;
  }
}

CUDYN_FAKE_EXPORT int cudynFakeSetCapture(const char* symbol, int arg, int size) {
  if (symbol == nullptr || arg < 0 || arg >= CUDYN_FAKE_MAX_WORDS || size <= 0 ||
      size > CUDYN_FAKE_MAX_CAPTURE) {
    return -1;
  }
  for (int i = 0; i < cudyn_fake::kExportCount && i < cudyn_fake::kMaxExports; ++i) {
    if (std::strcmp(cudyn_fake::kExports[i].symbol, symbol) == 0) {
      Lock lock;
      cudyn_fake::g_capture_arg[i] = arg;
      cudyn_fake::g_capture_size[i] = size;
      return 0;
    }
  }
  return -1;
}

CUDYN_FAKE_EXPORT int cudynFakeSetResult(const char* symbol, int result) {
  if (symbol == nullptr) return -1;
  for (int i = 0; i < cudyn_fake::kExportCount && i < cudyn_fake::kMaxExports; ++i) {
    if (std::strcmp(cudyn_fake::kExports[i].symbol, symbol) == 0) {
      Lock lock;
      cudyn_fake::g_injected[i] = true;
      cudyn_fake::g_injected_result[i] = result;
      return 0;
    }
  }
  return -1;
}

CUDYN_FAKE_EXPORT int cudynFakeCudaVersion(void) { return cudyn_fake::kCudaVersion; }

}  // extern "C"
