#include "tools/zip/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
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

// The most output given to one inflate() call: the limits are checked between calls (and each
// call's room is also capped by what the limits leave, see Pump).
constexpr size_t kInflateChunk = size_t{256} << 10;
// The least room given to one inflate() call once the ratio budget is spent.
constexpr size_t kMinRoom = size_t{4} << 10;
// The output buffer starts this small and doubles (capped at the declared size + 1): it follows
// what inflate produces, never what the directory declares.
constexpr size_t kFirstBufferSize = size_t{64} << 10;

using bytes::LoadLe16;
using bytes::LoadLe32;
using bytes::LoadLe64;

void SetError(ZipError* error, ZipErrorKind kind, std::string message) {
  if (error != nullptr) {
    error->kind = kind;
    error->message = std::move(message);
  }
}

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
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
bool ReadEnd(const uint8_t* data, size_t size, Directory* dir, ZipError* error) {
  size_t end = 0;
  if (!FindEnd(data, size, &end)) {
    SetError(error, ZipErrorKind::kMalformed, "not a zip file: no end of central directory record");
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
        SetError(error, ZipErrorKind::kUnsupported, "multi-disk zip archives are not supported");
        return false;
      }
      dir->entries = LoadLe64(z + 32);
      dir->cd_size = LoadLe64(z + 40);
      dir->cd_offset = LoadLe64(z + 48);
      dir->end_pos = pos;
    } else if (saturated) {
      SetError(error, ZipErrorKind::kMalformed, "ZIP64 end of central directory record not found");
      return false;
    }
  }
  if (!have64 && (disk != 0 || cd_disk != 0)) {
    SetError(error, ZipErrorKind::kUnsupported, "multi-disk zip archives are not supported");
    return false;
  }
  if (dir->cd_size > dir->end_pos || dir->cd_offset > dir->end_pos - dir->cd_size) {
    SetError(error, ZipErrorKind::kMalformed, "truncated central directory: " + Dec(dir->cd_size) + " bytes at offset " +
                        Dec(dir->cd_offset) + " do not fit before the end record at " +
                        Dec(dir->end_pos));
    return false;
  }
  if (dir->entries > dir->cd_size / kCentralHeaderSize) {
    SetError(error, ZipErrorKind::kMalformed, "truncated central directory: " + Dec(dir->entries) + " entries declared in " +
                        Dec(dir->cd_size) + " bytes");
    return false;
  }
  return true;
}

// Applies the ZIP64 extra field of a central header to *entry. False + *error when a saturated
// field has no value there.
bool ApplyZip64Extra(const uint8_t* extra, size_t len, bool need_usize, bool need_csize,
                     bool need_offset, ZipEntry* entry, ZipError* error) {
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
        SetError(error, ZipErrorKind::kMalformed, "entry '" + entry->name + "': truncated ZIP64 extra field");
        return false;
      }
      return true;
    }
    extra += 4 + field;
    len -= 4 + field;
  }
  if (need_usize || need_csize || need_offset) {
    SetError(error, ZipErrorKind::kMalformed, "entry '" + entry->name + "': sizes or offset of 0xFFFFFFFF without a ZIP64 "
                    "extra field");
    return false;
  }
  return true;
}

// Sets each entry's data_limit (the next local header in offset order, or the central directory)
// and refuses entries whose local header and data cannot fit before it: they share bytes with
// another entry (or the directory). The local header's own name/extra lengths are not read here
// (a broken one fails that entry alone, at extraction); its fixed 30 bytes are counted.
bool CheckOverlaps(std::vector<ZipEntry>* list, uint64_t cd_start, ZipError* error) {
  std::vector<size_t> order(list->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return (*list)[a].local_header_offset < (*list)[b].local_header_offset;
  });
  for (size_t k = 0; k < order.size(); ++k) {
    ZipEntry& e = (*list)[order[k]];
    const bool last = k + 1 == order.size();
    const uint64_t limit = last ? cd_start : (*list)[order[k + 1]].local_header_offset;
    const uint64_t end =
        SaturatingAdd(e.local_header_offset, SaturatingAdd(kLocalHeaderSize, e.compressed_size));
    if (end > limit) {
      SetError(error, ZipErrorKind::kOverlappingEntries,
               "entry '" + e.name + "': its local header and " + Dec(e.compressed_size) +
                   " bytes of data at offset " + Dec(e.local_header_offset) + " overlap " +
                   (last ? std::string("the central directory")
                         : "entry '" + (*list)[order[k + 1]].name + "' at offset " + Dec(limit)) +
                   " (entries sharing data: a zip bomb?)");
      return false;
    }
    e.data_limit = limit;
  }
  return true;
}

