#include "tools/fatbin/fatbin_reader.h"

#include <fcntl.h>
#include <lz4.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "loader/kernel_rule.h"
#include "tools/util/bytes.h"

namespace cudyn {
namespace fatbin {
namespace {

constexpr size_t kContainerHeader = 16;
constexpr size_t kEntryHeaderMin = 0x40;
constexpr size_t kMaxWarnings = 64;

using bytes::LoadLe16;
using bytes::LoadLe32;
using bytes::LoadLe64;

void Warn(FatbinInfo* info, std::string w) {
  if (info->warnings.size() < kMaxWarnings) info->warnings.push_back(std::move(w));
}

std::string Hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool IsContainerAt(const uint8_t* data, size_t size, size_t off) {
  if (off > size || size - off < kContainerHeader) return false;
  const uint8_t* p = data + off;
  return LoadLe32(p) == kFatbinMagic && LoadLe16(p + 4) == 1 && LoadLe16(p + 6) >= kContainerHeader;
}

// Parses the container at `off` (IsContainerAt holds). Returns the number of bytes it spans
// (header + payload, clamped to `limit`), at least 8.
uint64_t ParseContainer(const uint8_t* data, size_t off, size_t limit, const std::string& where,
                        FatbinInfo* info) {
  const uint8_t* p = data + off;
  const uint64_t header = LoadLe16(p + 6);
  const uint64_t payload = LoadLe64(p + 8);
  const uint64_t avail = limit - off;
  if (header > avail || payload > avail - header) {
    Warn(info, "fatbin at " + Hex(off) + " (" + where + "): declared size " + Hex(payload) +
                   " runs past the end of its region");
    return 8;
  }
  Container c;
  c.offset = off;
  c.size = header + payload;
  c.where = where;
  c.first_entry = info->entries.size();
  const uint64_t end = off + header + payload;
  uint64_t e = off + header;
  while (e < end) {
    if (end - e < kEntryHeaderMin) {
      Warn(info, "fatbin at " + Hex(off) + ": truncated entry header at " + Hex(e));
      break;
    }
    // The entry header's fields: the shared decoder (loader/kernel_rule.h), as the loader reads
    // them.
    kernel_rule::FatbinEntryHeader hdr;
    if (!kernel_rule::DecodeFatbinEntryHeader(data + e, end - e, &hdr)) {
      Warn(info, "fatbin at " + Hex(off) + ": malformed entry at " + Hex(e));
      break;
    }
    const uint32_t ehs = hdr.header_size;
    const uint64_t esz = hdr.payload_size;
    Entry en;
    en.kind_raw = hdr.kind;
    en.kind = en.kind_raw == 1   ? EntryKind::kPtx
              : en.kind_raw == 2 ? EntryKind::kCubin
                                 : EntryKind::kUnknown;
    en.version_minor = hdr.version_minor;
    en.version_major = hdr.version_major;
    en.arch = hdr.arch;
    en.flags = hdr.flags;
    en.variant = hdr.variant;
    en.offset = e;
    en.payload_offset = e + ehs;
    const uint32_t csz = hdr.compressed_size;
    const uint64_t usz = hdr.uncompressed_size;
    if (en.flags & kFlagZstd) {
      en.compression = Compression::kZstd;
    } else if (en.flags & kFlagLz4) {
      en.compression = Compression::kLz4;
    }
    if (en.compression != Compression::kNone) {
      en.payload_size = csz != 0 && csz <= esz ? csz : esz;
      en.uncompressed_size = usz;
    } else {
      en.payload_size = esz;
      en.uncompressed_size = esz;
    }
    en.container = info->containers.size();
    info->entries.push_back(en);
    e += ehs + esz;
  }
  c.entry_count = info->entries.size() - c.first_entry;
  info->containers.push_back(std::move(c));
  return std::max<uint64_t>(8, header + payload);
}

// Scans [begin, end) at 8-byte alignment (relative to the file) for containers.
void ScanRegion(const uint8_t* data, size_t begin, size_t end, const std::string& where,
                FatbinInfo* info) {
  size_t off = (begin + 7) & ~size_t{7};
  while (off + kContainerHeader <= end) {
    if (LoadLe32(data + off) == kFatbinMagic && IsContainerAt(data, end, off)) {
      const uint64_t span = ParseContainer(data, off, end, where, info);
      const uint64_t next = (off + span + 7) & ~uint64_t{7};
      if (next <= off) break;
      off = static_cast<size_t>(next);
    } else {
      off += 8;
    }
  }
}

using Section = SectionInfo;

// Reads the section headers of an ELF32/ELF64 little-endian image; false if there are none
// usable.
bool ReadSections(const uint8_t* d, size_t size, std::vector<Section>* out, FatbinInfo* info) {
  if (d == nullptr) return false;
  if (size < 52 ||
      std::memcmp(d,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      d[5] != 1)
    return false;
  const bool is64 = d[4] == 2;
  if (!is64 && d[4] != 1) return false;
  if (is64 && size < 64) return false;
  const uint64_t shoff = is64 ? LoadLe64(d + 0x28) : LoadLe32(d + 0x20);
  const uint16_t shentsize = is64 ? LoadLe16(d + 0x3a) : LoadLe16(d + 0x2e);
  uint64_t shnum = is64 ? LoadLe16(d + 0x3c) : LoadLe16(d + 0x30);
  uint32_t shstrndx = is64 ? LoadLe16(d + 0x3e) : LoadLe16(d + 0x32);
  const size_t want = is64 ? 64 : 40;
  if (shoff == 0 || shentsize < want || shoff >= size) return false;
  if (shnum == 0 && size - shoff >= want)
    shnum = is64 ? LoadLe64(d + shoff + 0x20) : LoadLe32(d + shoff + 0x14);
  if (shstrndx == 0xffff && size - shoff >= want)
    shstrndx = is64 ? LoadLe32(d + shoff + 0x28) : LoadLe32(d + shoff + 0x18);
  if (shnum == 0 || shnum > (size - shoff) / shentsize) {
    Warn(info, "section header table out of bounds; scanning the whole file");
    return false;
  }
  std::vector<Section> secs;
  secs.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* s = d + shoff + i * shentsize;
    Section sec;
    sec.type = LoadLe32(s + 4);
    if (is64) {
      sec.flags = LoadLe64(s + 8);
      sec.addr = LoadLe64(s + 0x10);
      sec.offset = LoadLe64(s + 0x18);
      sec.size = LoadLe64(s + 0x20);
    } else {
      sec.flags = LoadLe32(s + 8);
      sec.addr = LoadLe32(s + 0x0c);
      sec.offset = LoadLe32(s + 0x10);
      sec.size = LoadLe32(s + 0x14);
    }
    sec.name_offset = LoadLe32(s);
    secs.push_back(std::move(sec));
  }
  const Section* strtab = shstrndx < secs.size() ? &secs[shstrndx] : nullptr;
  for (auto& sec : secs) {
    const uint64_t noff = sec.name_offset;
    if (strtab && strtab->offset <= size && noff < strtab->size &&
        strtab->size <= size - strtab->offset) {
      const char* b = reinterpret_cast<const char*>(d + strtab->offset + noff);
      const size_t max = static_cast<size_t>(strtab->size - noff);
      sec.name.assign(b, strnlen(b, max));
    }
    if (sec.type != 8 /*SHT_NOBITS*/ && (sec.offset > size || sec.size > size - sec.offset)) {
      Warn(info, "section '" + sec.name + "' out of bounds, ignored");
      sec.type = 0;
    }
  }
  *out = std::move(secs);
  return true;
}

bool Covered(const FatbinInfo& info, uint64_t off) {
  for (const auto& c : info.containers) {
    if (off >= c.offset && off < c.offset + c.size) return true;
  }
  return false;
}

void ParseElfImage(const uint8_t* d, size_t size, const std::vector<Section>& secs,
                   FatbinInfo* info) {
  constexpr uint32_t kProgbits = 1;
  constexpr uint64_t kAlloc = 0x2, kExec = 0x4;
  std::vector<const Section*> wrappers;
  for (const auto& s : secs) {
    if (s.type != kProgbits || s.size == 0) continue;
    if (s.name == ".nvFatBinSegment") {
      wrappers.push_back(&s);
      continue;
    }
    const bool named = s.name == ".nv_fatbin" || s.name == "__nv_relfatbin";
    if (!named && (!(s.flags & kAlloc) || (s.flags & kExec))) continue;
    ScanRegion(d, static_cast<size_t>(s.offset), static_cast<size_t>(s.offset + s.size), s.name,
               info);
  }
  // Wrappers whose fatbin lies outside the sections scanned above (rare: a fatbin in a section
  // that is not PROGBITS/allocated).
  for (const Section* w : wrappers) {
    for (uint64_t o = w->offset; o + 16 <= w->offset + w->size; o += 8) {
      if (LoadLe32(d + o) != kWrapperMagic) continue;
      const uint64_t va = LoadLe64(d + o + 8);
      for (const auto& s : secs) {
        // type 0: SHT_NULL, or marked out of bounds by ReadSections.
        if (s.type == 0 || s.type == 8 || s.addr == 0 || va < s.addr || va - s.addr >= s.size)
          continue;
        const uint64_t fo = s.offset + (va - s.addr);
        if ((fo & 7) == 0 && !Covered(*info, fo) && IsContainerAt(d, size, fo)) {
          ParseContainer(d, static_cast<size_t>(fo), static_cast<size_t>(s.offset + s.size),
                         s.name + " (via .nvFatBinSegment)", info);
        }
        break;
      }
    }
  }
}

}  // namespace

bool ReadElfSections(const uint8_t* data, size_t size, std::vector<SectionInfo>* out) noexcept {
  try {
    FatbinInfo scratch;
    return ReadSections(data, size, out, &scratch);
  } catch (...) {
    return false;
  }
}

std::string Entry::ArchName() const {
  std::string s = kind == EntryKind::kPtx ? "compute_" : "sm_";
  s += std::to_string(arch);
  if (variant) s += variant;
  return s;
}

const char* KindName(EntryKind kind) {
  switch (kind) {
    case EntryKind::kPtx: return "ptx";
    case EntryKind::kCubin: return "sass";
    default: return "unknown";
  }
}

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
    default: return "unknown";
  }
}

