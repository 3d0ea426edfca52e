#include "tools/zip/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "tools/util/bytes.h"

namespace cudyn {
namespace zip {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;

constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kEnd64Size = 56;
constexpr size_t kEnd64LocatorSize = 20;
constexpr size_t kMaxCommentSize = 0xFFFF;

constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagStrongEncryption = 0x0040;

// Output of a deflated member grows by at most this much at a time beyond what inflate has
// produced, so a member that declares gigabytes but holds little never allocates them.
constexpr size_t kInflateStep = size_t{1} << 20;

using bytes::LoadLe16;
using bytes::LoadLe32;
using bytes::LoadLe64;

void SetError(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
}

std::string Dec(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  return buf;
}

// True when [off, off + len) lies within [0, size).
bool InBounds(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

// The EOCD's position: the last record whose comment ends exactly at `size`, else the last one
// whose comment fits. False when there is none.
bool FindEnd(const uint8_t* data, size_t size, size_t* pos) {
  if (size < kEndSize) return false;
  const size_t last = size - kEndSize;
  const size_t first = last > kMaxCommentSize ? last - kMaxCommentSize : 0;
  bool have_loose = false;
  size_t loose = 0;
  for (size_t p = last + 1; p-- > first;) {
    if (data[p] != 'P' || LoadLe32(data + p) != kEndSig) continue;
    const size_t comment = LoadLe16(data + p + 20);
    if (comment == size - p - kEndSize) {
      *pos = p;
      return true;
    }
    if (!have_loose && comment <= size - p - kEndSize) {
      have_loose = true;
      loose = p;
    }
  }
  *pos = loose;
  return have_loose;
}

struct Directory {
  uint64_t entries = 0;
  uint64_t cd_size = 0;
  uint64_t cd_offset = 0;
  uint64_t end_pos = 0;  // where the (ZIP64) end record starts: the central directory ends here
};

bool IsEnd64At(const uint8_t* data, uint64_t pos, uint64_t limit) {
  return pos <= limit && limit - pos >= kEnd64Size && LoadLe32(data + pos) == kEnd64Sig;
}

// Fills *dir from the end records. False + *error when they are unusable.
bool ReadEnd(const uint8_t* data, size_t size, Directory* dir, std::string* error) {
  size_t end = 0;
  if (!FindEnd(data, size, &end)) {
    SetError(error, "not a zip file: no end of central directory record");
    return false;
  }
  const uint8_t* e = data + end;
  const uint16_t disk = LoadLe16(e + 4), cd_disk = LoadLe16(e + 6);
  dir->entries = LoadLe16(e + 10);
  dir->cd_size = LoadLe32(e + 12);
  dir->cd_offset = LoadLe32(e + 16);
  dir->end_pos = end;
  const bool saturated = disk == 0xFFFF || cd_disk == 0xFFFF || LoadLe16(e + 8) == 0xFFFF ||
                         dir->entries == 0xFFFF || dir->cd_size == 0xFFFFFFFF ||
                         dir->cd_offset == 0xFFFFFFFF;

  bool have64 = false;
  if (end >= kEnd64LocatorSize && LoadLe32(data + end - kEnd64LocatorSize) == kEnd64LocatorSig) {
    const size_t locator = end - kEnd64LocatorSize;
    const uint64_t recorded = LoadLe64(data + locator + 8);
    uint64_t pos = 0;
    if (IsEnd64At(data, recorded, locator)) {
      pos = recorded;
      have64 = true;
    } else if (locator >= kEnd64Size && IsEnd64At(data, locator - kEnd64Size, locator)) {
      pos = locator - kEnd64Size;  // data before the archive: the recorded offset is relative
      have64 = true;
    }
    if (have64) {
      const uint8_t* z = data + pos;
      if (LoadLe32(z + 16) != 0 || LoadLe32(z + 20) != 0 || LoadLe32(data + locator + 4) != 0) {
        SetError(error, "multi-disk zip archives are not supported");
        return false;
      }
      dir->entries = LoadLe64(z + 32);
      dir->cd_size = LoadLe64(z + 40);
      dir->cd_offset = LoadLe64(z + 48);
      dir->end_pos = pos;
    } else if (saturated) {
      SetError(error, "ZIP64 end of central directory record not found");
      return false;
    }
  }
  if (!have64 && (disk != 0 || cd_disk != 0)) {
    SetError(error, "multi-disk zip archives are not supported");
    return false;
  }
  if (dir->cd_size > dir->end_pos || dir->cd_offset > dir->end_pos - dir->cd_size) {
    SetError(error, "truncated central directory: " + Dec(dir->cd_size) + " bytes at offset " +
                        Dec(dir->cd_offset) + " do not fit before the end record at " +
                        Dec(dir->end_pos));
    return false;
  }
  if (dir->entries > dir->cd_size / kCentralHeaderSize) {
    SetError(error, "truncated central directory: " + Dec(dir->entries) + " entries declared in " +
                        Dec(dir->cd_size) + " bytes");
    return false;
  }
  return true;
}

// Applies the ZIP64 extra field of a central header to *entry. False + *error when a saturated
// field has no value there.
bool ApplyZip64Extra(const uint8_t* extra, size_t len, bool need_usize, bool need_csize,
                     bool need_offset, ZipEntry* entry, std::string* error) {
  while (len >= 4) {
    const uint16_t id = LoadLe16(extra);
    const size_t field = LoadLe16(extra + 2);
    if (field > len - 4) break;  // malformed trailing bytes: ignored, like other readers
    if (id == kZip64ExtraId) {
      const uint8_t* p = extra + 4;
      size_t left = field;
      auto take = [&](uint64_t* v) {
        if (left < 8) return false;
        *v = LoadLe64(p);
        p += 8;
        left -= 8;
        return true;
      };
      if ((need_usize && !take(&entry->uncompressed_size)) ||
          (need_csize && !take(&entry->compressed_size)) ||
          (need_offset && !take(&entry->local_header_offset))) {
        SetError(error, "entry '" + entry->name + "': truncated ZIP64 extra field");
        return false;
      }
      return true;
    }
    extra += 4 + field;
    len -= 4 + field;
  }
  if (need_usize || need_csize || need_offset) {
    SetError(error, "entry '" + entry->name + "': sizes or offset of 0xFFFFFFFF without a ZIP64 "
                    "extra field");
    return false;
  }
  return true;
}

bool ReadDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                   std::string* error) {
  Directory dir;
  if (!ReadEnd(data, size, &dir, error)) return false;
  // The central directory ends where the end record starts; anything in front of the archive
  // shifts every recorded offset by `bias`.
  const uint64_t cd_start = dir.end_pos - dir.cd_size;
  const uint64_t bias = cd_start - dir.cd_offset;
  const uint64_t cd_end = dir.end_pos;

  std::vector<ZipEntry> list;
  list.reserve(static_cast<size_t>(dir.entries));
  uint64_t p = cd_start;
  for (uint64_t i = 0; i < dir.entries; ++i) {
    if (cd_end - p < kCentralHeaderSize) {
      SetError(error, "truncated central directory: entry " + Dec(i) + " of " +
                          Dec(dir.entries) + " is missing");
      return false;
    }
    const uint8_t* h = data + p;
    if (LoadLe32(h) != kCentralSig) {
      SetError(error, "bad central directory: no header signature at offset " + Dec(p) +
                          " (entry " + Dec(i) + ")");
      return false;
    }
    const size_t name_len = LoadLe16(h + 28), extra_len = LoadLe16(h + 30), comment_len = LoadLe16(h + 32);
    const uint64_t total = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (total > cd_end - p) {
      SetError(error, "truncated central directory: entry " + Dec(i) + " runs past its end");
      return false;
    }
    ZipEntry en;
    en.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_len);
    en.method = LoadLe16(h + 10);
    en.crc32 = LoadLe32(h + 16);
    en.compressed_size = LoadLe32(h + 20);
    en.uncompressed_size = LoadLe32(h + 24);
    en.local_header_offset = LoadLe32(h + 42);
    const bool need_csize = en.compressed_size == 0xFFFFFFFF;
    const bool need_usize = en.uncompressed_size == 0xFFFFFFFF;
    const bool need_offset = en.local_header_offset == 0xFFFFFFFF;
    if (!ApplyZip64Extra(h + kCentralHeaderSize + name_len, extra_len, need_usize, need_csize,
                         need_offset, &en, error)) {
      return false;
    }
    if (en.local_header_offset > cd_start || bias > cd_start - en.local_header_offset) {
      SetError(error, "entry '" + en.name + "': local header offset " +
                          Dec(en.local_header_offset) + " is past the central directory");
      return false;
    }
    en.local_header_offset += bias;
    list.push_back(std::move(en));
    p += total;
  }
  *entries = std::move(list);
  return true;
}

bool CheckCrc(const ZipEntry& entry, const std::vector<uint8_t>& bytes, std::string* error) {
  const uLong crc = crc32_z(crc32_z(0L, Z_NULL, 0), bytes.data(), bytes.size());
  if (static_cast<uint32_t>(crc) != entry.crc32) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%08x, the directory says 0x%08x",
                  static_cast<unsigned>(crc), static_cast<unsigned>(entry.crc32));
    SetError(error, "entry '" + entry.name + "': CRC-32 mismatch: data has " + buf);
    return false;
  }
  return true;
}