bool ReadDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                   ZipError* error) {
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
      SetError(error, ZipErrorKind::kMalformed, "truncated central directory: entry " + Dec(i) + " of " +
                          Dec(dir.entries) + " is missing");
      return false;
    }
    const uint8_t* h = data + p;
    if (LoadLe32(h) != kCentralSig) {
      SetError(error, ZipErrorKind::kMalformed, "bad central directory: no header signature at offset " + Dec(p) +
                          " (entry " + Dec(i) + ")");
      return false;
    }
    const size_t name_len = LoadLe16(h + 28), extra_len = LoadLe16(h + 30), comment_len = LoadLe16(h + 32);
    const uint64_t total = kCentralHeaderSize + name_len + extra_len + comment_len;
    if (total > cd_end - p) {
      SetError(error, ZipErrorKind::kMalformed, "truncated central directory: entry " + Dec(i) + " runs past its end");
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
      SetError(error, ZipErrorKind::kMalformed, "entry '" + en.name + "': local header offset " +
                          Dec(en.local_header_offset) + " is past the central directory");
      return false;
    }
    en.local_header_offset += bias;
    list.push_back(std::move(en));
    p += total;
  }
  if (!CheckOverlaps(&list, cd_start, error)) return false;
  *entries = std::move(list);
  return true;
}

bool CrcMatches(const ZipEntry& entry, const uint8_t* bytes, size_t n, ZipError* error) {
  const uLong crc = crc32_z(crc32_z(0L, Z_NULL, 0), bytes, n);
  if (static_cast<uint32_t>(crc) != entry.crc32) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%08x, the directory says 0x%08x",
                  static_cast<unsigned>(crc), static_cast<unsigned>(entry.crc32));
    SetError(error, ZipErrorKind::kCorruptData,
             "entry '" + entry.name + "': CRC-32 mismatch: data has " + buf);
    return false;
  }
  return true;
}

// The output of one member, grown with realloc: glibc serves large blocks with mmap and grows them
// with mremap, so growing does not hold an old and a new copy at once (a vector does at its last
// doubling: up to twice the member) and pages cost nothing until inflate writes them.
class OutputBuffer {
 public:
  OutputBuffer() = default;
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  ~OutputBuffer() { Release(); }

  uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }

  // Grows to at least `n` bytes, keeping the contents. False when there is no memory for it.
  bool Reserve(size_t n) {
    if (n <= capacity_) return true;
    void* grown = std::realloc(data_, n);
    if (grown == nullptr) return false;
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = n;
    return true;
  }

  void Release() {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace

struct EntryReader::State {
  enum class Phase { kNew, kStreaming, kDone, kFailed };

  const uint8_t* data = nullptr;
  size_t size = 0;
  const ZipEntry* entry = nullptr;
  ArchiveBudget* budget = nullptr;
  ArchiveBudget own_budget;  // when the caller gives none
  Phase phase = Phase::kNew;
  ZipError failure;
  std::string who;  // "entry 'NAME': ", the start of every message

  const uint8_t* stored = nullptr;  // a stored member's data, in the archive

  z_stream zs;
  bool zs_live = false;
  uint64_t in_left = 0;  // compressed bytes not yet handed to zlib
  bool stream_end = false;
  OutputBuffer out;  // out[0, produced) is the member so far
  uint64_t produced = 0;

  ~State() {
    if (zs_live) inflateEnd(&zs);
  }

  bool Fail(ZipErrorKind kind, std::string message, ZipError* error) {
    phase = Phase::kFailed;
    failure.kind = kind;
    failure.message = std::move(message);
    if (zs_live) inflateEnd(&zs);
    zs_live = false;
    out.Release();
    produced = 0;
    stored = nullptr;
    if (error != nullptr) *error = failure;
    return false;
  }

  // Everything the local header and the limits tell before a byte is inflated.
  bool Start(ZipError* error) {
    const ZipEntry& e = *entry;
    const ZipLimits& limits = budget->limits;
    who = "entry '" + e.name + "': ";
    const uint64_t lh = e.local_header_offset;
    if (!InBounds(lh, kLocalHeaderSize, size)) {
      return Fail(ZipErrorKind::kMalformed,
                  who + "local header at offset " + Dec(lh) + " is past the end of the data",
                  error);
    }
    const uint8_t* h = data + lh;
    if (LoadLe32(h) != kLocalSig) {
      return Fail(ZipErrorKind::kMalformed,
                  who + "no local header signature at offset " + Dec(lh), error);
    }
    if (LoadLe16(h + 6) & (kFlagEncrypted | kFlagStrongEncryption)) {
      return Fail(ZipErrorKind::kUnsupported, who + "encrypted entries are not supported", error);
    }
    if (e.method != kMethodStored && e.method != kMethodDeflate) {
      return Fail(ZipErrorKind::kUnsupported,
                  who + "unsupported compression method " + Dec(e.method) + " (" +
                      MethodName(e.method) + ")",
                  error);
    }
    if (e.uncompressed_size > limits.max_member_size) {
      return Fail(ZipErrorKind::kMemberTooLarge,
                  who + "declared size " + Dec(e.uncompressed_size) +
                      " bytes exceeds the limit of " + Dec(limits.max_member_size) + " bytes",
                  error);
    }
    const uint64_t start = lh + kLocalHeaderSize + LoadLe16(h + 26) + LoadLe16(h + 28);
    if (!InBounds(start, e.compressed_size, size)) {
      return Fail(ZipErrorKind::kMalformed,
                  who + Dec(e.compressed_size) + " bytes of data at offset " + Dec(start) +
                      " run past the end of the data",
                  error);
    }
    if (start + e.compressed_size > e.data_limit) {
      return Fail(ZipErrorKind::kOverlappingEntries,
                  who + Dec(e.compressed_size) + " bytes of data at offset " + Dec(start) +
                      " run into the next entry at offset " + Dec(e.data_limit) +
                      " (entries sharing data: a zip bomb?)",
                  error);
    }
    const uint8_t* src = data + start;
    if (e.method == kMethodStored) {
      if (e.compressed_size != e.uncompressed_size) {
        return Fail(ZipErrorKind::kMalformed,
                    who + "stored entry with compressed size " + Dec(e.compressed_size) +
                        " != uncompressed size " + Dec(e.uncompressed_size),
                    error);
      }
      budget->input_bytes += e.compressed_size;
      budget->output_bytes += e.compressed_size;
      if (budget->output_bytes > limits.max_archive_output) return OverArchiveLimit(error);
      stored = src;
      phase = Phase::kStreaming;
      return true;
    }
    // Deflate: refuse what the directory already shows to be a bomb, before inflating.
    if (e.uncompressed_size >
        SaturatingAdd(limits.ratio_allowance, SaturatingMul(limits.max_ratio, e.compressed_size))) {
      return Fail(ZipErrorKind::kCompressionRatio,
                  who + "declares " + Dec(e.uncompressed_size) + " bytes from " +
                      Dec(e.compressed_size) + " compressed bytes, above the limit of " +
                      Dec(limits.max_ratio) + ":1 (a zip bomb?); not inflated",
                  error);
    }
    if (SaturatingAdd(budget->output_bytes, e.uncompressed_size) > limits.max_archive_output) {
      return OverArchiveLimit(error);
    }
    std::memset(&zs, 0, sizeof zs);
    const int rc = inflateInit2(&zs, -MAX_WBITS);
    if (rc != Z_OK) {
      return Fail(rc == Z_MEM_ERROR ? ZipErrorKind::kOutOfMemory : ZipErrorKind::kInternal,
                  who + "cannot initialise zlib inflate", error);
    }
    zs_live = true;
    zs.next_in = const_cast<Bytef*>(src);
    in_left = e.compressed_size;
    phase = Phase::kStreaming;
    return true;
  }

  bool OverArchiveLimit(ZipError* error) {
    return Fail(ZipErrorKind::kArchiveOutputLimit,
                who + "the archive's members inflate to more than the limit of " +
                    Dec(budget->limits.max_archive_output) + " bytes in all",
                error);
  }

  // Makes room for more output: doubles the buffer (from kFirstBufferSize), never past the
  // declared size + 1 (the spare byte detects overlong data). False when out of memory.
  bool Grow() {
    const uint64_t cap_limit = SaturatingAdd(entry->uncompressed_size, 1);
    uint64_t want = std::max<uint64_t>(kFirstBufferSize, uint64_t{out.capacity()} * 2);
    want = std::min(want, cap_limit);
    if (want > SIZE_MAX || !out.Reserve(static_cast<size_t>(want))) return false;
    budget->peak_buffer_bytes = std::max<uint64_t>(budget->peak_buffer_bytes, out.capacity());
    return true;
  }

  // Inflates until `target` bytes exist or the stream ends, checking the limits between calls.
  bool Pump(uint64_t target, ZipError* error) {
    const ZipEntry& e = *entry;
    const ZipLimits& limits = budget->limits;
    while (!stream_end && produced < target) {
      if (zs.avail_in == 0 && in_left > 0) {
        zs.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, UINT_MAX));
        in_left -= zs.avail_in;
      }
      if (produced == out.capacity() && !Grow()) {
        return Fail(ZipErrorKind::kOutOfMemory, who + "out of memory for " +
                                                    Dec(e.uncompressed_size) + " bytes",
                    error);
      }
      // Never give inflate more room than the limits leave (at least kMinRoom, so that a member
      // starting over the ratio budget shows whether its compressed bytes pay for its output):
      // a bomb is stopped within a few KiB of the limit, however many members follow it.
      const uint64_t ratio_limit = SaturatingAdd(
          limits.ratio_allowance, SaturatingMul(limits.max_ratio, budget->input_bytes));
      const uint64_t ratio_room =
          ratio_limit > budget->output_bytes ? ratio_limit - budget->output_bytes : 0;
      const uint64_t archive_room = limits.max_archive_output >= budget->output_bytes
                                        ? limits.max_archive_output - budget->output_bytes + 1
                                        : 1;
      const uint64_t room = std::min<uint64_t>(
          {out.capacity() - produced, target - produced, uint64_t{kInflateChunk},
           std::max<uint64_t>(ratio_room, kMinRoom), archive_room});
      zs.next_out = out.data() + produced;
      zs.avail_out = static_cast<uInt>(room);
      const uInt avail_out_before = zs.avail_out;
      const uInt avail_in_before = zs.avail_in;
      const int rc = inflate(&zs, Z_NO_FLUSH);
      const uint64_t made = avail_out_before - zs.avail_out;
      const uint64_t used = avail_in_before - zs.avail_in;
      produced += made;
      budget->output_bytes += made;
      budget->input_bytes += used;
      if (produced > e.uncompressed_size) {
        return Fail(ZipErrorKind::kCorruptData,
                    who + "inflates to more than the declared " + Dec(e.uncompressed_size) +
                        " bytes",
                    error);
      }
      if (budget->output_bytes > limits.max_archive_output) return OverArchiveLimit(error);
      if (budget->output_bytes > SaturatingAdd(limits.ratio_allowance,
                                               SaturatingMul(limits.max_ratio,
                                                             budget->input_bytes))) {
        return Fail(ZipErrorKind::kCompressionRatio,
                    who + "inflated " + Dec(produced) + " bytes from " +
                        Dec(e.compressed_size - in_left - zs.avail_in) +
                        " compressed bytes, above the limit of " + Dec(limits.max_ratio) +
                        ":1 for the archive (a zip bomb?); stopped",
                    error);
      }
      if (rc == Z_STREAM_END) {
        stream_end = true;
        break;
      }
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
        return Fail(ZipErrorKind::kCorruptData,
                    who + "corrupt deflate data" + (zs.msg ? std::string(": ") + zs.msg : ""),
                    error);
      }
      if (rc == Z_MEM_ERROR) return Fail(ZipErrorKind::kOutOfMemory, "out of memory", error);
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return Fail(ZipErrorKind::kCorruptData,
                    who + "zlib inflate error " + Dec(static_cast<uint64_t>(-rc)), error);
      }
      // Output room was there (room > 0), so no progress means the input ran out.
      if (made == 0 && used == 0) {
        return Fail(ZipErrorKind::kCorruptData,
                    who + (zs.avail_in == 0 && in_left == 0 ? "truncated deflate data"
                                                            : "inflate made no progress"),
                    error);
      }
    }
    return true;
  }

  bool Peek(size_t n, ZipError* error) {
    if (phase == Phase::kNew && !Start(error)) return false;
    if (phase != Phase::kStreaming || stored != nullptr) return true;
    return Pump(std::min<uint64_t>(n, entry->uncompressed_size), error);
  }

  bool ReadAll(ZipError* error) {
    if (phase == Phase::kNew && !Start(error)) return false;
    if (phase == Phase::kDone) return true;
    const ZipEntry& e = *entry;
    ZipError crc_error;
    if (stored != nullptr) {
      if (!CrcMatches(e, stored, static_cast<size_t>(e.compressed_size), &crc_error)) {
        return Fail(crc_error.kind, crc_error.message, error);
      }
      phase = Phase::kDone;
      return true;
    }
    if (!Pump(SaturatingAdd(e.uncompressed_size, 1), error)) return false;
    if (zs.avail_in != 0 || in_left != 0) {
      return Fail(ZipErrorKind::kCorruptData,
                  who + "deflate data ends " + Dec(zs.avail_in + in_left) +
                      " bytes before its compressed size",
                  error);
    }
    if (produced != e.uncompressed_size) {
      return Fail(ZipErrorKind::kCorruptData,
                  who + "inflates to " + Dec(produced) + " bytes, the directory says " +
                      Dec(e.uncompressed_size),
                  error);
    }
    inflateEnd(&zs);
    zs_live = false;
    if (!CrcMatches(e, out.data(), static_cast<size_t>(produced), &crc_error)) {
      return Fail(crc_error.kind, crc_error.message, error);
    }
    phase = Phase::kDone;
    return true;
  }
};

