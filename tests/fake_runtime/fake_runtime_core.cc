// Call recording, the behaviours shared by every generated fake runtime, and the control API.
#include "tests/fake_runtime/fake_runtime_core.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "tests/fake_runtime/fake_runtime_control.h"

namespace fake_cudart {
namespace {

struct Record {
  int calls = 0;
  std::vector<std::vector<unsigned char>> args;  // the last call's
  std::map<int, std::vector<unsigned char>> pointees;  // the last call's `const struct X*` targets
  int result = 0;
  std::map<int, std::vector<unsigned char>> outs;  // argument index -> bytes written through it
};

struct State {
  std::mutex mu;
  std::map<std::string, Record> records;
  int driver_version = 0;
  std::vector<unsigned char> chosen;  // *prop of the last cudaChooseDevice
};

// Never destroyed, so that calls during process exit (nvcc's atexit unregistration) still
// work; ReleaseState frees what it holds when the fake is unloaded or the process exits.
State& S() {
  alignas(State) static unsigned char storage[sizeof(State)];
  static State* s = new (storage) State();
  return *s;
}

__attribute__((destructor)) void ReleaseState() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.records.clear();
  std::vector<unsigned char>().swap(s.chosen);
}

uint32_t Fnv1a(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
  return h;
}

const PropField* FindField(const char* name) {
  for (int i = 0; i < kPropFieldCount; ++i) {
    if (std::strcmp(kPropFields[i].name, name) == 0) return &kPropFields[i];
  }
  return nullptr;
}

// nvcc's launch configuration stack (__cudaPushCallConfiguration / __cudaPopCallConfiguration),
// per thread as in the real runtime. dim3 is three unsigned ints in every version.
struct Config {
  unsigned char grid[12];
  unsigned char block[12];
  size_t shared;
  void* stream;
};
thread_local std::vector<Config> t_configs;

constexpr int kCudaErrorMissingConfiguration = 52;

thread_local int t_last_error = 0;

}  // namespace

void Call::Add(const void* bytes, size_t size) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  args_.emplace_back(p, p + (size < kMaxArgBytes ? size : kMaxArgBytes));
}

void Call::AddPointee(int index, const void* bytes, size_t size) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  pointees_[index].assign(p, p + size);
}

int Call::Commit() {
  std::lock_guard<std::mutex> lock(S().mu);
  Record& r = S().records[symbol_];
  r.calls++;
  r.args = args_;
  r.pointees = pointees_;
  outs_ = r.outs;
  return r.result;
}

void Call::WriteOuts() {
  for (const auto& [index, bytes] : outs_) {
    if (index < 0 || index >= static_cast<int>(args_.size()) ||
        args_[index].size() != sizeof(void*)) {
      continue;
    }
    void* target = nullptr;
    std::memcpy(&target, args_[index].data(), sizeof(target));
    if (target != nullptr && !bytes.empty()) std::memcpy(target, bytes.data(), bytes.size());
  }
}

int DriverVersion() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().driver_version != 0 ? S().driver_version : RuntimeVersion();
}

void FillProp(void* prop) {
  auto* out = static_cast<unsigned char*>(prop);
  for (int i = 0; i < kPropFieldCount; ++i) {
    const PropField& f = kPropFields[i];
    const uint32_t h = Fnv1a(f.name);
    for (int k = 0; k < f.size; ++k) out[f.offset + k] = static_cast<unsigned char>(h + k);
  }
  auto set = [out](const char* name, const void* value, size_t size) {
    const PropField* f = FindField(name);
    if (f == nullptr) return;
    std::memset(out + f->offset, 0, f->size);
    std::memcpy(out + f->offset, value, size < static_cast<size_t>(f->size) ? size : f->size);
  };
  const char* device_name = DeviceName();
  const int major = 9, minor = 0, sms = 132;
  const size_t memory = 85899345920ull;
  set("name", device_name, std::strlen(device_name));  // NUL padded
  set("major", &major, sizeof(major));
  set("minor", &minor, sizeof(minor));
  set("multiProcessorCount", &sms, sizeof(sms));
  set("totalGlobalMem", &memory, sizeof(memory));
}