// Inflates the raw deflate stream [src, src + len) into *out, which must end up exactly
// `expected` bytes long.
bool Inflate(const ZipEntry& entry, const uint8_t* src, uint64_t len, uint64_t expected,
             std::vector<uint8_t>* out, std::string* error) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
    SetError(error, "entry '" + entry.name + "': cannot initialise zlib inflate");
    return false;
  }
  struct EndInflate {
    z_stream* zs;
    ~EndInflate() { inflateEnd(zs); }
  } end_inflate{&zs};

  const std::string who = "entry '" + entry.name + "': ";
  uint64_t in_left = len;
  uint64_t produced = 0;
  zs.next_in = const_cast<Bytef*>(src);
  for (;;) {
    if (zs.avail_in == 0 && in_left > 0) {
      zs.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, UINT_MAX));
      in_left -= zs.avail_in;
    }
    if (produced == out->size()) {
      // Grow towards the declared size; one spare byte past it detects overlong data.
      const uint64_t target = std::min<uint64_t>(expected + 1, produced + kInflateStep);
      if (target > out->size()) out->resize(static_cast<size_t>(target));
    }
    const uint64_t room = out->size() - produced;
    zs.next_out = out->data() + produced;
    zs.avail_out = static_cast<uInt>(std::min<uint64_t>(room, UINT_MAX));
    const uInt avail_out_before = zs.avail_out;
    const uInt avail_in_before = zs.avail_in;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    produced += avail_out_before - zs.avail_out;
    if (produced > expected) {
      SetError(error, who + "inflates to more than the declared " + Dec(expected) + " bytes");
      return false;
    }
    if (rc == Z_STREAM_END) break;
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      SetError(error, who + "corrupt deflate data" + (zs.msg ? std::string(": ") + zs.msg : ""));
      return false;
    }
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      SetError(error, who + "zlib inflate error " + Dec(static_cast<uint64_t>(-rc)));
      return false;
    }
    // Output room is always there (see above), so no progress means the input ran out.
    if (zs.avail_in == avail_in_before && zs.avail_out == avail_out_before) {
      SetError(error, who + (zs.avail_in == 0 && in_left == 0 ? "truncated deflate data"
                                                              : "inflate made no progress"));
      return false;
    }
  }
  if (zs.avail_in != 0 || in_left != 0) {
    SetError(error, who + "deflate data ends " + Dec(zs.avail_in + in_left) +
                        " bytes before its compressed size");
    return false;
  }
  if (produced != expected) {
    SetError(error, who + "inflates to " + Dec(produced) + " bytes, the directory says " +
                        Dec(expected));
    return false;
  }
  out->resize(static_cast<size_t>(produced));
  return true;
}