EntryReader::EntryReader(const uint8_t* data, size_t size, const ZipEntry& entry,
                         ArchiveBudget* budget) noexcept
    : state_(new (std::nothrow) State) {
  if (state_ == nullptr) return;
  state_->data = data;
  state_->size = data == nullptr ? 0 : size;
  state_->entry = &entry;
  state_->budget = budget != nullptr ? budget : &state_->own_budget;
}

EntryReader::~EntryReader() = default;

bool EntryReader::Peek(size_t n, ZipError* error) noexcept {
  if (state_ == nullptr) {
    SetError(error, ZipErrorKind::kOutOfMemory, "out of memory");
    return false;
  }
  if (state_->phase == State::Phase::kFailed) {
    if (error != nullptr) *error = state_->failure;
    return false;
  }
  try {
    return state_->Peek(n, error);
  } catch (const std::bad_alloc&) {
    return state_->Fail(ZipErrorKind::kOutOfMemory, "out of memory", error);
  } catch (...) {
    return state_->Fail(ZipErrorKind::kInternal, "unexpected exception while inflating", error);
  }
}

bool EntryReader::ReadAll(ZipError* error) noexcept {
  if (state_ == nullptr) {
    SetError(error, ZipErrorKind::kOutOfMemory, "out of memory");
    return false;
  }
  if (state_->phase == State::Phase::kFailed) {
    if (error != nullptr) *error = state_->failure;
    return false;
  }
  try {
    return state_->ReadAll(error);
  } catch (const std::bad_alloc&) {
    return state_->Fail(ZipErrorKind::kOutOfMemory, "out of memory", error);
  } catch (...) {
    return state_->Fail(ZipErrorKind::kInternal, "unexpected exception while inflating", error);
  }
}