FatbinResult ParseFatbins(const uint8_t* data, size_t size) noexcept {
  FatbinResult r;
  try {
    if (size == 0 || data == nullptr) {
      r.ok = true;
      return r;
    }
    std::vector<Section> secs;
    r.info.is_elf = size >= 4 && std::memcmp(data,
                                             "\x7f"
                                             "ELF",
                                             4) == 0;
    if (r.info.is_elf && ReadSections(data, size, &secs, &r.info)) {
      ParseElfImage(data, size, secs, &r.info);
    } else {
      ScanRegion(data, 0, size, "", &r.info);
    }
    r.ok = true;
  } catch (const std::bad_alloc&) {
    r = FatbinResult();
    r.error = "out of memory";
  } catch (...) {
    r = FatbinResult();
    r.error = "internal error";
  }
  return r;
}

FatbinResult ReadFatbins(const std::string& path) noexcept {
  FatbinResult r;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.error = std::string("cannot open: ") + std::strerror(errno);
    return r;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    r.error = std::string("cannot stat: ") + std::strerror(errno);
    close(fd);
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    r.error = S_ISDIR(st.st_mode) ? "path is a directory" : "not a regular file";
    close(fd);
    return r;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    r.ok = true;
    return r;
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  close(fd);
  if (map == MAP_FAILED) {
    r.error = std::string("cannot mmap: ") + std::strerror(err);
    return r;
  }
  r = ParseFatbins(static_cast<const uint8_t*>(map), size);
  munmap(map, size);
  return r;
}