void SaveChosenProp(const void* prop, size_t size) {
  std::lock_guard<std::mutex> lock(S().mu);
  const auto* p = static_cast<const unsigned char*>(prop);
  S().chosen.assign(p, p + size);
}

void** FatBinaryHandle() {
  static void* handle[4] = {};
  return handle;
}

void PushConfig(const void* grid, const void* block, size_t shared, void* stream) {
  Config c;
  std::memcpy(c.grid, grid, sizeof(c.grid));
  std::memcpy(c.block, block, sizeof(c.block));
  c.shared = shared;
  c.stream = stream;
  t_configs.push_back(c);
}

int PopConfig(void* grid, void* block, size_t* shared, void* stream) {
  if (t_configs.empty()) return kCudaErrorMissingConfiguration;
  const Config c = t_configs.back();
  t_configs.pop_back();
  if (grid != nullptr) std::memcpy(grid, c.grid, sizeof(c.grid));
  if (block != nullptr) std::memcpy(block, c.block, sizeof(c.block));
  if (shared != nullptr) *shared = c.shared;
  if (stream != nullptr) std::memcpy(stream, &c.stream, sizeof(c.stream));
  return 0;
}

void NoteResult(int result) {
  if (result != 0) t_last_error = result;
}

int LastError(bool reset) {
  const int error = t_last_error;
  if (reset) t_last_error = 0;
  return error;
}

}  // namespace fake_cudart

using fake_cudart::S;

extern "C" {

void fake_cudart_reset(void) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().records.clear();
  S().driver_version = 0;
  S().chosen.clear();
  fake_cudart::t_last_error = 0;  // the calling thread's
}

void fake_cudart_set_result(const char* symbol, int result) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().records[symbol].result = result;
}

void fake_cudart_set_driver_version(int version) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().driver_version = version;
}

int fake_cudart_call_count(const char* symbol) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().records.find(symbol);
  return it == S().records.end() ? 0 : it->second.calls;
}

int fake_cudart_last_arg(const char* symbol, int arg_index, void* out, size_t size) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().records.find(symbol);
  if (it == S().records.end() || arg_index < 0 ||
      arg_index >= static_cast<int>(it->second.args.size())) {
    return -1;
  }
  const auto& bytes = it->second.args[arg_index];
  if (out != nullptr) std::memcpy(out, bytes.data(), bytes.size() < size ? bytes.size() : size);
  return static_cast<int>(bytes.size());
}

int fake_cudart_last_pointee(const char* symbol, int arg_index, void* out, size_t size) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().records.find(symbol);
  if (it == S().records.end()) return -1;
  auto p = it->second.pointees.find(arg_index);
  if (p == it->second.pointees.end()) return -1;
  const auto& bytes = p->second;
  if (out != nullptr && !bytes.empty()) {
    std::memcpy(out, bytes.data(), bytes.size() < size ? bytes.size() : size);
  }
  return static_cast<int>(bytes.size());
}

void fake_cudart_set_out(const char* symbol, int arg_index, const void* bytes, size_t size) {
  std::lock_guard<std::mutex> lock(S().mu);
  const auto* p = static_cast<const unsigned char*>(bytes);
  S().records[symbol].outs[arg_index].assign(p, p + size);
}

int fake_cudart_chosen_field(const char* field_name, void* out, size_t size) {
  std::lock_guard<std::mutex> lock(S().mu);
  const fake_cudart::PropField* f = fake_cudart::FindField(field_name);
  const auto& chosen = S().chosen;
  if (f == nullptr || chosen.size() < static_cast<size_t>(f->offset + f->size)) return -1;
  if (out != nullptr) {
    std::memcpy(out, chosen.data() + f->offset, static_cast<size_t>(f->size) < size ? f->size : size);
  }
  return f->size;
}

const char* fake_cudart_identity(void) { return fake_cudart::Identity(); }

}  // extern "C"