const uint8_t* EntryReader::data() const noexcept {
  if (state_ == nullptr) return nullptr;
  return state_->stored != nullptr ? state_->stored : state_->out.data();
}

size_t EntryReader::size() const noexcept {
  if (state_ == nullptr) return 0;
  if (state_->stored != nullptr) return static_cast<size_t>(state_->entry->compressed_size);
  return static_cast<size_t>(state_->produced);
}

uint64_t EntryReader::inflated_bytes() const noexcept {
  return state_ == nullptr || state_->stored != nullptr ? 0 : state_->produced;
}

bool ZipEntry::is_directory() const { return !name.empty() && name.back() == '/'; }

const char* ZipErrorKindName(ZipErrorKind kind) noexcept {
  switch (kind) {
    case ZipErrorKind::kNone: return "";
    case ZipErrorKind::kMalformed: return "malformed";
    case ZipErrorKind::kUnsupported: return "unsupported";
    case ZipErrorKind::kCorruptData: return "corrupt_data";
    case ZipErrorKind::kOverlappingEntries: return "overlapping_entries";
    case ZipErrorKind::kMemberTooLarge: return "member_too_large";
    case ZipErrorKind::kCompressionRatio: return "compression_ratio";
    case ZipErrorKind::kArchiveOutputLimit: return "archive_output_limit";
    case ZipErrorKind::kOutOfMemory: return "out_of_memory";
    case ZipErrorKind::kInternal: return "internal";
  }
  return "internal";
}

