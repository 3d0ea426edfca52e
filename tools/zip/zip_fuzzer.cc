// libFuzzer target for the readers of `cudyn-check binary`'s whole-install inputs: the zip reader
// (central directory, then every entry extracted with a 1 MiB cap) and the ld.so.cache parser, on
// the same bytes. Build and run: tools/zip/run_fuzzer.sh [seconds].
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/deps/library_search.h"
#include "tools/zip/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<cudyn::zip::ZipEntry> entries;
  std::string error;
  if (cudyn::zip::ReadZipDirectory(data, size, &entries, &error)) {
    std::vector<uint8_t> out;
    size_t extracted = 0;
    for (const cudyn::zip::ZipEntry& e : entries) {
      if (++extracted > 64) break;
      cudyn::zip::ExtractZipEntry(data, size, e, &out, &error, uint64_t{1} << 20);
    }
  }
  std::vector<cudyn::deps::CacheEntry> cache;
  cudyn::deps::ParseLdCache(data, size, &cache, &error);
  for (const cudyn::deps::CacheEntry& c : cache) {
    (void)cudyn::deps::CacheEntryMatches(c, 64, 62);
    (void)cudyn::deps::NormalizePath(c.path);
  }
  return 0;
}
