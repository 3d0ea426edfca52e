#include "tools/zip/testing/zip_bombs.h"

#include <zlib.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace cudyn {
namespace zip {
namespace testing {
namespace {

constexpr uint16_t kDosDate = 0x21;  // 1980-01-01

void Put16(Bytes* b, uint32_t v) {
  b->push_back(static_cast<uint8_t>(v));
  b->push_back(static_cast<uint8_t>(v >> 8));
}
void Put32(Bytes* b, uint64_t v) {
  Put16(b, static_cast<uint32_t>(v & 0xFFFF));
  Put16(b, static_cast<uint32_t>((v >> 16) & 0xFFFF));
}
void PutName(Bytes* b, const std::string& name) { b->insert(b->end(), name.begin(), name.end()); }

// Raw deflate (level 9) of `bytes`, ended with `flush` (Z_FULL_FLUSH: byte-aligned, not final;
// Z_FINISH: final block). Empty on a zlib failure (the archive then fails the test reading it).
Bytes RawDeflate(const uint8_t* bytes, size_t n, int flush) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  Bytes out(deflateBound(&zs, n) + 64);
  zs.next_in = const_cast<Bytef*>(bytes);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, flush);
  const bool ok = rc == (flush == Z_FINISH ? Z_STREAM_END : Z_OK) && zs.avail_in == 0;
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  return ok ? out : Bytes();
}

uint32_t Crc(const uint8_t* bytes, size_t n, uint32_t crc = 0) {
  return static_cast<uint32_t>(crc32_z(crc, bytes, n));
}

}  // namespace

Bytes ElfMagic() { return {0x7f, 'E', 'L', 'F'}; }

Member DeflatedMember(const std::string& name, const Bytes& bytes) {
  Member m;
  m.name = name;
  m.method = 8;
  m.data = RawDeflate(bytes.data(), bytes.size(), Z_FINISH);
  m.crc = Crc(bytes.data(), bytes.size());
  m.uncompressed_size = bytes.size();
  return m;
}

Member StoredMember(const std::string& name, const Bytes& bytes) {
  Member m;
  m.name = name;
  m.method = 0;
  m.data = bytes;
  m.crc = Crc(bytes.data(), bytes.size());
  m.uncompressed_size = bytes.size();
  return m;
}

Member ZerosMember(const std::string& name, const Bytes& head, uint64_t total) {
  Member m;
  m.name = name;
  m.method = 8;
  m.uncompressed_size = total;
  const Bytes zeros(kMiB, 0);
  const Bytes zero_block = RawDeflate(zeros.data(), zeros.size(), Z_FULL_FLUSH);
  const uint32_t zero_crc = Crc(zeros.data(), zeros.size());
  uint64_t left = total;
  bool first = true;
  uint32_t crc = 0;
  while (left > 0) {
    const size_t n = static_cast<size_t>(left < kMiB ? left : kMiB);
    if (first || n < kMiB) {
      Bytes chunk(n, 0);
      if (first && !head.empty()) {
        std::memcpy(chunk.data(), head.data(), head.size() < n ? head.size() : n);
      }
      const Bytes block = RawDeflate(chunk.data(), chunk.size(), Z_FULL_FLUSH);
      m.data.insert(m.data.end(), block.begin(), block.end());
      const uint32_t chunk_crc = Crc(chunk.data(), n);
      crc = first ? chunk_crc : static_cast<uint32_t>(crc32_combine(crc, chunk_crc, n));
    } else {
      m.data.insert(m.data.end(), zero_block.begin(), zero_block.end());
      crc = static_cast<uint32_t>(crc32_combine(crc, zero_crc, kMiB));
    }
    first = false;
    left -= n;
  }
  const Bytes end = RawDeflate(nullptr, 0, Z_FINISH);  // an empty final block
  m.data.insert(m.data.end(), end.begin(), end.end());
  m.crc = crc;
  return m;
}

