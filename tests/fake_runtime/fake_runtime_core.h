// The recording core every generated fake runtime is built with (fake_runtime_core.cc).
#ifndef CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_
#define CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_

#include <cstddef>

namespace fake_cudart {

// One call in progress: Arg() records each argument, Finish() applies out-injections (through
// the recorded pointer arguments) and returns the configured result.
class Call {
 public:
  explicit Call(const char* symbol);
  template <typename T>
  void Arg(int index, const T& value) {
    Record(index, &value, sizeof(T));
  }
  int Finish();

 private:
  void Record(int index, const void* bytes, size_t size);
  const char* symbol_;
};

int RuntimeVersion();    // the version this fake reports (generated)
int DriverVersion();     // configured, else RuntimeVersion()
void SaveChosenProp(const void* prop, size_t size);
// The fake's cudaDeviceProp layout (generated): name -> offset/size.
struct PropField {
  const char* name;
  int offset;
  int size;
};
extern const PropField kPropFields[];
extern const int kPropFieldCount;
void FillProp(void* prop);  // the documented pattern + readable fields

}  // namespace fake_cudart

#endif  // CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_
