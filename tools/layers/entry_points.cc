#include "tools/layers/entry_points.h"

#include <string.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "version_tables/api_table.h"

namespace cudyn {
namespace layers {
namespace {

constexpr char kCudynLoaderMarker[] = "CUDYN_DRIVER_PATH";
constexpr uint32_t kSectionNull = 0;
constexpr uint32_t kSectionNoBits = 8;

bool IsIdentChar(uint8_t c) { return std::isalnum(c) || c == '_'; }

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

std::vector<NamedEntryPoint> FindNamedEntryPoints(const elf::ElfInfo& info,
                                                  const std::vector<fatbin::SectionInfo>& sections,
                                                  const uint8_t* data, size_t size) {
  std::vector<NamedEntryPoint> out;
  std::set<std::string> seen(info.defined.begin(), info.defined.end());
  for (const elf::ImportedSymbol& sym : info.undefined) seen.insert(sym.name);
  for (const fatbin::SectionInfo& sec : sections) {
    if (sec.type == kSectionNull || sec.type == kSectionNoBits) continue;
    if (sec.name != ".dynstr" && sec.name.compare(0, 7, ".rodata") != 0) continue;
    if (sec.offset > size || sec.size > size - sec.offset) continue;
    const uint8_t* p = data + sec.offset;
    const size_t n = static_cast<size_t>(sec.size);
    for (size_t i = 0; i + 3 < n; ++i) {
      if (p[i] != 'c' || p[i + 1] != 'u' || !std::isupper(p[i + 2])) continue;
      if (i > 0 && p[i - 1] != 0) continue;
      size_t j = i + 3;
      while (j < n && j - i < 128 && IsIdentChar(p[j])) ++j;
      if (j >= n || p[j] != 0) continue;
      std::string name(reinterpret_cast<const char*>(p + i), j - i);
      i = j;
      if (!seen.insert(name).second) continue;
      const int e = FindEntry(name);
      if (e < 0) continue;
      out.push_back({name, kEntries[e].abi_version});
    }
  }
  std::sort(out.begin(), out.end(), [](const NamedEntryPoint& x, const NamedEntryPoint& y) {
    if (x.abi_version != y.abi_version) return x.abi_version > y.abi_version;
    return x.symbol < y.symbol;
  });
  return out;
}

bool MayEmbedCudynLoader(const elf::ElfInfo& info) {
  if (StartsWith(info.soname, "libcuda.so")) return false;
  for (const std::string& needed : info.needed) {
    if (StartsWith(needed, "libcuda.so") || StartsWith(needed, "libcudyn_cuda.so")) return false;
  }
  for (const std::string& name : info.defined) {
    if (FindEntry(name) >= 0) return false;
  }
  for (const elf::ImportedSymbol& sym : info.undefined) {
    if (FindEntry(sym.name) >= 0) return false;
  }
  return true;
}

bool HasCudynLoaderMarker(const uint8_t* data, size_t size) {
  return memmem(data, size, kCudynLoaderMarker, sizeof kCudynLoaderMarker - 1) != nullptr;
}

}  // namespace layers
}  // namespace cudyn