bool DecodeEntry(const uint8_t* data, size_t size, const Entry& e, std::string* out,
                 std::string* error, uint64_t max_size) noexcept {
  try {
    if (e.payload_offset > size || e.payload_size > size - e.payload_offset) {
      *error = "payload out of bounds";
      return false;
    }
    const char* src = reinterpret_cast<const char*>(data + e.payload_offset);
    switch (e.compression) {
      case Compression::kNone: out->assign(src, static_cast<size_t>(e.payload_size)); return true;
      case Compression::kLz4: {
        if (e.uncompressed_size > max_size || e.uncompressed_size > INT32_MAX ||
            e.payload_size > INT32_MAX) {
          *error = "uncompressed size too large";
          return false;
        }
        out->assign(static_cast<size_t>(e.uncompressed_size), '\0');
        const int n = LZ4_decompress_safe(src, &(*out)[0], static_cast<int>(e.payload_size),
                                          static_cast<int>(e.uncompressed_size));
        if (n < 0) {
          *error = "corrupt LZ4 data";
          return false;
        }
        out->resize(static_cast<size_t>(n));
        return true;
      }
      case Compression::kZstd: {
        if (e.uncompressed_size > max_size) {
          *error = "uncompressed size too large";
          return false;
        }
        out->assign(static_cast<size_t>(e.uncompressed_size), '\0');
        const size_t n =
            ZSTD_decompress(&(*out)[0], out->size(), src, static_cast<size_t>(e.payload_size));
        if (ZSTD_isError(n)) {
          *error = std::string("corrupt zstd data: ") + ZSTD_getErrorName(n);
          return false;
        }
        out->resize(n);
        return true;
      }
      default: *error = "unknown compression"; return false;
    }
  } catch (...) {
    *error = "out of memory";
    return false;
  }
}

bool ParsePtxVersion(const std::string& ptx, int* major, int* minor) noexcept {
  return kernel_rule::ParsePtxVersion(ptx, major, minor);
}

int FindToolkitRelease(const uint8_t* data, size_t size) noexcept {
  static const char kNeedle[] = "Cuda compilation tools, release ";
  const size_t n = sizeof kNeedle - 1;
  const void* hit = memmem(data, size, kNeedle, n);
  if (!hit) return 0;
  const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(hit) - data) + n;
  int ma = 0, mi = 0;
  size_t i = at;
  while (i < size && i < at + 4 && data[i] >= '0' && data[i] <= '9')
    ma = ma * 10 + (data[i++] - '0');
  if (i >= size || data[i] != '.' || i == at) return 0;
  ++i;
  const size_t ms = i;
  while (i < size && i < ms + 3 && data[i] >= '0' && data[i] <= '9')
    mi = mi * 10 + (data[i++] - '0');
  if (i == ms) return 0;
  return ma * 1000 + mi * 10;
}

}  // namespace fatbin
}  // namespace cudyn