uint64_t ZipWriter::Add(const Member& member) {
  const uint64_t offset = body_.size();
  Put32(&body_, 0x04034b50);
  Put16(&body_, 20);  // version needed
  Put16(&body_, 0);   // flags
  Put16(&body_, member.method);
  Put16(&body_, 0);  // time
  Put16(&body_, kDosDate);
  Put32(&body_, member.crc);
  Put32(&body_, member.data.size());
  Put32(&body_, member.uncompressed_size);
  Put16(&body_, static_cast<uint32_t>(member.name.size()));
  Put16(&body_, 0);  // extra
  PutName(&body_, member.name);
  body_.insert(body_.end(), member.data.begin(), member.data.end());
  return offset;
}

void ZipWriter::AddRaw(const Bytes& bytes) { body_.insert(body_.end(), bytes.begin(), bytes.end()); }

void ZipWriter::AddDirectoryEntry(const Member& member, uint64_t offset) {
  Bytes& d = directory_;
  Put32(&d, 0x02014b50);
  Put16(&d, 20);  // made by
  Put16(&d, 20);  // needed
  Put16(&d, 0);   // flags
  Put16(&d, member.method);
  Put16(&d, 0);
  Put16(&d, kDosDate);
  Put32(&d, member.crc);
  Put32(&d, member.data.size());
  Put32(&d, member.uncompressed_size);
  Put16(&d, static_cast<uint32_t>(member.name.size()));
  Put16(&d, 0);  // extra
  Put16(&d, 0);  // comment
  Put16(&d, 0);  // disk
  Put16(&d, 0);  // internal attributes
  Put32(&d, uint64_t{0100755} << 16);
  Put32(&d, offset);
  PutName(&d, member.name);
  ++entries_;
}

void ZipWriter::AddEntry(const Member& member) { AddDirectoryEntry(member, Add(member)); }

Bytes ZipWriter::Finish() const {
  Bytes out = body_;
  out.insert(out.end(), directory_.begin(), directory_.end());
  Put32(&out, 0x06054b50);
  Put16(&out, 0);
  Put16(&out, 0);
  Put16(&out, entries_);
  Put16(&out, entries_);
  Put32(&out, directory_.size());
  Put32(&out, body_.size());
  Put16(&out, 0);
  return out;
}

Bytes ZerosBomb(uint64_t total) {
  ZipWriter w;
  w.AddEntry(ZerosMember("lib/libzeros.so", {}, total));
  return w.Finish();
}

Bytes ElfZerosBomb(uint64_t total) {
  ZipWriter w;
  w.AddEntry(ZerosMember("lib/libelf.so", ElfMagic(), total));
  return w.Finish();
}

Bytes ManyZerosBomb(int count, uint64_t each) {
  Member m = ZerosMember("", {}, each);
  ZipWriter w;
  for (int i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "lib/lib%02d.so", i);
    m.name = name;
    w.AddEntry(m);
  }
  return w.Finish();
}

Bytes OverlapBomb(int count, uint64_t each) {
  Member m = ZerosMember("lib/lib00.so", ElfMagic(), each);
  ZipWriter w;
  const uint64_t offset = w.Add(m);
  for (int i = 0; i < count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "lib/lib%02d.so", i);
    m.name = name;
    w.AddDirectoryEntry(m, offset);
  }
  return w.Finish();
}

Bytes QuotedOverlapBomb(uint64_t each) {
  const Member inner = ZerosMember("lib/libinner.so", ElfMagic(), each);
  ZipWriter quoted;
  quoted.Add(inner);
  const Bytes inner_bytes = quoted.Finish();
  // Finish() appended an empty directory and end record: keep only the local header + data.
  const Bytes inner_local(inner_bytes.begin(),
                          inner_bytes.begin() + static_cast<std::ptrdiff_t>(quoted.size()));
  const Member outer = StoredMember("lib/libouter.so", inner_local);
  ZipWriter w;
  const uint64_t outer_offset = w.Add(outer);
  w.AddDirectoryEntry(outer, outer_offset);
  w.AddDirectoryEntry(inner, outer_offset + 30 + outer.name.size());
  return w.Finish();
}

}  // namespace testing
}  // namespace zip
}  // namespace cudyn
