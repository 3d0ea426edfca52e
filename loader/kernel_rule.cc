#include "loader/kernel_rule.h"

#include <cstring>
#include <tuple>

namespace cudyn {
namespace kernel_rule {
namespace {

struct IsaRow {
  int major, minor, cuda;
};
constexpr IsaRow kPtxIsa[] = {
#include "version_tables/generated_ptx_isa/ptx_isa.inc"
};

struct ArchRow {
  int arch, isa_major, isa_minor;
};
constexpr ArchRow kGpuArch[] = {
#include "version_tables/generated_ptx_isa/gpu_arch.inc"
};

uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t Le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
uint64_t Le64(const uint8_t* p) { return Le32(p) | static_cast<uint64_t>(Le32(p + 4)) << 32; }

int VariantRank(char v) { return v == 'a' ? 2 : v == 'f' ? 1 : 0; }

// Finds `word` at a token start in [text + from, text + size); returns the offset after it or -1.
long FindDirective(const char* text, size_t size, const char* word, size_t from) {
  const size_t n = std::strlen(word);
  for (size_t i = from; i + n <= size; ++i) {
    if (std::memcmp(text + i, word, n) != 0) continue;
    if (i > 0 && text[i - 1] != '\n' && text[i - 1] != ' ' && text[i - 1] != '\t') continue;
    return static_cast<long>(i + n);
  }
  return -1;
}

bool ReadNumber(const char* text, size_t size, size_t* pos, int* out) {
  int v = 0, digits = 0;
  while (*pos < size && text[*pos] >= '0' && text[*pos] <= '9' && digits < 6) {
    v = v * 10 + (text[*pos] - '0');
    ++*pos;
    ++digits;
  }
  *out = v;
  return digits > 0;
}

}  // namespace

std::string GpuArch::Name(const char* prefix) const {
  std::string s = prefix;
  s += std::to_string(number());
  if (variant) s += variant;
  return s;
}

GpuArch ArchFromNumber(int number, char variant) {
  GpuArch a;
  a.major = number / 10;
  a.minor = number % 10;
  a.variant = variant;
  return a;
}

bool SassRunsOn(const GpuArch& image, const GpuArch& gpu) {
  if (image.variant == 'a') return image.major == gpu.major && image.minor == gpu.minor;
  return image.major == gpu.major && image.minor <= gpu.minor;
}

bool PtxTargets(const GpuArch& image, const GpuArch& gpu) {
  if (image.variant == 'a') return image.major == gpu.major && image.minor == gpu.minor;
  if (image.variant == 'f') return image.major == gpu.major && image.minor <= gpu.minor;
  return image.number() <= gpu.number();
}

int MinDriverForPtxIsa(int major, int minor) {
  for (const auto& r : kPtxIsa) {
    if (r.major > major || (r.major == major && r.minor >= minor)) {
      // The first row at or above the ISA: exact match, or (an ISA between rows, e.g. 5.1) the
      // next release's.
      return r.cuda;
    }
  }
  return 0;
}

bool MaxPtxIsaForDriver(int cuda_version, int* major, int* minor) {
  bool found = false;
  for (const auto& r : kPtxIsa) {
    if (r.cuda > cuda_version) continue;
    if (!found || r.major > *major || (r.major == *major && r.minor > *minor)) {
      *major = r.major;
      *minor = r.minor;
      found = true;
    }
  }
  return found;
}

bool DriverJitsPtxIsa(int cuda_version, int major, int minor) {
  const int d = MinDriverForPtxIsa(major, minor);
  return d != 0 && d <= cuda_version;
}

int MinDriverForGpu(const GpuArch& gpu) {
  const int n = gpu.number();
  int lowest = -1;
  for (const auto& r : kGpuArch) {
    if (r.arch == n) {
      const int d = MinDriverForPtxIsa(r.isa_major, r.isa_minor);
      return d == 0 ? -1 : d;
    }
    if (lowest < 0 || r.arch < lowest) lowest = r.arch;
  }
  return lowest >= 0 && n < lowest ? 0 : -1;
}

bool DriverKnowsGpu(int cuda_version, const GpuArch& gpu) {
  const int d = MinDriverForGpu(gpu);
  return d <= 0 || d <= cuda_version;
}

Choice ChooseImage(const Image* images, size_t count, int cuda_version, const GpuArch& gpu) {
  Choice c;
  for (size_t i = 0; i < count; ++i) {
    const Image& img = images[i];
    if (img.ptx || !SassRunsOn(img.arch, gpu)) continue;
    if (c.index >= 0) {
      const Image& best = images[c.index];
      if (std::make_tuple(img.arch.minor, VariantRank(img.arch.variant)) <=
          std::make_tuple(best.arch.minor, VariantRank(best.arch.variant)))
        continue;
    }
    c.index = static_cast<int>(i);
  }
  if (c.index >= 0) return c;
  int too_new_driver = 0;
  for (size_t i = 0; i < count; ++i) {
    const Image& img = images[i];
    if (!img.ptx || !PtxTargets(img.arch, gpu)) continue;
    const int d = MinDriverForPtxIsa(img.isa_major, img.isa_minor);
    if (DriverJitsPtxIsa(cuda_version, img.isa_major, img.isa_minor)) {
      if (c.index >= 0) {
        const Image& best = images[c.index];
        if (std::make_tuple(img.arch.number(), VariantRank(img.arch.variant), img.isa_major,
                            img.isa_minor) <= std::make_tuple(best.arch.number(),
                                                              VariantRank(best.arch.variant),
                                                              best.isa_major, best.isa_minor))
          continue;
      }
      c.index = static_cast<int>(i);
      c.jit = true;
      c.min_driver = d;
      continue;
    }
    const int need = d == 0 ? (1 << 30) : d;
    if (c.too_new < 0 || need < too_new_driver) {
      c.too_new = static_cast<int>(i);
      too_new_driver = need;
    }
  }
  if (c.index >= 0) return c;
  if (c.too_new >= 0) {
    c.error = kUnsupportedPtxVersion;
    c.min_driver = too_new_driver < (1 << 30) ? too_new_driver : 0;
  } else {
    c.error = kNoBinaryForGpu;
  }
  return c;
}

bool DecodeFatbinEntryHeader(const uint8_t* h, uint64_t avail, FatbinEntryHeader* out) noexcept {
  if (h == nullptr || avail < kFatbinEntryHeaderMin) return false;
  FatbinEntryHeader e;
  e.kind = Le16(h);
  e.header_size = Le32(h + 4);
  e.payload_size = Le64(h + 8);
  if (e.header_size < kFatbinEntryHeaderMin || e.header_size > avail ||
      e.payload_size > avail - e.header_size)
    return false;
  e.compressed_size = Le32(h + 0x10);
  e.version_minor = Le16(h + 0x18);
  e.version_major = Le16(h + 0x1a);
  e.arch = static_cast<int>(Le32(h + 0x1c));
  e.flags = Le64(h + 0x28);
  e.uncompressed_size = Le64(h + 0x38);
  e.variant = (e.flags & kFatbinFlagArchSpecific) ? 'a' : (e.flags & kFatbinFlagFamily) ? 'f' : '\0';
  *out = e;
  return true;
}

bool DecodeFatbinHeader(const uint8_t* data, uint64_t avail, uint64_t* header_size,
                        uint64_t* payload_size) noexcept {
  if (data == nullptr || avail < kFatbinHeaderSize) return false;
  if (Le32(data) != kFatbinMagic || Le16(data + 4) != 1 || Le16(data + 6) < kFatbinHeaderSize)
    return false;
  *header_size = Le16(data + 6);
  *payload_size = Le64(data + 8);
  return true;
}

bool JudgeFatbin(const uint8_t* data, uint64_t avail, int cuda_version, const GpuArch& gpu,
                 JudgedFatbin* out) {
  uint64_t header = 0, payload = 0;
  if (!DecodeFatbinHeader(data, avail, &header, &payload)) return false;
  if (header > avail || payload > avail - header) return false;
  JudgedFatbin j;
  j.header_size = header;
  for (uint64_t at = header; at < header + payload;) {
    FatbinEntryHeader h;
    if (!DecodeFatbinEntryHeader(data + at, header + payload - at, &h)) return false;
    if (h.kind == 1 || h.kind == 2) {
      Image img;
      img.ptx = h.kind == 1;
      img.arch = ArchFromNumber(h.arch, h.variant);
      if (img.ptx) {
        img.isa_major = h.version_major;
        img.isa_minor = h.version_minor;
      }
      j.images.push_back(img);
      j.offsets.push_back(at);
      j.sizes.push_back(h.header_size + h.payload_size);
    }
    at += h.header_size + h.payload_size;
  }
  if (j.images.empty()) return false;
  j.choice = ChooseImage(j.images.data(), j.images.size(), cuda_version, gpu);
  *out = std::move(j);
  return true;
}

std::string FatbinWithOnlyEntry(const uint8_t* data, const JudgedFatbin& judged, int index) {
  std::string s(reinterpret_cast<const char*>(data), judged.header_size);
  s.append(reinterpret_cast<const char*>(data + judged.offsets[index]), judged.sizes[index]);
  const uint64_t payload = judged.sizes[index];
  std::memcpy(&s[8], &payload, sizeof payload);
  return s;
}

namespace {
template <class T>
void Put(std::string* s, size_t at, T v) {
  std::memcpy(&(*s)[at], &v, sizeof v);
}
}  // namespace

Registration RegistrationFatbin(const uint8_t* data, uint64_t avail, int emulated_version,
                                int real_version, const GpuArch& gpu, std::string* out) {
  JudgedFatbin emulated;
  if (!JudgeFatbin(data, avail, emulated_version, gpu, &emulated)) return Registration::kKeep;
  const Choice real = ChooseImage(emulated.images.data(), emulated.images.size(), real_version, gpu);
  const Choice& c = emulated.choice;
  if (c.error == kNoBinaryForGpu) return Registration::kKeep;
  if (c.error == 0) {
    if (real.error == 0 && real.index == c.index) return Registration::kKeep;
    *out = FatbinWithOnlyEntry(data, emulated, c.index);
    return Registration::kOnlyChosen;
  }
  // 222: one PTX entry, uncompressed, declaring an ISA no driver of the table JITs. Its entry
  // header is the too-new entry's, with the payload, sizes, ISA and compression rewritten.
  int major = 0, minor = 0;
  for (const auto& r : kPtxIsa) major = r.major > major ? r.major : major;
  ++major;
  const std::string text = ".version " + std::to_string(major) + "." + std::to_string(minor) +
                           "\n.target " + GpuArch{gpu.major, gpu.minor, '\0'}.Name() +
                           "\n.address_size 64\n";
  std::string ptx = text;
  ptx.resize((text.size() + 1 + 7) / 8 * 8, '\0');  // NUL-terminated, 8-byte padded
  const uint64_t at = emulated.offsets[c.too_new];
  FatbinEntryHeader h;
  DecodeFatbinEntryHeader(data + at, emulated.sizes[c.too_new], &h);
  std::string entry(reinterpret_cast<const char*>(data + at), h.header_size);
  Put<uint64_t>(&entry, 8, ptx.size());
  Put<uint32_t>(&entry, 0x10, 0);
  Put<uint16_t>(&entry, 0x18, static_cast<uint16_t>(minor));
  Put<uint16_t>(&entry, 0x1a, static_cast<uint16_t>(major));
  Put<uint32_t>(&entry, 0x1c, static_cast<uint32_t>(gpu.number()));
  Put<uint64_t>(&entry, 0x28, h.flags & ~(kFatbinFlagLz4 | kFatbinFlagZstd | kFatbinFlagArchSpecific |
                                          kFatbinFlagFamily));
  Put<uint64_t>(&entry, 0x38, 0);
  out->assign(reinterpret_cast<const char*>(data), emulated.header_size);
  *out += entry;
  *out += ptx;
  Put<uint64_t>(out, 8, entry.size() + ptx.size());
  return Registration::kTooNewPtx;
}

bool ParsePtxVersion(const char* text, size_t size, int* major, int* minor) noexcept {
  if (text == nullptr) return false;
  for (long at = FindDirective(text, size, ".version", 0); at >= 0;
       at = FindDirective(text, size, ".version", static_cast<size_t>(at))) {
    size_t pos = static_cast<size_t>(at);
    while (pos < size && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n')) ++pos;
    int ma = 0, mi = 0;
    if (!ReadNumber(text, size, &pos, &ma) || pos >= size || text[pos] != '.') continue;
    ++pos;
    if (!ReadNumber(text, size, &pos, &mi)) continue;
    *major = ma;
    *minor = mi;
    return true;
  }
  return false;
}

bool ParsePtxTarget(const char* text, size_t size, GpuArch* out) noexcept {
  if (text == nullptr) return false;
  long at = FindDirective(text, size, ".target", 0);
  if (at < 0) return false;
  size_t pos = static_cast<size_t>(at);
  while (pos < size && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  if (size - pos < 3 || std::memcmp(text + pos, "sm_", 3) != 0) return false;
  pos += 3;
  int n = 0;
  if (!ReadNumber(text, size, &pos, &n) || n < 10) return false;
  char variant = '\0';
  if (pos < size && (text[pos] == 'a' || text[pos] == 'f')) variant = text[pos];
  *out = ArchFromNumber(n, variant);
  return true;
}

bool CubinArch(const uint8_t* data, size_t size, GpuArch* out) noexcept {
  if (data == nullptr || size < 64 || std::memcmp(data, "\x7f" "ELF", 4) != 0) return false;
  if (data[4] != 2 || data[5] != 1 || Le16(data + 18) != 190 /* EM_CUDA */) return false;
  const uint32_t flags = Le32(data + 0x30);
  const int arch = data[8] >= 8 ? static_cast<int>((flags >> 8) & 0xff)
                                : static_cast<int>(flags & 0xff);
  if (arch < 10) return false;
  *out = ArchFromNumber(arch, '\0');
  return true;
}

}  // namespace kernel_rule
}  // namespace cudyn
