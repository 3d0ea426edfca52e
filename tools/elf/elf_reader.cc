// cudyn ELF reader. See elf_reader.h for the contract.
//
// Implementation notes:
// * Fields are read byte by byte as little-endian integers (no casts of the input to structs, so
//   no alignment or aliasing issues and the result does not depend on the host byte order).
//   Field offsets are the ones of <elf.h>; static_asserts below tie them to it.
// * Every "is [off, off+len) inside the file?" question goes through Within(); every product or
//   sum of file-controlled values goes through MulOk()/AddOk().
#include "tools/elf/elf_reader.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "tools/util/file_type.h"

namespace cudyn {
namespace elf {
namespace {

// ---------------------------------------------------------------------------------------------
// Limits (see the header).
constexpr uint64_t kMaxDynamicEntries = 65536;
constexpr uint64_t kMaxSymbols = uint64_t{1} << 22;
constexpr uint64_t kMaxVerneedEntries = 65536;
constexpr uint64_t kMaxInterpreterLength = 4096;

// ---------------------------------------------------------------------------------------------
// Layout of the structures we read (byte offsets), checked against <elf.h>.
static_assert(offsetof(Elf64_Ehdr, e_phoff) == 32 && offsetof(Elf64_Ehdr, e_shoff) == 40 &&
                  offsetof(Elf64_Ehdr, e_phentsize) == 54 && offsetof(Elf64_Ehdr, e_phnum) == 56 &&
                  offsetof(Elf64_Ehdr, e_shentsize) == 58 && offsetof(Elf64_Ehdr, e_shnum) == 60 &&
                  sizeof(Elf64_Ehdr) == 64,
              "Elf64_Ehdr layout");
static_assert(offsetof(Elf32_Ehdr, e_phoff) == 28 && offsetof(Elf32_Ehdr, e_shoff) == 32 &&
                  offsetof(Elf32_Ehdr, e_phentsize) == 42 && offsetof(Elf32_Ehdr, e_phnum) == 44 &&
                  offsetof(Elf32_Ehdr, e_shentsize) == 46 && offsetof(Elf32_Ehdr, e_shnum) == 48 &&
                  sizeof(Elf32_Ehdr) == 52,
              "Elf32_Ehdr layout");
static_assert(offsetof(Elf64_Phdr, p_offset) == 8 && offsetof(Elf64_Phdr, p_vaddr) == 16 &&
                  offsetof(Elf64_Phdr, p_filesz) == 32 && offsetof(Elf64_Phdr, p_memsz) == 40 &&
                  sizeof(Elf64_Phdr) == 56,
              "Elf64_Phdr layout");
static_assert(offsetof(Elf32_Phdr, p_offset) == 4 && offsetof(Elf32_Phdr, p_vaddr) == 8 &&
                  offsetof(Elf32_Phdr, p_filesz) == 16 && offsetof(Elf32_Phdr, p_memsz) == 20 &&
                  sizeof(Elf32_Phdr) == 32,
              "Elf32_Phdr layout");
static_assert(offsetof(Elf64_Shdr, sh_type) == 4 && offsetof(Elf64_Shdr, sh_offset) == 24 &&
                  offsetof(Elf64_Shdr, sh_size) == 32 && offsetof(Elf64_Shdr, sh_link) == 40 &&
                  offsetof(Elf64_Shdr, sh_info) == 44 && offsetof(Elf64_Shdr, sh_entsize) == 56 &&
                  sizeof(Elf64_Shdr) == 64,
              "Elf64_Shdr layout");
static_assert(offsetof(Elf32_Shdr, sh_type) == 4 && offsetof(Elf32_Shdr, sh_offset) == 16 &&
                  offsetof(Elf32_Shdr, sh_size) == 20 && offsetof(Elf32_Shdr, sh_link) == 24 &&
                  offsetof(Elf32_Shdr, sh_info) == 28 && offsetof(Elf32_Shdr, sh_entsize) == 36 &&
                  sizeof(Elf32_Shdr) == 40,
              "Elf32_Shdr layout");
static_assert(offsetof(Elf64_Sym, st_info) == 4 && offsetof(Elf64_Sym, st_other) == 5 &&
                  offsetof(Elf64_Sym, st_shndx) == 6 && sizeof(Elf64_Sym) == 24,
              "Elf64_Sym layout");
static_assert(offsetof(Elf32_Sym, st_info) == 12 && offsetof(Elf32_Sym, st_other) == 13 &&
                  offsetof(Elf32_Sym, st_shndx) == 14 && sizeof(Elf32_Sym) == 16,
              "Elf32_Sym layout");
static_assert(sizeof(Elf64_Dyn) == 16 && sizeof(Elf32_Dyn) == 8, "Elf_Dyn layout");
static_assert(sizeof(Elf64_Verneed) == 16 && sizeof(Elf32_Verneed) == 16 &&
                  offsetof(Elf64_Verneed, vn_cnt) == 2 && offsetof(Elf64_Verneed, vn_file) == 4 &&
                  offsetof(Elf64_Verneed, vn_aux) == 8 && offsetof(Elf64_Verneed, vn_next) == 12,
              "Verneed layout");
static_assert(sizeof(Elf64_Vernaux) == 16 && offsetof(Elf64_Vernaux, vna_other) == 6 &&
                  offsetof(Elf64_Vernaux, vna_name) == 8 && offsetof(Elf64_Vernaux, vna_next) == 12,
              "Vernaux layout");

// ---------------------------------------------------------------------------------------------
// Little helpers.

inline uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t Le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t Le64(const uint8_t* p) {
  return static_cast<uint64_t>(Le32(p)) | (static_cast<uint64_t>(Le32(p + 4)) << 32);
}

inline bool AddOk(uint64_t a, uint64_t b, uint64_t* r) { return !__builtin_add_overflow(a, b, r); }
inline bool MulOk(uint64_t a, uint64_t b, uint64_t* r) { return !__builtin_mul_overflow(a, b, r); }
// [off, off + len) lies inside [0, size).
inline bool Within(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return std::string(fmt);
  return std::string(buf,
                     static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}

inline unsigned long long Ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// Normalised (class-independent) views of the records we read.
struct Phdr {
  uint32_t type;
  uint64_t offset, vaddr, filesz, memsz;
};
struct Shdr {
  uint32_t type, link, info;
  uint64_t offset, size, entsize;
};
struct Sym {
  uint32_t name;
  uint8_t info, other;
  uint16_t shndx;
};

// A table located in the file: byte offset and the number of bytes available from there (to the
// end of its segment or section, and never past the end of the file).
struct Span {
  uint64_t off = 0;
  uint64_t avail = 0;
};

struct VersionNeed {
  std::string version;
  std::string file;
};

class Parser {
 public:
  Parser(const uint8_t* data, uint64_t size) : d_(data), n_(size) {}

  ElfResult Run() {
    if (!ParseElfHeader() || !ParseSectionHeaders() || !ParseProgramHeaders() || !ParseDynamic()) {
      return ElfResult::Err(std::move(error_));
    }
    return ElfResult::Ok(std::move(info_));
  }

 private:
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  void Warn(std::string message) { info_.warnings.push_back(std::move(message)); }

  // ---- records --------------------------------------------------------------------------------
  Phdr ReadPhdr(uint64_t off) const {
    const uint8_t* p = d_ + off;
    if (is64_) return {Le32(p), Le64(p + 8), Le64(p + 16), Le64(p + 32), Le64(p + 40)};
    return {Le32(p), Le32(p + 4), Le32(p + 8), Le32(p + 16), Le32(p + 20)};
  }
  Shdr ReadShdr(uint64_t off) const {
    const uint8_t* p = d_ + off;
    if (is64_) {
      return {Le32(p + 4), Le32(p + 40), Le32(p + 44), Le64(p + 24), Le64(p + 32), Le64(p + 56)};
    }
    return {Le32(p + 4), Le32(p + 24), Le32(p + 28), Le32(p + 16), Le32(p + 20), Le32(p + 36)};
  }
  Sym ReadSym(uint64_t off) const {
    const uint8_t* p = d_ + off;
    if (is64_) return {Le32(p), p[4], p[5], Le16(p + 6)};
    return {Le32(p), p[12], p[13], Le16(p + 14)};
  }
  uint64_t Word(const uint8_t* p) const { return is64_ ? Le64(p) : Le32(p); }

  uint64_t ehdr_size() const { return is64_ ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr); }
  uint64_t phdr_size() const { return is64_ ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr); }
  uint64_t shdr_size() const { return is64_ ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr); }
  uint64_t sym_size() const { return is64_ ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym); }
  uint64_t dyn_size() const { return is64_ ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn); }

  // ---- ELF header -----------------------------------------------------------------------------
  bool ParseElfHeader() {
    if (n_ == 0) return Fail("empty file");
    if (n_ < SELFMAG) {
      if (std::memcmp(d_, ELFMAG, n_) == 0)
        return Fail(Format("truncated ELF header (%llu bytes)", Ull(n_)));
      return Fail("not an ELF file (bad magic)");
    }
    if (std::memcmp(d_, ELFMAG, SELFMAG) != 0) return Fail("not an ELF file (bad magic)");
    if (n_ < EI_NIDENT) return Fail(Format("truncated ELF header (%llu bytes)", Ull(n_)));
    const uint8_t cls = d_[EI_CLASS];
    if (cls != ELFCLASS32 && cls != ELFCLASS64) {
      return Fail(Format("unsupported ELF class (%u)", static_cast<unsigned>(cls)));
    }
    is64_ = cls == ELFCLASS64;
    const uint8_t enc = d_[EI_DATA];
    if (enc == ELFDATA2MSB) return Fail("big-endian ELF not supported");
    if (enc != ELFDATA2LSB) {
      return Fail(Format("unsupported ELF data encoding (%u)", static_cast<unsigned>(enc)));
    }
    if (n_ < ehdr_size()) return Fail(Format("truncated ELF header (%llu bytes)", Ull(n_)));

    info_.elf_class = is64_ ? 64 : 32;
    info_.elf_type = Le16(d_ + 16);
    info_.machine = Le16(d_ + 18);
    info_.machine_name = MachineName(info_.machine);
    if (d_[EI_VERSION] != EV_CURRENT) {
      Warn(Format("unexpected EI_VERSION %u", static_cast<unsigned>(d_[EI_VERSION])));
    }
    if (is64_) {
      phoff_ = Le64(d_ + 32);
      shoff_ = Le64(d_ + 40);
      phentsize_ = Le16(d_ + 54);
      phnum_ = Le16(d_ + 56);
      shentsize_ = Le16(d_ + 58);
      shnum_ = Le16(d_ + 60);
    } else {
      phoff_ = Le32(d_ + 28);
      shoff_ = Le32(d_ + 32);
      phentsize_ = Le16(d_ + 42);
      phnum_ = Le16(d_ + 44);
      shentsize_ = Le16(d_ + 46);
      shnum_ = Le16(d_ + 48);
    }
    return true;
  }

  // ---- section headers (optional; problems are warnings) --------------------------------------
  bool ParseSectionHeaders() {
    if (shoff_ == 0) return true;
    if (shentsize_ < shdr_size()) {
      Warn(Format("section header table ignored: invalid e_shentsize (%llu)", Ull(shentsize_)));
      return true;
    }
    if (!Within(shoff_, shentsize_, n_)) {
      Warn(Format("section header table ignored: out of bounds (e_shoff 0x%llx, file size %llu)",
                  Ull(shoff_), Ull(n_)));
      return true;
    }
    section0_ = ReadShdr(shoff_);
    have_section0_ = true;
    uint64_t shnum = shnum_;
    if (shnum == 0) shnum = section0_.size;  // extended numbering (e_shnum == 0)
    if (shnum == 0) return true;
    uint64_t table_size = 0;
    if (!MulOk(shnum, shentsize_, &table_size) || !Within(shoff_, table_size, n_)) {
      Warn(
          Format("section header table ignored: out of bounds (e_shoff 0x%llx, %llu entries of "
                 "%llu bytes, file size %llu)",
                 Ull(shoff_), Ull(shnum), Ull(shentsize_), Ull(n_)));
      return true;
    }
    info_.has_section_headers = true;
    for (uint64_t i = 0; i < shnum; ++i) {
      const Shdr s = ReadShdr(shoff_ + i * shentsize_);
      if (s.type == SHT_DYNAMIC && !have_dynamic_section_) {
        have_dynamic_section_ = true;
        dynamic_section_ = s;
      }
      if (s.type != SHT_DYNSYM || have_dynsym_section_) continue;
      // .dynsym and the string table it links to (.dynstr).
      if (s.link == 0 || s.link >= shnum) {
        Warn(Format("section header: .dynsym sh_link %u is invalid; section not used", s.link));
        continue;
      }
      const Shdr str = ReadShdr(shoff_ + uint64_t{s.link} * shentsize_);
      if (str.type != SHT_STRTAB) {
        Warn("section header: .dynsym does not link to a string table; section not used");
        continue;
      }
      if (!Within(s.offset, s.size, n_) || !Within(str.offset, str.size, n_)) {
        Warn("section header: .dynsym or .dynstr out of bounds; section not used");
        continue;
      }
      have_dynsym_section_ = true;
      dynsym_section_ = s;
      dynstr_section_ = str;
    }
    return true;
  }

  // ---- program headers ------------------------------------------------------------------------
  bool ParseProgramHeaders() {
    uint64_t phnum = phnum_;
    if (phnum == PN_XNUM) {
      if (!have_section0_) {
        return Fail(
            "program header table out of bounds: e_phnum is PN_XNUM but there is no "
            "section header 0 holding the real count");
      }
      phnum = section0_.info;
    }
    if (phnum == 0) return true;
    if (phentsize_ < phdr_size()) {
      return Fail(Format("invalid e_phentsize (%llu)", Ull(phentsize_)));
    }
    uint64_t table_size = 0;
    if (!MulOk(phnum, phentsize_, &table_size) || !Within(phoff_, table_size, n_)) {
      return Fail(
          Format("program header table out of bounds (e_phoff 0x%llx, %llu entries of %llu "
                 "bytes, file size %llu)",
                 Ull(phoff_), Ull(phnum), Ull(phentsize_), Ull(n_)));
    }
    for (uint64_t i = 0; i < phnum; ++i) {
      const Phdr p = ReadPhdr(phoff_ + i * phentsize_);
      if (p.type != PT_LOAD && p.type != PT_NULL && p.vaddr != 0) {
        segment_addresses_.push_back(p.vaddr);
      }
      switch (p.type) {
        case PT_LOAD:
          loads_.push_back(p);
          break;
        case PT_DYNAMIC:
          if (have_dynamic_) {
            Warn("more than one PT_DYNAMIC; the first is used");
          } else {
            have_dynamic_ = true;
            dynamic_ = p;
          }
          break;
        case PT_INTERP:
          if (info_.interpreter.empty()) ReadInterpreter(p);
          break;
        default:
          break;
      }
    }
    return true;
  }

  void ReadInterpreter(const Phdr& p) {
    if (!Within(p.offset, p.filesz, n_)) {
      Warn("PT_INTERP out of bounds; interpreter unknown");
      return;
    }
    uint64_t len = p.filesz < kMaxInterpreterLength ? p.filesz : kMaxInterpreterLength;
    const void* nul = std::memchr(d_ + p.offset, 0, len);
    if (nul != nullptr) len = static_cast<const uint8_t*>(nul) - (d_ + p.offset);
    info_.interpreter.assign(reinterpret_cast<const char*>(d_ + p.offset), len);
  }

  // Virtual address -> file offset through the PT_LOAD segments. Returns false when no segment
  // holds `addr` in its file image. On success `span->avail` is the number of bytes from `addr` to
  // the end of the segment's file image, cut at the end of the file (0 if the segment starts past
  // it): callers compare the size they need with it.
  bool MapAddress(uint64_t addr, Span* span) const {
    for (const Phdr& p : loads_) {
      if (addr < p.vaddr) continue;
      const uint64_t delta = addr - p.vaddr;
      if (delta >= p.filesz) continue;
      uint64_t off = 0;
      if (!AddOk(p.offset, delta, &off)) continue;
      uint64_t avail = p.filesz - delta;
      if (off >= n_) {
        avail = 0;
      } else if (avail > n_ - off) {
        avail = n_ - off;
      }
      span->off = off;
      span->avail = avail;
      return true;
    }
    return false;
  }

  bool MapTable(uint64_t addr, const char* what, Span* span) {
    if (MapAddress(addr, span)) return true;
    return Fail(Format("%s address 0x%llx is not in any PT_LOAD segment", what, Ull(addr)));
  }

  // ---- strings --------------------------------------------------------------------------------
  // Reads the NUL-terminated string at `index` of the dynamic string table.
  bool GetString(uint64_t index, const char* what, std::string* out) {
    if (index >= strtab_.avail) {
      return Fail(Format("string offset 0x%llx for %s out of bounds (string table size %llu)",
                         Ull(index), what, Ull(strtab_.avail)));
    }
    const uint8_t* begin = d_ + strtab_.off + index;
    const void* nul = std::memchr(begin, 0, strtab_.avail - index);
    if (nul == nullptr) {
      return Fail(
          Format("unterminated string at string table offset 0x%llx for %s", Ull(index), what));
    }
    const size_t len = static_cast<const uint8_t*>(nul) - begin;
    if (len > string_budget_) {
      return Fail("dynamic string data too large (string table entries are aliased excessively)");
    }
    string_budget_ -= len;
    out->assign(reinterpret_cast<const char*>(begin), len);
    return true;
  }

  bool GetPathList(uint64_t index, const char* what, std::vector<std::string>* out) {
    std::string s;
    if (!GetString(index, what, &s)) return false;
    if (s.empty()) return true;
    size_t start = 0;
    while (true) {
      const size_t colon = s.find(':', start);
      out->push_back(
          s.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return true;
  }

  // ---- dynamic section ------------------------------------------------------------------------
  struct DynTags {
    std::vector<uint64_t> needed, rpath, runpath;
    bool has_soname = false, has_strtab = false, has_strsz = false, has_symtab = false;
    bool has_syment = false, has_hash = false, has_gnu_hash = false, has_versym = false;
    bool has_verneed = false, has_verneednum = false;
    uint64_t soname = 0, strtab = 0, strsz = 0, symtab = 0, syment = 0, hash = 0, gnu_hash = 0;
    uint64_t versym = 0, verneed = 0, verneednum = 0;
    std::vector<uint64_t> addresses;  // every address-valued (d_ptr) entry
  };

  static bool IsAddressTag(uint64_t tag) {
    switch (tag) {
      case DT_PLTGOT:
      case DT_HASH:
      case DT_STRTAB:
      case DT_SYMTAB:
      case DT_RELA:
      case DT_INIT:
      case DT_FINI:
      case DT_REL:
      case DT_JMPREL:
      case DT_INIT_ARRAY:
      case DT_FINI_ARRAY:
      case DT_PREINIT_ARRAY:
      case 36 /* DT_RELR */:
      case DT_VERSYM:
      case DT_VERDEF:
      case DT_VERNEED:
        return true;
      default:
        return tag >= DT_ADDRRNGLO && tag <= DT_ADDRRNGHI;  // DT_GNU_HASH, DT_TLSDESC_*, ...
    }
  }

  bool ReadDynamicTags(DynTags* t) {
    if (!Within(dynamic_.offset, dynamic_.filesz, n_)) {
      return Fail(Format("dynamic section out of bounds (offset 0x%llx, size %llu, file size %llu)",
                         Ull(dynamic_.offset), Ull(dynamic_.filesz), Ull(n_)));
    }
    if (have_dynamic_section_ && dynamic_section_.offset != dynamic_.offset) {
      Warn(
          Format("section header: .dynamic at offset 0x%llx but PT_DYNAMIC at 0x%llx; PT_DYNAMIC "
                 "used",
                 Ull(dynamic_section_.offset), Ull(dynamic_.offset)));
    }
    const uint64_t count = dynamic_.filesz / dyn_size();
    const uint64_t word = is64_ ? 8 : 4;
    for (uint64_t i = 0; i < count; ++i) {
      if (i == kMaxDynamicEntries) {
        return Fail(Format("too many dynamic entries (no DT_NULL in the first %llu)",
                           Ull(kMaxDynamicEntries)));
      }
      const uint8_t* p = d_ + dynamic_.offset + i * dyn_size();
      // d_tag is signed; every tag we use is small and positive, so compare the raw word.
      const uint64_t tag = Word(p);
      const uint64_t val = Word(p + word);
      if (tag == DT_NULL) break;
      if (IsAddressTag(tag) && val != 0) t->addresses.push_back(val);
      // Single-valued tags: the last one wins, as in glibc's ld.so.
      switch (tag) {
        case DT_NEEDED:
          t->needed.push_back(val);
          break;
        case DT_RPATH:
          t->rpath.push_back(val);
          break;
        case DT_RUNPATH:
          t->runpath.push_back(val);
          break;
        case DT_SONAME:
          t->has_soname = true;
          t->soname = val;
          break;
        case DT_STRTAB:
          t->has_strtab = true;
          t->strtab = val;
          break;
        case DT_STRSZ:
          t->has_strsz = true;
          t->strsz = val;
          break;
        case DT_SYMTAB:
          t->has_symtab = true;
          t->symtab = val;
          break;
        case DT_SYMENT:
          t->has_syment = true;
          t->syment = val;
          break;
        case DT_HASH:
          t->has_hash = true;
          t->hash = val;
          break;
        case DT_GNU_HASH:
          t->has_gnu_hash = true;
          t->gnu_hash = val;
          break;
        case DT_VERSYM:
          t->has_versym = true;
          t->versym = val;
          break;
        case DT_VERNEED:
          t->has_verneed = true;
          t->verneed = val;
          break;
        case DT_VERNEEDNUM:
          t->has_verneednum = true;
          t->verneednum = val;
          break;
        default:
          break;
      }
    }
    return true;
  }

  bool SetUpStringTable(const DynTags& t) {
    const bool strings_used = !t.needed.empty() || !t.rpath.empty() || !t.runpath.empty() ||
                              t.has_soname || t.has_symtab || t.has_verneed;
    if (!t.has_strtab) {
      if (have_dynsym_section_) {
        Warn("dynamic section has no DT_STRTAB; using the .dynstr section");
        strtab_.off = dynstr_section_.offset;
        strtab_.avail = dynstr_section_.size;
        have_strtab_ = true;
        return true;
      }
      if (strings_used) return Fail("dynamic string table missing (no DT_STRTAB)");
      return true;
    }
    Span span;
    if (!MapTable(t.strtab, "dynamic string table", &span)) return false;
    if (t.has_strsz) {
      if (t.strsz > span.avail) {
        return Fail(
            Format("dynamic string table out of bounds (offset 0x%llx, DT_STRSZ %llu, %llu "
                   "bytes available)",
                   Ull(span.off), Ull(t.strsz), Ull(span.avail)));
      }
      span.avail = t.strsz;
    } else {
      Warn("dynamic section has no DT_STRSZ; string table assumed to extend to the segment end");
    }
    if (have_dynsym_section_ && dynstr_section_.offset != span.off) {
      Warn(
          Format("section header: .dynstr at offset 0x%llx but DT_STRTAB maps to 0x%llx; "
                 "DT_STRTAB used",
                 Ull(dynstr_section_.offset), Ull(span.off)));
    }
    strtab_ = span;
    have_strtab_ = true;
    return true;
  }

  // Number of dynamic symbols from DT_GNU_HASH: one past the highest index reachable from a
  // bucket. When every bucket is empty (an object that exports nothing) the table says nothing
  // about the unhashed symbols below symoffset, and GNU ld then even writes symoffset = 1 while
  // there are undefined symbols: *complete is set to false and *count is only a lower bound.
  bool GnuHashCount(uint64_t addr, uint64_t* count, bool* complete) {
    *complete = false;
    Span h;
    if (!MapTable(addr, "GNU hash table", &h)) return false;
    if (h.avail < 16) return Fail("GNU hash table out of bounds (header)");
    const uint8_t* p = d_ + h.off;
    const uint64_t nbuckets = Le32(p);
    const uint64_t symoffset = Le32(p + 4);
    const uint64_t bloom_size = Le32(p + 8);
    const uint64_t word = is64_ ? 8 : 4;
    uint64_t bloom_bytes = 0, bucket_bytes = 0, buckets_at = 0, chains_at = 0;
    if (!MulOk(bloom_size, word, &bloom_bytes) || !MulOk(nbuckets, 4, &bucket_bytes) ||
        !AddOk(16, bloom_bytes, &buckets_at) || !AddOk(buckets_at, bucket_bytes, &chains_at) ||
        chains_at > h.avail) {
      return Fail(
          Format("GNU hash table out of bounds (%llu buckets, %llu bloom words, %llu bytes "
                 "available)",
                 Ull(nbuckets), Ull(bloom_size), Ull(h.avail)));
    }
    uint64_t max_index = 0;
    for (uint64_t b = 0; b < nbuckets; ++b) {
      const uint64_t v = Le32(p + buckets_at + 4 * b);
      if (v > max_index) max_index = v;
    }
    if (max_index == 0) {  // every bucket empty
      *count = symoffset;
      return true;
    }
    if (max_index < symoffset) {
      return Fail(Format("GNU hash table: bucket value %llu below symoffset %llu", Ull(max_index),
                         Ull(symoffset)));
    }
    // Walk the chain of the highest bucket to the entry with the end bit set. Bounded by the
    // bytes available, so at most avail / 4 iterations.
    uint64_t i = max_index;
    while (true) {
      uint64_t at = 0;
      if (!MulOk(i - symoffset, 4, &at) || !AddOk(at, chains_at, &at) || !Within(at, 4, h.avail)) {
        return Fail("GNU hash table out of bounds (chain runs past the end of its segment)");
      }
      if (Le32(p + at) & 1) break;
      ++i;
      if (i >= kMaxSymbols) break;  // reported by the caller as an absurd count
    }
    *count = i + 1;
    *complete = true;
    return true;
  }

  bool ParseVersionNeeds(uint64_t addr, bool has_num, uint64_t num,
                         std::unordered_map<uint16_t, VersionNeed>* out) {
    Span v;
    if (!MapTable(addr, "version needs table", &v)) return false;
    if (has_num && num == 0) return true;
    uint64_t pos = 0;        // relative to v.off
    uint64_t total_aux = 0;  // all auxiliary entries visited, over all entries
    for (uint64_t i = 0;; ++i) {
      if (i == kMaxVerneedEntries) return Fail("version needs table: too many entries");
      if (!Within(pos, sizeof(Elf64_Verneed), v.avail)) {
        return Fail(Format("version needs table out of bounds (entry %llu at offset 0x%llx)",
                           Ull(i), Ull(v.off + pos)));
      }
      const uint8_t* vn = d_ + v.off + pos;
      const uint64_t cnt = Le16(vn + 2);
      std::string file;
      if (!GetString(Le32(vn + 4), "version needs file name", &file)) return false;
      uint64_t aux = 0;
      if (!AddOk(pos, Le32(vn + 8), &aux)) return Fail("version needs table out of bounds");
      for (uint64_t j = 0; j < cnt; ++j) {
        if (++total_aux > kMaxVerneedEntries) {
          return Fail("version needs table: too many auxiliary entries");
        }
        if (!Within(aux, sizeof(Elf64_Vernaux), v.avail)) {
          return Fail(Format("version needs table out of bounds (auxiliary entry at offset 0x%llx)",
                             Ull(v.off + aux)));
        }
        const uint8_t* va = d_ + v.off + aux;
        VersionNeed need;
        if (!GetString(Le32(va + 8), "version name", &need.version)) return false;
        need.file = file;
        const uint16_t index = Le16(va + 6) & 0x7fff;
        (*out)[index] = std::move(need);
        const uint32_t next = Le32(va + 12);
        if (next == 0) break;
        if (!AddOk(aux, next, &aux)) return Fail("version needs table out of bounds");
      }
      const uint32_t next = Le32(vn + 12);
      if (next == 0 || (has_num && i + 1 >= num)) break;
      if (!AddOk(pos, next, &pos)) return Fail("version needs table out of bounds");
    }
    return true;
  }

  bool ParseDynamic() {
    if (!have_dynamic_) {
      if (have_dynamic_section_) {
        Warn(
            "section headers have a .dynamic section but there is no PT_DYNAMIC; treated as "
            "static");
      }
      return true;
    }
    info_.is_dynamic = true;
    DynTags t;
    if (!ReadDynamicTags(&t) || !SetUpStringTable(t)) return false;
    // Budget for copied string bytes: a valid object copies each name about once; a hostile one
    // could point thousands of entries at one huge string.
    string_budget_ = 4 * strtab_.avail + (uint64_t{16} << 20);

    for (uint64_t off : t.needed) {
      std::string s;
      if (!GetString(off, "DT_NEEDED", &s)) return false;
      info_.needed.push_back(std::move(s));
    }
    if (t.has_soname && !GetString(t.soname, "DT_SONAME", &info_.soname)) return false;
    for (uint64_t off : t.rpath) {
      if (!GetPathList(off, "DT_RPATH", &info_.rpath)) return false;
    }
    for (uint64_t off : t.runpath) {
      if (!GetPathList(off, "DT_RUNPATH", &info_.runpath)) return false;
    }

    // ---- the dynamic symbol table: where, and how many entries --------------------------------
    const uint64_t symsize = sym_size();
    if (t.has_syment && t.syment != symsize) {
      Warn(Format("DT_SYMENT %llu differs from the ELF symbol size %llu; the latter is used",
                  Ull(t.syment), Ull(symsize)));
    }
    Span symtab;
    uint64_t count = 0;
    const uint64_t section_count = have_dynsym_section_ ? dynsym_section_.size / symsize : 0;
    if (t.has_symtab) {
      if (!MapTable(t.symtab, "dynamic symbol table", &symtab)) return false;
      bool exact = false;
      uint64_t lower_bound = 0;
      if (t.has_hash) {
        Span h;
        if (!MapTable(t.hash, "hash table", &h)) return false;
        if (h.avail < 8) return Fail("hash table out of bounds (header)");
        count = Le32(d_ + h.off + 4);  // nchain == number of symbols
        info_.symbol_count_source = "DT_HASH";
        exact = true;
      } else if (t.has_gnu_hash) {
        if (!GnuHashCount(t.gnu_hash, &count, &exact)) return false;
        if (exact) {
          info_.symbol_count_source = "DT_GNU_HASH";
        } else {
          lower_bound = count;
        }
      }
      if (!exact && have_dynsym_section_ && dynsym_section_.offset == symtab.off &&
          section_count >= lower_bound) {
        count = section_count;
        info_.symbol_count_source = "section headers";
        exact = true;
      }
      if (!exact) {
        // Linkers put another dynamic table right after .dynsym (.dynstr for GNU ld and gold,
        // .gnu.version or .gnu.hash for lld): the nearest address above DT_SYMTAB that the
        // dynamic section or a program header names, within the same segment, bounds the table.
        uint64_t bound = std::numeric_limits<uint64_t>::max();
        auto consider = [&](uint64_t a) {
          if (a > t.symtab && a - t.symtab < bound) bound = a - t.symtab;
        };
        for (uint64_t a : t.addresses) consider(a);
        for (uint64_t a : segment_addresses_) consider(a);
        consider(dynamic_.vaddr);
        if (bound > symtab.avail || bound / symsize < lower_bound) {
          return Fail(
              "cannot determine the dynamic symbol count (no DT_HASH, no usable "
              "DT_GNU_HASH, no section headers, and no table follows DT_SYMTAB in its "
              "segment)");
        }
        count = bound / symsize;
        info_.symbol_count_source = "distance to the next dynamic table";
        Warn(
            Format("dynamic symbol count %llu taken from the distance between DT_SYMTAB and the "
                   "next dynamic table (no DT_HASH, no usable DT_GNU_HASH, no .dynsym section)",
                   Ull(count)));
      }
      if (have_dynsym_section_) {
        if (dynsym_section_.offset != symtab.off) {
          Warn(
              Format("section header: .dynsym at offset 0x%llx but DT_SYMTAB maps to 0x%llx; "
                     "DT_SYMTAB used",
                     Ull(dynsym_section_.offset), Ull(symtab.off)));
        } else if (section_count != count) {
          Warn(
              Format("section header: .dynsym has %llu symbols but %s says %llu; the latter is "
                     "used",
                     Ull(section_count), info_.symbol_count_source.c_str(), Ull(count)));
        }
      }
    } else if (have_dynsym_section_) {
      Warn("dynamic section has no DT_SYMTAB; using the .dynsym section");
      symtab.off = dynsym_section_.offset;
      symtab.avail = dynsym_section_.size;
      count = section_count;
      info_.symbol_count_source = "section headers";
    } else {
      if (info_.elf_type == ET_DYN || info_.elf_type == ET_EXEC) {
        Warn("dynamic section has no DT_SYMTAB: no dynamic symbols");
      }
      return true;
    }
    if (count > kMaxSymbols) {
      return Fail(Format("absurd dynamic symbol count (%llu)", Ull(count)));
    }
    uint64_t symtab_bytes = 0;
    if (!MulOk(count, symsize, &symtab_bytes) || symtab_bytes > symtab.avail) {
      return Fail(
          Format("dynamic symbol table out of bounds (%llu symbols at offset 0x%llx, %llu "
                 "bytes available)",
                 Ull(count), Ull(symtab.off), Ull(symtab.avail)));
    }
    if (count == 0) return true;
    if (!have_strtab_) return Fail("dynamic string table missing (no DT_STRTAB)");

    // ---- versions ------------------------------------------------------------------------------
    Span versym;
    bool have_versym = false;
    std::unordered_map<uint16_t, VersionNeed> needs;
    if (t.has_versym) {
      if (!MapTable(t.versym, "symbol version table", &versym)) return false;
      if (count * 2 > versym.avail) {
        return Fail(
            Format("symbol version table out of bounds (%llu entries at offset 0x%llx, "
                   "%llu bytes available)",
                   Ull(count), Ull(versym.off), Ull(versym.avail)));
      }
      have_versym = true;
    }
    if (t.has_verneed && !ParseVersionNeeds(t.verneed, t.has_verneednum, t.verneednum, &needs)) {
      return false;
    }

    // ---- symbols -------------------------------------------------------------------------------
    std::unordered_set<std::string> seen_defined;
    for (uint64_t i = 1; i < count; ++i) {
      const Sym s = ReadSym(symtab.off + i * symsize);
      const unsigned bind = ELF64_ST_BIND(s.info);
      const unsigned type = ELF64_ST_TYPE(s.info);
      if (s.shndx == SHN_UNDEF) {
        if (bind != STB_GLOBAL && bind != STB_WEAK) continue;
        ImportedSymbol imp;
        if (!GetString(s.name, "symbol name", &imp.name)) return false;
        if (imp.name.empty()) continue;
        imp.weak = bind == STB_WEAK;
        if (have_versym) {
          const uint16_t index = Le16(d_ + versym.off + 2 * i) & 0x7fff;
          if (index >= 2) {
            auto it = needs.find(index);
            if (it != needs.end() && !it->second.version.empty()) {
              imp.version = it->second.version;
              imp.version_file = it->second.file;
            }
          }
        }
        info_.undefined.push_back(std::move(imp));
        continue;
      }
      if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
      const unsigned vis = ELF64_ST_VISIBILITY(s.other);
      if (vis != STV_DEFAULT && vis != STV_PROTECTED) continue;
      if (type == STT_SECTION || type == STT_FILE) continue;
      std::string name;
      if (!GetString(s.name, "symbol name", &name)) return false;
      if (name.empty()) continue;
      if (seen_defined.insert(name).second) info_.defined.push_back(std::move(name));
    }
    return true;
  }

  const uint8_t* d_;
  uint64_t n_;
  bool is64_ = false;
  ElfInfo info_;
  std::string error_;

  uint64_t phoff_ = 0, shoff_ = 0, phentsize_ = 0, phnum_ = 0, shentsize_ = 0, shnum_ = 0;
  bool have_section0_ = false;
  Shdr section0_{};
  bool have_dynamic_section_ = false;
  Shdr dynamic_section_{};
  bool have_dynsym_section_ = false;
  Shdr dynsym_section_{}, dynstr_section_{};

  std::vector<Phdr> loads_;
  std::vector<uint64_t> segment_addresses_;  // p_vaddr of the non-PT_LOAD program headers
  bool have_dynamic_ = false;
  Phdr dynamic_{};

  bool have_strtab_ = false;
  Span strtab_;
  uint64_t string_budget_ = 0;
};

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r (glibc with _GNU_SOURCE, which g++ and clang++ define) returns the text.
  const char* s = strerror_r(err, buf, sizeof buf);
  return s != nullptr ? std::string(s) : Format("errno %d", err);
}

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { ::close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

class Unmapper {
 public:
  Unmapper(void* p, size_t n) : p_(p), n_(n) {}
  ~Unmapper() { ::munmap(p_, n_); }
  Unmapper(const Unmapper&) = delete;
  Unmapper& operator=(const Unmapper&) = delete;

 private:
  void* p_;
  size_t n_;
};

// The messages below fit std::string's small buffer, so returning them cannot allocate.
ElfResult OutOfMemory() noexcept { return ElfResult::Err("out of memory"); }
ElfResult InternalError() noexcept { return ElfResult::Err("internal error"); }

}  // namespace

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case EM_NONE:
      return "none";
    case EM_386:
      return "x86";
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_ARM:
      return "ARM";
    case EM_PPC:
      return "PowerPC";
    case EM_PPC64:
      return "PowerPC64";
    case EM_S390:
      return "S/390";
    case EM_MIPS:
      return "MIPS";
    case EM_SPARC:
      return "SPARC";
    case EM_SPARCV9:
      return "SPARC V9";
    case EM_IA_64:
      return "IA-64";
    case EM_RISCV:
      return "RISC-V";
    case 258:
      return "LoongArch";  // EM_LOONGARCH (not in every <elf.h>)
    case 190:
      return "NVIDIA CUDA";  // EM_CUDA
    default:
      return Format("unknown (%u)", static_cast<unsigned>(machine));
  }
}

