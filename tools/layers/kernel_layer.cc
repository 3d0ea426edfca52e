#include "tools/layers/kernel_layer.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace cudyn {
namespace layers {
namespace {

auto Key(const KernelImage& k) {
  return std::make_tuple(k.ptx, k.arch.major, k.arch.minor, k.arch.variant, k.isa_major,
                         k.isa_minor);
}

}  // namespace

bool ParseGpuArch(const std::string& text, GpuArch* out) {
  std::string t = text;
  for (const char* p : {"sm_", "compute_", "SM_"}) {
    if (t.rfind(p, 0) == 0) {
      t = t.substr(std::char_traits<char>::length(p));
      break;
    }
  }
  char variant = '\0';
  if (!t.empty() && (t.back() == 'a' || t.back() == 'f')) {
    variant = t.back();
    t.pop_back();
  }
  if (t.empty() || t.size() > 5) return false;
  const auto dot = t.find('.');
  if (dot != std::string::npos) {
    int ma = 0, mi = 0;
    char extra;
    if (std::sscanf(t.c_str(), "%d.%d%c", &ma, &mi, &extra) != 2 || ma <= 0 || mi < 0 || mi > 9)
      return false;
    *out = GpuArch{ma, mi, variant};
    return true;
  }
  int n = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  if (n < 10) return false;
  *out = ArchFromNumber(n, variant);
  return true;
}

KernelLayer AnalyzeKernels(const fatbin::FatbinInfo& info) {
  KernelLayer k;
  k.containers = info.containers.size();
  k.entries = info.entries.size();
  k.has_device_code = !info.entries.empty();
  k.warnings = info.warnings;
  bool have_isa = false;
  for (const auto& e : info.entries) {
    if (e.compression != fatbin::Compression::kNone) ++k.compressed_entries;
    if (e.kind == fatbin::EntryKind::kUnknown) {
      ++k.unknown_entries;
      continue;
    }
    KernelImage img;
    img.ptx = e.kind == fatbin::EntryKind::kPtx;
    img.arch = ArchFromNumber(e.arch, e.variant);
    if (img.ptx) {
      img.isa_major = e.version_major;
      img.isa_minor = e.version_minor;
      const auto v = std::make_pair(img.isa_major, img.isa_minor);
      if (!have_isa || v < std::make_pair(k.min_isa_major, k.min_isa_minor)) {
        k.min_isa_major = v.first;
        k.min_isa_minor = v.second;
      }
      if (!have_isa || v > std::make_pair(k.max_isa_major, k.max_isa_minor)) {
        k.max_isa_major = v.first;
        k.max_isa_minor = v.second;
      }
      have_isa = true;
    }
    auto it = std::find(k.images.begin(), k.images.end(), img);
    if (it == k.images.end()) {
      k.images.push_back(img);
      it = k.images.end() - 1;
    }
    ++it->count;
    if (e.compression != fatbin::Compression::kNone) ++it->compressed;
  }
  std::sort(k.images.begin(), k.images.end(),
            [](const KernelImage& a, const KernelImage& b) { return Key(a) < Key(b); });
  return k;
}

int FindKernelToolkit(const uint8_t* data, size_t size, const fatbin::FatbinInfo& info,
                      int max_decodes) {
  for (const auto& e : info.entries) {
    if (e.kind != fatbin::EntryKind::kCubin || e.compression != fatbin::Compression::kNone)
      continue;
    if (e.payload_offset > size || e.payload_size > size - e.payload_offset) continue;
    if (int v = fatbin::FindToolkitRelease(data + e.payload_offset,
                                           static_cast<size_t>(e.payload_size))) {
      return v;
    }
  }
  int decodes = 0;
  for (const auto& e : info.entries) {
    if (decodes >= max_decodes) break;
    if (e.kind != fatbin::EntryKind::kCubin || e.compression == fatbin::Compression::kNone)
      continue;
    ++decodes;
    std::string out, err;
    if (!fatbin::DecodeEntry(data, size, e, &out, &err, uint64_t{64} << 20)) continue;
    if (int v =
            fatbin::FindToolkitRelease(reinterpret_cast<const uint8_t*>(out.data()), out.size())) {
      return v;
    }
  }
  return 0;
}

}  // namespace layers
}  // namespace cudyn