bool Extract(const uint8_t* data, size_t size, const ZipEntry& entry, std::vector<uint8_t>* out,
             std::string* error, uint64_t max_size) {
  const std::string who = "entry '" + entry.name + "': ";
  const uint64_t lh = entry.local_header_offset;
  if (!InBounds(lh, kLocalHeaderSize, size)) {
    SetError(error, who + "local header at offset " + Dec(lh) + " is past the end of the data");
    return false;
  }
  const uint8_t* h = data + lh;
  if (LoadLe32(h) != kLocalSig) {
    SetError(error, who + "no local header signature at offset " + Dec(lh));
    return false;
  }
  const uint16_t flags = LoadLe16(h + 6);
  if (flags & (kFlagEncrypted | kFlagStrongEncryption)) {
    SetError(error, who + "encrypted entries are not supported");
    return false;
  }
  if (entry.method != kMethodStored && entry.method != kMethodDeflate) {
    SetError(error, who + "unsupported compression method " + Dec(entry.method) + " (" +
                        MethodName(entry.method) + ")");
    return false;
  }
  if (entry.uncompressed_size > max_size) {
    SetError(error, who + "declared size " + Dec(entry.uncompressed_size) +
                        " bytes exceeds the limit of " + Dec(max_size) + " bytes");
    return false;
  }
  const uint64_t start = lh + kLocalHeaderSize + LoadLe16(h + 26) + LoadLe16(h + 28);
  if (!InBounds(start, entry.compressed_size, size)) {
    SetError(error, who + Dec(entry.compressed_size) + " bytes of data at offset " + Dec(start) +
                        " run past the end of the data");
    return false;
  }
  const uint8_t* src = data + start;
  if (entry.method == kMethodStored) {
    if (entry.compressed_size != entry.uncompressed_size) {
      SetError(error, who + "stored entry with compressed size " + Dec(entry.compressed_size) +
                          " != uncompressed size " + Dec(entry.uncompressed_size));
      return false;
    }
    out->assign(src, src + entry.compressed_size);
  } else if (!Inflate(entry, src, entry.compressed_size, entry.uncompressed_size, out, error)) {
    return false;
  }
  return CheckCrc(entry, *out, error);
}

}  // namespace

