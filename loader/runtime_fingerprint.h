// The CUDA runtime's fingerprint: its versioned entry-point table, in one place for cudyn-check's
// runtime layer (scanning a file) and the driver drop-in (scanning a loaded object's memory).
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

}  // namespace cudyn

#endif  // CUDYN_LOADER_RUNTIME_FINGERPRINT_H_
