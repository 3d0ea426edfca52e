// The CUDA runtime's fingerprint: its versioned entry-point table, in one place for cudyn-check's
// runtime layer and the toolkit loader (scanning a file: FindRuntimeVersionTableInElf) and the
// driver drop-in (scanning a loaded object's memory).
//
// Every CUDA runtime — libcudart.so.* and each copy compiled into a program or library
// (libcudart_static.a: cuBLAS, cuFFT, cuDNN, ... carry one) — holds, in .data.rel.ro, hundreds of
// consecutive 24-byte records {u64 version, char* name ("cuda..."), u64 0}; the newest version in
// it is the runtime's own (measured: 13.0 492 records, newest 13000; Debian's 11.8 434, 11080;
// cuBLAS 12.5.2 embeds 12030). It survives `strip`. In a file the name pointer is the link-time
// address (the linker writes RELATIVE relocations' addends in place); in memory, the relocated one.
// Header-only, no allocation, never throws.
#ifndef CUDYN_LOADER_RUNTIME_FINGERPRINT_H_
#define CUDYN_LOADER_RUNTIME_FINGERPRINT_H_

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cudyn {

// Fewer consecutive records than this is not a runtime's table.
inline constexpr size_t kMinVersionTableRecords = 32;
inline constexpr size_t kVersionTableRecordSize = 24;

struct VersionTableScan {
  size_t records = 0;  // the longest run of records found
  int version = 0;     // the newest version in that run
};

// Reads 8 bytes at `p` (little-endian hosts and files: x86_64, aarch64).
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Scans [data, data + size) at 8-byte steps (relative to `data`) for the longest run of records.
// `names_cuda(pointer)` says whether a record's name pointer points at bytes starting "cuda" (the
// caller maps it into its file or its object); `load(p)` reads 8 bytes (LoadU64; a scan of a loaded
// object's memory passes one AddressSanitizer does not check: the segment holds other objects'
// globals and their redzones). Keeps `best` when nothing longer is found.
template <typename NamesCuda, typename Load = uint64_t (*)(const uint8_t*)>
void ScanVersionTable(const uint8_t* data, size_t size, NamesCuda names_cuda,
                      VersionTableScan* best, Load load_u64 = LoadU64) {
  auto load = [data, &load_u64](size_t at) { return load_u64(data + at); };
  size_t run = 0;
  int run_max = 0;
  auto close_run = [&] {
    if (run > best->records) *best = {run, run_max};
    run = 0;
    run_max = 0;
  };
  size_t i = 0;
  while (size >= kVersionTableRecordSize && i <= size - kVersionTableRecordSize) {
    const uint64_t v = load(i);
    if (v >= 1000 && v <= 99990 && v % 10 == 0 && load(i + 16) == 0 && names_cuda(load(i + 8))) {
      ++run;
      if (static_cast<int>(v) > run_max) run_max = static_cast<int>(v);
      i += kVersionTableRecordSize;
      continue;
    }
    close_run();
    i += 8;
  }
  close_run();
}

// The runtime in an ELF64 image held in memory (a file's bytes, mapped or read): the longest run of
// records in its allocated, non-executable PROGBITS sections (only the one named `only_section`
// when that is not null: the loader reads ".data.rel.ro"), a record's name pointer mapped to a file
// offset through the allocated sections with contents. Its newest version, or 0 when the image is no
// ELF64 or holds fewer than kMinVersionTableRecords records; `*records` gets the run's length.
// Every header and section is checked against `size`.
inline int FindRuntimeVersionTableInElf(const uint8_t* data, size_t size, const char* only_section,
                                        size_t* records) {
  *records = 0;
  Elf64_Ehdr eh;
  if (data == nullptr || size < sizeof(eh)) return 0;
  std::memcpy(&eh, data, sizeof(eh));
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shoff > size ||
      (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum) {
    return 0;
  }
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data + eh.e_shoff + i * sizeof(sh), sizeof(sh));
    return sh;
  };
  auto named = [&](const Elf64_Shdr& sh) {
    if (only_section == nullptr) return true;
    if (eh.e_shstrndx >= eh.e_shnum) return false;
    const Elf64_Shdr names = section(eh.e_shstrndx);
    const size_t length = std::strlen(only_section) + 1;
    return names.sh_offset <= size && names.sh_size <= size - names.sh_offset &&
           sh.sh_name < names.sh_size && names.sh_size - sh.sh_name >= length &&
           std::memcmp(data + names.sh_offset + sh.sh_name, only_section, length) == 0;
  };
  // A virtual address's file offset, through the allocated sections with contents.
  auto offset_of = [&](uint64_t va, uint64_t* off) {
    for (size_t i = 0; i < eh.e_shnum; ++i) {
      const Elf64_Shdr sh = section(i);
      if (sh.sh_type == SHT_NULL || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
          va < sh.sh_addr || va - sh.sh_addr >= sh.sh_size) {
        continue;
      }
      *off = sh.sh_offset + (va - sh.sh_addr);
      return *off < size;
    }
    return false;
  };
  VersionTableScan best;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    // PROGBITS, allocated, not executable: .data.rel.ro in practice.
    if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_EXECINSTR) ||
        sh.sh_size < kVersionTableRecordSize || sh.sh_offset > size ||
        sh.sh_size > size - sh.sh_offset || !named(sh)) {
      continue;
    }
    const uint64_t begin = (sh.sh_offset + 7) & ~uint64_t{7};
    if (begin >= sh.sh_offset + sh.sh_size) continue;
    ScanVersionTable(
        data + begin, static_cast<size_t>(sh.sh_offset + sh.sh_size - begin),
        [&](uint64_t pointer) {
          uint64_t off = 0;
          return offset_of(pointer, &off) && size - off >= 4 &&
                 std::memcmp(data + off, "cuda", 4) == 0;
        },
        &best);
  }
  if (best.records < kMinVersionTableRecords) return 0;
  *records = best.records;
  return best.version;
}

}  // namespace cudyn

#endif  // CUDYN_LOADER_RUNTIME_FINGERPRINT_H_
