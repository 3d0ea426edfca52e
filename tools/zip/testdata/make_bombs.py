#!/usr/bin/env python3
"""Writes zip bombs shaped like Python wheels into OUTDIR (standard library only).

    make_bombs.py OUTDIR [--small]

They are the hostile inputs of cudyn-check's zip reader: the fuzzer's seeds (tools/zip/
run_fuzzer.sh, with --small) and the before/after measurements in tools/README.md (full size):

  zeros.whl          lib/libzeros.so: 2 GiB of zeros (deflate, about 2 MB)
  elf_zeros.whl      lib/libelf.so: the ELF magic, then 1 GiB of zeros
  many.whl           lib/lib00.so ... lib63.so: 64 MiB of zeros each
  overlap.whl        64 central-directory entries lib/lib00.so ... lib63.so, all naming the same
                     local header and data (the ELF magic, then 64 MiB of zeros)
  overlap_quoted.whl two entries where the first (stored) one's data holds the second one's local
                     header and data (the overlapping kind of non-recursive zip bomb)
  zeros_lying.whl    lib/libzeros.so: 2 GiB of zeros that the headers declare as 4 bytes
  elf_padded.whl     lib/libelf.so: the ELF magic, then 1 GiB of zeros, the compressed size padded
                     with 11 MiB of random bytes after the deflate stream, so that the declared
                     sizes look plausible (about 93:1); full size only

--small divides every size by 64 (each file then stays under the fuzzer's 64 KiB max_len).
Deflate streams of zeros are built from one 1 MiB block flushed with Z_FULL_FLUSH (no reference
to earlier data, byte-aligned), repeated, then an empty final block: seconds, not minutes.
"""

import os
import struct
import sys
import zlib

MIB = 1 << 20
ELF_MAGIC = b"\x7fELF"
DOS_DATE = 0x21  # 1980-01-01


def raw_compressor():
    return zlib.compressobj(9, zlib.DEFLATED, -15)


def deflated(head, total):
    """(deflate stream, crc32) of `head` followed by zeros, `total` bytes in all."""
    assert len(head) <= MIB and total % MIB == 0 and total > 0
    zeros = bytes(MIB)
    first = head + zeros[len(head):]
    c = raw_compressor()
    first_block = c.compress(first) + c.flush(zlib.Z_FULL_FLUSH)
    c = raw_compressor()
    zero_block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    final = raw_compressor().flush(zlib.Z_FINISH)
    count = total // MIB
    crc = zlib.crc32(first)
    for _ in range(count - 1):
        crc = zlib.crc32(zeros, crc)
    return first_block + zero_block * (count - 1) + final, crc


def local_header(name, method, crc, csize, usize):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, DOS_DATE, crc, csize,
                       usize, len(name), 0) + name


def central_header(name, method, crc, csize, usize, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, DOS_DATE, crc,
                       csize, usize, len(name), 0, 0, 0, 0, 0o100755 << 16, offset) + name


def archive(members, directory):
    """members: local bytes in file order; directory: central headers. Adds the end record."""
    body = b"".join(members)
    cd = b"".join(directory)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(directory), len(directory), len(cd),
                      len(body), 0)
    return body + cd + end


def single(name, head, total, declared=None, padding=b""):
    data, crc = deflated(head, total)
    data += padding
    declared = total if declared is None else declared
    lh = local_header(name, 8, crc, len(data), declared)
    return archive([lh + data], [central_header(name, 8, crc, len(data), declared, 0)])


def many(count, each):
    data, crc = deflated(b"", each)
    members, directory, offset = [], [], 0
    for i in range(count):
        name = b"lib/lib%02d.so" % i
        lh = local_header(name, 8, crc, len(data), each)
        members.append(lh + data)
        directory.append(central_header(name, 8, crc, len(data), each, offset))
        offset += len(lh) + len(data)
    return archive(members, directory)


def overlap(count, each):
    data, crc = deflated(ELF_MAGIC, each)
    lh = local_header(b"lib/lib00.so", 8, crc, len(data), each)
    directory = [central_header(b"lib/lib%02d.so" % i, 8, crc, len(data), each, 0)
                 for i in range(count)]
    return archive([lh + data], directory)


def overlap_quoted(each):
    inner_data, inner_crc = deflated(ELF_MAGIC, each)
    inner = local_header(b"lib/libinner.so", 8, inner_crc, len(inner_data), each) + inner_data
    outer_name = b"lib/libouter.so"
    outer = local_header(outer_name, 0, zlib.crc32(inner), len(inner), len(inner)) + inner
    inner_offset = 30 + len(outer_name)
    directory = [
        central_header(outer_name, 0, zlib.crc32(inner), len(inner), len(inner), 0),
        central_header(b"lib/libinner.so", 8, inner_crc, len(inner_data), each, inner_offset),
    ]
    return archive([outer], directory)


def main():
    args = [a for a in sys.argv[1:] if a != "--small"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    div = 64 if "--small" in sys.argv[1:] else 1
    out = args[0]
    os.makedirs(out, exist_ok=True)
    bombs = {
        "zeros.whl": lambda: single(b"lib/libzeros.so", b"", 2048 * MIB // div),
        "elf_zeros.whl": lambda: single(b"lib/libelf.so", ELF_MAGIC, 1024 * MIB // div),
        "many.whl": lambda: many(64 // (8 if div > 1 else 1), 64 * MIB // div),
        "overlap.whl": lambda: overlap(64, 64 * MIB // div),
        "overlap_quoted.whl": lambda: overlap_quoted(64 * MIB // div),
        "zeros_lying.whl": lambda: single(b"lib/libzeros.so", b"", 2048 * MIB // div, declared=4),
    }
    if div == 1:
        bombs["elf_padded.whl"] = lambda: single(b"lib/libelf.so", ELF_MAGIC, 1024 * MIB,
                                                 padding=os.urandom(11 * MIB))
    for name, make in bombs.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(make())


if __name__ == "__main__":
    main()
