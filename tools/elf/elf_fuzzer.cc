// libFuzzer target for the cudyn ELF reader: ParseElf must accept any byte string without
// crashing, leaking, reading out of bounds, throwing or invoking undefined behaviour, and its
// results must satisfy the invariants of elf_reader.h.
//
// Build and run: tools/elf/run_fuzzer.sh [seconds]  (clang++-14
// -fsanitize=fuzzer,address,undefined)
#include <cstddef>
#include <cstdint>

#include "tools/elf/elf_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const cudyn::elf::ElfResult r = cudyn::elf::ParseElf(data, size);
  if (!r.ok()) {
    if (r.error().message.empty()) __builtin_trap();  // every error says what is wrong
    return 0;
  }
  const cudyn::elf::ElfInfo& info = r.value();
  if (info.elf_class != 32 && info.elf_class != 64) __builtin_trap();
  if (info.machine_name.empty()) __builtin_trap();
  if (!info.is_dynamic &&
      (!info.needed.empty() || !info.undefined.empty() || !info.defined.empty() ||
       !info.soname.empty() || !info.rpath.empty() || !info.runpath.empty())) {
    __builtin_trap();  // everything dynamic comes from PT_DYNAMIC
  }
  size_t bytes = 0;
  for (const auto& s : info.undefined) {
    if (s.name.empty()) __builtin_trap();
    if (!s.version_file.empty() && s.version.empty()) __builtin_trap();
    bytes += s.name.size() + s.version.size() + s.version_file.size();
  }
  for (const auto& s : info.defined) {
    if (s.empty()) __builtin_trap();
    bytes += s.size();
  }
  for (const auto& s : info.needed) bytes += s.size();
  // Copied string data stays proportional to the input (see the string budget in the reader).
  if (bytes > 4 * size + (size_t{16} << 20)) __builtin_trap();
  return 0;
}
