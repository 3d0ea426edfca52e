#!/usr/bin/env python3
"""Writes the test archives of //tools/zip:zip_reader_test into OUTDIR (standard library only).

    make_zips.py OUTDIR

Member contents follow fixed rules that zip_reader_test.cc repeats (it never takes them from the
reader's output):
  Pattern(n, seed)    n bytes, byte j = (seed + j * 7 + j // 13) % 251
  MemberBytes(i)      member i of many.zip: 1000 + i bytes, byte j = (i * 7 + j) % 251
Every timestamp is 1980-01-01 00:00:00, so the output is the same on every run. Each archive is
read back with zipfile before it is written (corrupted ones: before they are corrupted).
"""

import io
import os
import struct
import sys
import zipfile
import zlib

EPOCH = (1980, 1, 1, 0, 0, 0)
STORED_TEXT = b"stored member of a wheel\n"
PREFIX = b"#!/bin/sh\necho 'a self-extracting stub'\nexit 0\n" + bytes(range(256)) * 2


def pattern(n, seed):
    return bytes((seed + j * 7 + j // 13) % 251 for j in range(n))


def member_bytes(i):
    return bytes((i * 7 + j) % 251 for j in range(1000 + i))


def info(name, method=zipfile.ZIP_STORED):
    zi = zipfile.ZipInfo(name, date_time=EPOCH)
    zi.compress_type = method
    zi.external_attr = (0o40755 << 16) | 0x10 if name.endswith("/") else 0o100644 << 16
    return zi


# basic.zip: the members of a small wheel-like archive.
BASIC = [
    ("pkg/", b"", zipfile.ZIP_STORED),
    ("pkg/stored.txt", STORED_TEXT, zipfile.ZIP_STORED),
    ("pkg/deflated.bin", pattern(20000, 1), zipfile.ZIP_DEFLATED),
    ("pkg/empty", b"", zipfile.ZIP_STORED),
    ("pkg/empty.z", b"", zipfile.ZIP_DEFLATED),
]


def build(members, **kwargs):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", **kwargs) as zf:
        for name, data, method in members:
            zf.writestr(info(name, method), data)
    return buf.getvalue()


def check(blob, members, what):
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        names = [zi.filename for zi in zf.infolist()]
        if names != [m[0] for m in members]:
            raise SystemExit(f"make_zips: {what}: members {names}")
        for name, data, _ in members:
            if zf.read(name) != data:
                raise SystemExit(f"make_zips: {what}: {name} reads back wrong")


def central_headers(blob):
    """(offset, name) of every central directory header (plain archives only)."""
    end = blob.rindex(b"PK\x05\x06")
    count, _, cd_offset = struct.unpack_from("<HII", blob, end + 10)
    out, p = [], cd_offset
    for _ in range(count):
        assert blob[p : p + 4] == b"PK\x01\x02"
        n, m, k = struct.unpack_from("<HHH", blob, p + 28)
        out.append((p, blob[p + 46 : p + 46 + n].decode()))
        p += 46 + n + m + k
    return out


def local_data_offset(blob, central):
    lh = struct.unpack_from("<I", blob, central + 42)[0]
    n, m = struct.unpack_from("<HH", blob, lh + 26)
    return lh, lh + 30 + n + m


def zip64_by_hand():
    """One stored member with every 32-bit field of its central header set to 0xFFFFFFFF (values
    in the ZIP64 extra field) and an EOCD whose counts/offsets are all saturated (values in the
    ZIP64 end record, found through its locator)."""
    name = b"big/zip64.bin"
    data = pattern(3000, 64)
    crc = zlib.crc32(data)
    local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
    local = (
        struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                    len(name), len(local_extra))
        + name + local_extra + data
    )
    central_extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), 0)
    central = (
        struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF,
                    0xFFFFFFFF, len(name), len(central_extra), 0, 0, 0, 0o100644 << 16, 0xFFFFFFFF)
        + name + central_extra
    )
    cd_offset, cd_size = len(local), len(central)
    end64_offset = cd_offset + cd_size
    end64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, cd_size, cd_offset)
    locator = struct.pack("<IIQI", 0x07064B50, 0, end64_offset, 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                      0xFFFFFFFF, 0)
    blob = local + central + end64 + locator + end
    check(blob, [(name.decode(), data, 0)], "zip64_manual")
    return blob


