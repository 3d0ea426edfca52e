// The recording core every generated fake runtime is built with (fake_runtime_core.cc); the
// generated source (gen_fake_runtime.py) defines the version-specific parts declared below.
#ifndef CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_
#define CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_

#include <cstddef>
#include <map>
#include <vector>

namespace fake_cudart {

// Bytes recorded per argument at most (fake_runtime_control.h).
constexpr size_t kMaxArgBytes = 64;

// One call in progress: Arg() collects each argument's bytes, Commit() records the call (count
// and arguments, atomically) and returns the configured result, WriteOuts() writes the
// configured out-injections through the pointer arguments.
class Call {
 public:
  explicit Call(const char* symbol) : symbol_(symbol) {}
  template <typename T>
  void Arg(const T& value) {
    Add(&value, sizeof(T));
  }
  // A `const struct X*` argument: the struct it points to, in the fake's own layout (nothing for
  // NULL), kept for fake_cudart_last_pointee.
  template <typename T>
  void Pointee(int index, const T* p) {
    AddPointee(index, p, p != nullptr ? sizeof(T) : 0);
  }
  int Commit();
  void WriteOuts();

 private:
  void Add(const void* bytes, size_t size);
  void AddPointee(int index, const void* bytes, size_t size);
  const char* symbol_;
  std::vector<std::vector<unsigned char>> args_;
  std::map<int, std::vector<unsigned char>> pointees_;
  std::map<int, std::vector<unsigned char>> outs_;
};

// Generated per version.
int RuntimeVersion();
const char* Identity();    // "fake libcudart <version>"
const char* DeviceName();  // "cudyn fake runtime <version>"
struct PropField {
  const char* name;
  int offset;
  int size;
};
extern const PropField kPropFields[];  // that version's struct cudaDeviceProp
extern const int kPropFieldCount;

// Behaviour of a few entry points.
int DriverVersion();  // fake_cudart_set_driver_version's, else RuntimeVersion()
void FillProp(void* prop);
void SaveChosenProp(const void* prop, size_t size);
void** FatBinaryHandle();
void PushConfig(const void* grid, const void* block, size_t shared, void* stream);
int PopConfig(void* grid, void* block, size_t* shared, void* stream);
// The calling thread's last error, as a real runtime keeps it: NoteResult records a non-zero
// result of a cudaError_t entry; LastError returns it (and clears it when `reset`).
void NoteResult(int result);
int LastError(bool reset);

}  // namespace fake_cudart

#endif  // CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CORE_H_