bool ZipEntry::is_directory() const { return !name.empty() && name.back() == '/'; }

bool LooksLikeZip(const uint8_t* data, size_t size) noexcept {
  if (data == nullptr || size < 4) return false;
  const uint32_t sig = LoadLe32(data);
  return sig == kLocalSig || sig == kEndSig;
}

bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      std::string* error) noexcept {
  if (entries == nullptr) {
    SetError(error, "ReadZipDirectory: no output vector");
    return false;
  }
  entries->clear();
  if (data == nullptr && size != 0) {
    SetError(error, "ReadZipDirectory: no data");
    return false;
  }
  try {
    return ReadDirectory(data, size, entries, error);
  } catch (const std::bad_alloc&) {
    entries->clear();
    SetError(error, "out of memory");
    return false;
  } catch (...) {
    entries->clear();
    SetError(error, "unexpected exception while reading the zip directory");
    return false;
  }
}

bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, std::string* error, uint64_t max_size) noexcept {
  if (out == nullptr) {
    SetError(error, "ExtractZipEntry: no output vector");
    return false;
  }
  out->clear();
  if (data == nullptr && size != 0) {
    SetError(error, "ExtractZipEntry: no data");
    return false;
  }
  bool ok = false;
  try {
    ok = Extract(data, size, entry, out, error, max_size);
  } catch (const std::bad_alloc&) {
    SetError(error, "out of memory");
  } catch (...) {
    SetError(error, "unexpected exception while extracting a zip entry");
  }
  if (!ok) {
    out->clear();
    out->shrink_to_fit();
  }
  return ok;
}

const char* MethodName(uint16_t method) noexcept {
  switch (method) {
    case 0: return "stored";
    case 1: return "shrink";
    case 6: return "implode";
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "LZMA";
    case 93: return "zstd";
    case 95: return "xz";
    case 96: return "JPEG";
    case 97: return "WavPack";
    case 98: return "PPMd";
    case 99: return "AES encryption";
    default: return "unknown";
  }
}

}  // namespace zip
}  // namespace cudyn
