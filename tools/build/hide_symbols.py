#!/usr/bin/env python3
"""Copies a static archive (ar) of ELF64 objects, every symbol it defines made hidden.

The embedding twins (cudyn_library.bzl) are the normal libraries' own objects with this done to
them: a hidden symbol still links within the binary or shared object that takes the archive, but
is never exported from it, which is what -fvisibility=hidden would have compiled, without
compiling every source a second time. Only the symbol table's visibility bits change (st_other),
so every member keeps its size and the archive's index stays valid.

Usage: hide_symbols.py IN.a OUT.a
Exit status 1, with the reason, on anything else than a GNU ar archive (what Bazel's toolchain
writes) of little-endian ELF64 relocatable objects, and on an STB_GNU_UNIQUE symbol (no visibility hides one: compile with
-fno-gnu-unique).
"""
import struct
import sys

AR_MAGIC = b"!<arch>\n"
AR_HEADER_SIZE = 60
SHT_SYMTAB = 2
SHN_UNDEF = 0
STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 1, 2, 10
STV_HIDDEN = 2
SYM_SIZE = 24  # Elf64_Sym


class Error(Exception):
    pass


def hide_object(data, start, end, member):
    """Marks hidden every global or weak symbol the ELF64 object data[start:end] defines."""
    if data[start:start + 4] != b"\x7fELF":
        return  # not an object (an archive may carry other members): left as it is
    if data[start + 4] != 2 or data[start + 5] != 1:
        raise Error("%s: not a little-endian ELF64 object" % member)
    shoff, = struct.unpack_from("<Q", data, start + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, start + 0x3A)
    if shoff == 0 or start + shoff + shnum * shentsize > end:
        raise Error("%s: section headers out of bounds" % member)
    for i in range(shnum):
        sh = start + shoff + i * shentsize
        sh_type, = struct.unpack_from("<I", data, sh + 4)
        if sh_type != SHT_SYMTAB:
            continue
        offset, size = struct.unpack_from("<QQ", data, sh + 0x18)
        if start + offset + size > end:
            raise Error("%s: symbol table out of bounds" % member)
        for sym in range(start + offset, start + offset + size - SYM_SIZE + 1, SYM_SIZE):
            info, other, shndx = struct.unpack_from("<BBH", data, sym + 4)
            binding = info >> 4
            if shndx == SHN_UNDEF:
                continue
            if binding == STB_GNU_UNIQUE:
                raise Error("%s: STB_GNU_UNIQUE symbol at %d (compile with -fno-gnu-unique)" % (
                    member, (sym - start - offset) // SYM_SIZE))
            if binding in (STB_GLOBAL, STB_WEAK):
                data[sym + 5] = (other & ~3) | STV_HIDDEN


def hide_archive(data):
    """Rewrites the archive `data` (a bytearray) in place."""
    if data[:len(AR_MAGIC)] != AR_MAGIC:
        raise Error("not an ar archive (thin archives are not supported)")
    pos = len(AR_MAGIC)
    while pos < len(data):
        if pos + AR_HEADER_SIZE > len(data) or data[pos + 58:pos + 60] != b"`\n":
            raise Error("bad member header at offset %d" % pos)
        name = data[pos:pos + 16].decode("ascii", "replace").strip()
        try:
            size = int(data[pos + 48:pos + 58].decode("ascii").strip())
        except ValueError:
            raise Error("bad member size at offset %d" % pos)
        start = pos + AR_HEADER_SIZE
        end = start + size
        if end > len(data):
            raise Error("member %s runs past the end" % name)
        if name not in ("/", "//", "/SYM64/"):  # the symbol index and the long-name table
            hide_object(data, start, end, name)
        pos = end + (end & 1)  # members are 2-byte aligned


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0] + "\nusage: hide_symbols.py IN.a OUT.a",
              file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        data = bytearray(f.read())
    try:
        hide_archive(data)
    except Error as e:
        print("hide_symbols.py: %s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    with open(argv[2], "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