class Unseekable(io.RawIOBase):
    """A write-only stream without seek/tell: zipfile then writes data descriptors."""

    def __init__(self):
        super().__init__()
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {}

    basic = build(BASIC)
    check(basic, BASIC, "basic")
    files["basic.zip"] = basic
    files["empty.zip"] = build([])

    many = [(f"many/{i:03d}.bin", member_bytes(i),
             zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED) for i in range(100)]
    blob = build(many)
    check(blob, many, "many")
    files["many.zip"] = blob

    # ZIP64 as zipfile writes it when forced: ZIP64 extra fields in the local headers.
    forced = [("z64/stored.bin", pattern(5000, 2), zipfile.ZIP_STORED),
              ("z64/deflated.bin", pattern(50000, 3), zipfile.ZIP_DEFLATED)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", allowZip64=True) as zf:
        for name, data, method in forced:
            with zf.open(info(name, method), "w", force_zip64=True) as f:
                f.write(data)
    check(buf.getvalue(), forced, "zip64_forced")
    files["zip64_forced.zip"] = buf.getvalue()

    # ZIP64 end record and locator as zipfile writes them for more than 65535 members.
    count = 65537
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", allowZip64=True) as zf:
        for i in range(count):
            zf.writestr(info(f"e/{i:05d}"), bytes([i % 251]))
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert len(zf.infolist()) == count and zf.read("e/65536") == bytes([65536 % 251])
    files["zip64_many.zip"] = buf.getvalue()

    files["zip64_manual.zip"] = zip64_by_hand()

    # Data before the archive: concatenated (offsets relative to the archive) and appended by
    # zipfile's mode "a" (offsets relative to the file).
    files["prefix_concat.zip"] = PREFIX + basic
    buf = io.BytesIO(PREFIX)
    buf.seek(0, io.SEEK_END)
    with zipfile.ZipFile(buf, "a") as zf:
        for name, data, method in BASIC:
            zf.writestr(info(name, method), data)
    check(buf.getvalue(), BASIC, "prefix_append")
    assert buf.getvalue().startswith(PREFIX)
    files["prefix_append.zip"] = buf.getvalue()

    files["truncated.zip"] = basic[: len(basic) // 2]

    # bad_crc.zip: basic.zip with one data byte of pkg/stored.txt flipped (its CRC no longer
    # matches) and the central directory CRC of pkg/deflated.bin changed.
    bad = bytearray(basic)
    for central, name in central_headers(basic):
        if name == "pkg/stored.txt":
            bad[local_data_offset(basic, central)[1] + 3] ^= 0x20
        elif name == "pkg/deflated.bin":
            bad[central + 16] ^= 0x01
    files["bad_crc.zip"] = bytes(bad)

    # Method 12: only the bzip2 member is unsupported.
    bz = [("a/plain.txt", STORED_TEXT, zipfile.ZIP_STORED),
          ("a/bzip2.bin", pattern(4000, 5), zipfile.ZIP_BZIP2)]
    blob = build(bz)
    check(blob, bz, "bzip2")
    files["bzip2.zip"] = blob

    # Data descriptors (flag bit 3; zero sizes/CRC in the local headers).
    stream = Unseekable()
    with zipfile.ZipFile(stream, "w") as zf:
        for name, data, method in BASIC:
            zf.writestr(info(name, method), data)
    blob = bytes(stream.buf)
    check(blob, BASIC, "descriptor")
    _, lh_flags = struct.unpack_from("<HH", blob, 4)
    assert lh_flags & 0x08, "zipfile wrote no data descriptor"
    files["descriptor.zip"] = blob

    # encrypted.zip: basic.zip with the "encrypted" flag set on pkg/stored.txt (both headers).
    enc = bytearray(basic)
    for central, name in central_headers(basic):
        if name == "pkg/stored.txt":
            enc[central + 8] |= 0x01
            enc[local_data_offset(basic, central)[0] + 6] |= 0x01
    files["encrypted.zip"] = bytes(enc)

    # An archive comment holding a fake end record ("PK\5\6" + zeros, whose comment length does
    # not reach the end of the file). zipfile itself takes the fake one, so the archive is
    # checked with a harmless comment of the same length first.
    fake = b"PK\x05\x06" + bytes(18)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.comment = b"comment " + b"x" * len(fake) + b" end"
        for name, data, method in BASIC:
            zf.writestr(info(name, method), data)
    blob = buf.getvalue()
    check(blob, BASIC, "comment")
    files["comment.zip"] = blob[: -len(fake) - 4] + fake + blob[-4:]

    files["not_a_zip.bin"] = b"this is not a zip file, only text that mentions PK\n" * 40

    for name, blob in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
