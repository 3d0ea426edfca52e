// Runtime shared by every generated fake driver (fake_cuda_<V>.cc): the call log, fault
// injection and the cuGetProcAddress implementation. Internal to //tests/fake_driver; tests use
// fake_driver.h. Everything in namespace cudyn_fake is hidden: a fake exports only its cu*
// functions and the cudynFake* API.
#ifndef CUDYN_TESTS_FAKE_DRIVER_FAKE_RUNTIME_H_
#define CUDYN_TESTS_FAKE_DRIVER_FAKE_RUNTIME_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tests/fake_driver/fake_driver.h"
#include "version_tables/cuda_driver_api.h"

#define CUDYN_FAKE_EXPORT __attribute__((visibility("default")))

namespace cudyn_fake __attribute__((visibility("hidden"))) {

// One function the fake exports.
struct Export {
  const char* symbol;
  const char* base;  // the name cuGetProcAddress knows it by
  bool per_thread;   // a _ptds/_ptsz variant
  int abi_version;   // CUDA version the variant appeared in
  bool gpa;          // cuGetProcAddress can return it
  void* fn;
};

// Defined by the generated source.
extern const int kCudaVersion;  // what cuDriverGetVersion reports
extern const int kGeneration;   // cuGetProcAddress behaviour: 11, 12 (lenient) or 13 (strict)
extern const int kExportCount;
extern const Export kExports[];

// Arguments of one call, as recorded.
struct Args {
  int num_args = 0;
  int num_words = 0;
  uint64_t words[CUDYN_FAKE_MAX_WORDS] = {};
  int arg_word[CUDYN_FAKE_MAX_WORDS] = {};
};

template <class T>
void Put(Args* a, const T& value) {
  if (a->num_args >= CUDYN_FAKE_MAX_WORDS) return;
  a->arg_word[a->num_args++] = a->num_words;
  if constexpr (std::is_pointer_v<T> || std::is_null_pointer_v<T>) {
    if (a->num_words < CUDYN_FAKE_MAX_WORDS) {
      a->words[a->num_words++] = reinterpret_cast<uintptr_t>(value);
    }
  } else if constexpr (std::is_enum_v<T>) {
    if (a->num_words < CUDYN_FAKE_MAX_WORDS) {
      a->words[a->num_words++] =
          static_cast<uint64_t>(static_cast<int64_t>(static_cast<std::underlying_type_t<T>>(value)));
    }
  } else if constexpr (std::is_integral_v<T>) {
    if (a->num_words < CUDYN_FAKE_MAX_WORDS) {
      a->words[a->num_words++] = static_cast<uint64_t>(static_cast<int64_t>(value));
    }
  } else {  // floating point, structs and unions passed by value: bytewise
    constexpr int kWords = static_cast<int>((sizeof(T) + 7) / 8);
    if (a->num_words + kWords <= CUDYN_FAKE_MAX_WORDS) {
      std::memcpy(&a->words[a->num_words], &value, sizeof(T));
      a->num_words += kWords;
    }
  }
}

// Records a call of kExports[index] and returns what it returns (CUDA_SUCCESS, cuInit's
// default, or a result set by cudynFakeSetResult). `requested`: cuGetProcAddress's symbol name.
int Record(int index, const Args& args, int result, const char* requested = nullptr);
// The result set by cudynFakeSetResult for kExports[index], if any.
bool Injected(int index, int* result);
// What a call of kExports[index] returns when nothing was injected.
int DefaultResult(int index);

template <class... A>
int Call(int index, const A&... values) {
  Args args;
  (Put(&args, values), ...);
  int result;
  if (!Injected(index, &result)) result = DefaultResult(index);
  return Record(index, args, result);
}

int DriverGetVersion(int index, int* version);
// With $CUDYN_FAKE_GPU set to a compute capability number (90 for sm_90): one device of that
// capability (count 1, device 0, attributes 75/76 its major/minor) and cuInit succeeds; without
// it these only record, like every other function.
int DeviceGetCount(int index, int* count);
int DeviceGetAttribute(int index, int* value, int attribute, int device);
int CtxGetDevice(int index, int* device);
// cuGetErrorName/cuGetErrorString as the real drivers answer them (the newest known text); an
// unknown code returns 1 and stores NULL, as they do.
int ErrorName(int index, int result, const char** out);
int ErrorString(int index, int result, const char** out);
int GetProcAddressV1(int index, const char* symbol, void** pfn, int version, cuuint64_t flags);
int GetProcAddressV2(int index, const char* symbol, void** pfn, int version, cuuint64_t flags,
                     int* symbol_status);

}  // namespace cudyn_fake

#endif  // CUDYN_TESTS_FAKE_DRIVER_FAKE_RUNTIME_H_