ElfResult ParseElf(const uint8_t* data, size_t size) noexcept {
  try {
    if (size == 0) return ElfResult::Err("empty file");
    if (data == nullptr) return ElfResult::Err("no data (null pointer)");
    return Parser(data, size).Run();
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  } catch (...) {
    return InternalError();
  }
}

ElfResult ReadElf(const std::string& path) noexcept {
  try {
    if (path.empty()) return ElfResult::Err("cannot open: empty path");
    // O_NONBLOCK: opening a FIFO must not wait for a writer. It has no effect on regular files.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      const int err = errno;
      if (err == EISDIR) return ElfResult::Err("path is a directory");
      return ElfResult::Err("cannot open: " + ErrnoText(err));
    }
    FdCloser closer(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0) return ElfResult::Err("cannot stat: " + ErrnoText(errno));
    if (S_ISDIR(st.st_mode)) return ElfResult::Err("path is a directory");
    if (!S_ISREG(st.st_mode)) {
      return ElfResult::Err(std::string("not a regular file (") + FileTypeName(st.st_mode) + ")");
    }
    if (st.st_size <= 0) return ElfResult::Err("empty file");
    if (static_cast<uint64_t>(st.st_size) > std::numeric_limits<size_t>::max()) {
      return ElfResult::Err("file too large");
    }
    const size_t size = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return ElfResult::Err("cannot mmap: " + ErrnoText(errno));
    Unmapper unmapper(map, size);
    // Only a few pages are read; do not let the kernel read ahead around them.
    ::madvise(map, size, MADV_RANDOM);
    return ParseElf(static_cast<const uint8_t*>(map), size);
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  } catch (...) {
    return InternalError();
  }
}

}  // namespace elf
}  // namespace cudyn
