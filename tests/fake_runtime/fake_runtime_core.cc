// Call recording and the control API shared by every generated fake runtime.
#include "tests/fake_runtime/fake_runtime_core.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tests/fake_runtime/fake_runtime_control.h"

extern "C" const char* fake_cudart_version_text();

namespace fake_cudart {
namespace {

struct Record {
  int calls = 0;
  std::vector<std::vector<unsigned char>> args;  // the last call's
  int result = 0;
  std::map<int, std::vector<unsigned char>> outs;
};

std::mutex& Mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, Record>& Records() {
  static auto* r = new std::map<std::string, Record>();
  return *r;
}
int g_driver_version = 0;
std::vector<unsigned char>& Chosen() {
  static auto* c = new std::vector<unsigned char>();
  return *c;
}

uint32_t Fnv1a(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
  return h;
}

}  // namespace

Call::Call(const char* symbol) : symbol_(symbol) {
  std::lock_guard<std::mutex> lock(Mutex());
  fake_cudart::Record& r = Records()[symbol_];
  r.calls++;
  r.args.clear();
}

void Call::Record(int index, const void* bytes, size_t size) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto& args = Records()[symbol_].args;
  if (static_cast<int>(args.size()) <= index) args.resize(index + 1);
  const auto* p = static_cast<const unsigned char*>(bytes);
  args[index].assign(p, p + size);
}

int Call::Finish() {
  std::lock_guard<std::mutex> lock(Mutex());
  fake_cudart::Record& r = Records()[symbol_];
  for (const auto& [index, bytes] : r.outs) {
    if (index >= static_cast<int>(r.args.size()) || r.args[index].size() != sizeof(void*)) continue;
    void* target = nullptr;
    std::memcpy(&target, r.args[index].data(), sizeof(target));
    if (target != nullptr) std::memcpy(target, bytes.data(), bytes.size());
  }
  return r.result;
}

int DriverVersion() {
  std::lock_guard<std::mutex> lock(Mutex());
  return g_driver_version != 0 ? g_driver_version : RuntimeVersion();
}

void SaveChosenProp(const void* prop, size_t size) {
  std::lock_guard<std::mutex> lock(Mutex());
  const auto* p = static_cast<const unsigned char*>(prop);
  Chosen().assign(p, p + size);
}

void FillProp(void* prop) {
  auto* out = static_cast<unsigned char*>(prop);
  for (int i = 0; i < kPropFieldCount; ++i) {
    const PropField& f = kPropFields[i];
    const uint32_t h = Fnv1a(f.name);
    for (int k = 0; k < f.size; ++k) out[f.offset + k] = static_cast<unsigned char>(h + k);
  }
}

}  // namespace fake_cudart

using fake_cudart::Mutex;
using fake_cudart::Records;

extern "C" {

__attribute__((visibility("default"))) void fake_cudart_reset(void) {
  std::lock_guard<std::mutex> lock(Mutex());
  Records().clear();
  fake_cudart::g_driver_version = 0;
  fake_cudart::Chosen().clear();
}

__attribute__((visibility("default"))) void fake_cudart_set_result(const char* symbol, int result) {
  std::lock_guard<std::mutex> lock(Mutex());
  Records()[symbol].result = result;
}

__attribute__((visibility("default"))) void fake_cudart_set_driver_version(int version) {
  std::lock_guard<std::mutex> lock(Mutex());
  fake_cudart::g_driver_version = version;
}

__attribute__((visibility("default"))) int fake_cudart_call_count(const char* symbol) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto it = Records().find(symbol);
  return it == Records().end() ? 0 : it->second.calls;
}

__attribute__((visibility("default"))) int fake_cudart_last_arg(const char* symbol, int arg_index,
                                                                void* out, size_t size) {
  std::lock_guard<std::mutex> lock(Mutex());
  auto it = Records().find(symbol);
  if (it == Records().end() || arg_index < 0 ||
      arg_index >= static_cast<int>(it->second.args.size())) {
    return -1;
  }
  const auto& bytes = it->second.args[arg_index];
  std::memcpy(out, bytes.data(), bytes.size() < size ? bytes.size() : size);
  return static_cast<int>(bytes.size());
}

__attribute__((visibility("default"))) void fake_cudart_set_out(const char* symbol, int arg_index,
                                                                const void* bytes, size_t size) {
  std::lock_guard<std::mutex> lock(Mutex());
  const auto* p = static_cast<const unsigned char*>(bytes);
  Records()[symbol].outs[arg_index].assign(p, p + size);
}

__attribute__((visibility("default"))) int fake_cudart_chosen_field(const char* field_name,
                                                                    void* out, size_t size) {
  std::lock_guard<std::mutex> lock(Mutex());
  const auto& chosen = fake_cudart::Chosen();
  for (int i = 0; i < fake_cudart::kPropFieldCount; ++i) {
    const fake_cudart::PropField& f = fake_cudart::kPropFields[i];
    if (std::strcmp(f.name, field_name) != 0) continue;
    if (chosen.size() < static_cast<size_t>(f.offset + f.size)) return -1;
    std::memcpy(out, chosen.data() + f.offset, static_cast<size_t>(f.size) < size ? f.size : size);
    return f.size;
  }
  return -1;
}

__attribute__((visibility("default"))) const char* fake_cudart_identity(void) {
  return fake_cudart_version_text();
}

}  // extern "C"
