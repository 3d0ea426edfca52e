// libFuzzer target over arbitrary bytes of a binary: the fatbin reader and the runtime layer,
// which read the same sections. ParseFatbins, DecodeEntry and AnalyzeRuntime must accept any
// byte string without crashing, hanging, reading out of bounds or throwing, and their results
// must satisfy the invariants of fatbin_reader.h.
//
// Build and run: tools/layers/run_fuzzer.sh [seconds]  (clang++-14
// -fsanitize=fuzzer,address,undefined)
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/elf/elf_reader.h"
#include "tools/fatbin/fatbin_reader.h"
#include "tools/layers/runtime_layer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cudyn::fatbin;
  // The runtime layer reads the same bytes (section headers, its version table, strings).
  const cudyn::elf::ElfResult er = cudyn::elf::ParseElf(data, size);
  if (er.ok()) {
    const cudyn::layers::RuntimeLayer rt = cudyn::layers::AnalyzeRuntime(er.value(), data, size);
    if (rt.linkage != cudyn::layers::RuntimeLinkage::kNone && rt.evidence.empty()) __builtin_trap();
  }
  const FatbinResult r = ParseFatbins(data, size);
  if (!r.ok) {
    if (r.error.empty()) __builtin_trap();
    return 0;
  }
  size_t n = 0;
  for (const auto& c : r.info.containers) {
    if (c.offset > size || c.size > size - c.offset) __builtin_trap();
    if (c.first_entry + c.entry_count > r.info.entries.size()) __builtin_trap();
    n += c.entry_count;
  }
  if (n != r.info.entries.size()) __builtin_trap();
  int decoded = 0;
  for (const auto& e : r.info.entries) {
    if (e.payload_offset > size || e.payload_size > size - e.payload_offset) __builtin_trap();
    if (e.container >= r.info.containers.size()) __builtin_trap();
    const auto& c = r.info.containers[e.container];
    if (e.offset < c.offset || e.payload_offset + e.payload_size > c.offset + c.size)
      __builtin_trap();
    if (decoded++ < 4) {
      std::string out, err;
      if (!DecodeEntry(data, size, e, &out, &err, 1 << 20) && err.empty()) __builtin_trap();
      int ma, mi;
      ParsePtxVersion(out, &ma, &mi);
      FindToolkitRelease(reinterpret_cast<const uint8_t*>(out.data()), out.size());
    }
    (void)e.ArchName();
  }
  return 0;
}
