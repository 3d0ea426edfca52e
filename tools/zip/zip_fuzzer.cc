// libFuzzer target for the readers of `cudyn-check binary`'s whole-install inputs: the zip reader
// (central directory, then every entry as the CLI reads it: Peek for the ELF magic, then ReadAll,
// under one archive budget with small limits so that bombs in the corpus stay fast) and the
// ld.so.cache parser, on the same bytes. Build and run: tools/zip/run_fuzzer.sh [seconds].
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tools/deps/library_search.h"
#include "tools/zip/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<cudyn::zip::ZipEntry> entries;
  cudyn::zip::ZipError zip_error;
  if (cudyn::zip::ReadZipDirectory(data, size, &entries, &zip_error)) {
    cudyn::zip::ArchiveBudget budget;
    budget.limits.max_member_size = uint64_t{1} << 20;
    budget.limits.max_archive_output = uint64_t{16} << 20;
    size_t extracted = 0;
    for (const cudyn::zip::ZipEntry& e : entries) {
      if (++extracted > 64) break;
      cudyn::zip::EntryReader reader(data, size, e, &budget);
      if (!reader.Peek(4, &zip_error)) continue;
      if (reader.size() < 4 || std::memcmp(reader.data(), "\x7f" "ELF", 4) != 0) continue;
      reader.ReadAll(&zip_error);
    }
  }
  std::string error;
  std::vector<cudyn::deps::CacheEntry> cache;
  cudyn::deps::ParseLdCache(data, size, &cache, &error);
  for (const cudyn::deps::CacheEntry& c : cache) {
    (void)cudyn::deps::CacheEntryMatches(c, 64, 62);
    (void)cudyn::deps::NormalizePath(c.path);
  }
  return 0;
}