bool IsZipLimit(ZipErrorKind kind) noexcept {
  return kind == ZipErrorKind::kOverlappingEntries || kind == ZipErrorKind::kMemberTooLarge ||
         kind == ZipErrorKind::kCompressionRatio || kind == ZipErrorKind::kArchiveOutputLimit;
}

bool LooksLikeZip(const uint8_t* data, size_t size) noexcept {
  if (data == nullptr || size < 4) return false;
  const uint32_t sig = LoadLe32(data);
  return sig == kLocalSig || sig == kEndSig;
}

bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      ZipError* error) noexcept {
  if (entries == nullptr) {
    SetError(error, ZipErrorKind::kInternal, "ReadZipDirectory: no output vector");
    return false;
  }
  entries->clear();
  if (data == nullptr && size != 0) {
    SetError(error, ZipErrorKind::kInternal, "ReadZipDirectory: no data");
    return false;
  }
  try {
    return ReadDirectory(data, size, entries, error);
  } catch (const std::bad_alloc&) {
    entries->clear();
    SetError(error, ZipErrorKind::kOutOfMemory, "out of memory");
    return false;
  } catch (...) {
    entries->clear();
    SetError(error, ZipErrorKind::kInternal,
             "unexpected exception while reading the zip directory");
    return false;
  }
}

bool ReadZipDirectory(const uint8_t* data, size_t size, std::vector<ZipEntry>* entries,
                      std::string* error) noexcept {
  ZipError typed;
  const bool ok = ReadZipDirectory(data, size, entries, &typed);
  if (!ok && error != nullptr) {
    try {
      *error = std::move(typed.message);
    } catch (...) {
    }
  }
  return ok;
}

bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, ZipError* error, ArchiveBudget* budget) noexcept {
  if (out == nullptr) {
    SetError(error, ZipErrorKind::kInternal, "ExtractZipEntry: no output vector");
    return false;
  }
  out->clear();
  if (data == nullptr && size != 0) {
    SetError(error, ZipErrorKind::kInternal, "ExtractZipEntry: no data");
    return false;
  }
  EntryReader reader(data, size, entry, budget);
  if (!reader.ReadAll(error)) {
    std::vector<uint8_t>().swap(*out);
    return false;
  }
  try {
    out->assign(reader.data(), reader.data() + reader.size());
  } catch (const std::bad_alloc&) {
    std::vector<uint8_t>().swap(*out);
    SetError(error, ZipErrorKind::kOutOfMemory, "out of memory");
    return false;
  }
  return true;
}

bool ExtractZipEntry(const uint8_t* data, size_t size, const ZipEntry& entry,
                     std::vector<uint8_t>* out, std::string* error, uint64_t max_size) noexcept {
  ArchiveBudget budget;
  budget.limits.max_member_size = max_size;
  ZipError typed;
  const bool ok = ExtractZipEntry(data, size, entry, out, &typed, &budget);
  if (!ok && error != nullptr) {
    try {
      *error = std::move(typed.message);
    } catch (...) {
    }
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
