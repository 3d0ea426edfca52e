// cudyn ELF reader: what a Linux ELF object imports from, and exports to, the dynamic linker.
//
// Contract
// --------
// * Input: any byte string / any path. Little-endian ELF32 and ELF64 (any e_machine) are parsed;
//   everything else is rejected with an ElfError whose message says why. Big-endian ELF is
//   rejected with "big-endian ELF not supported".
// * Source of truth is what the dynamic loader uses: the program headers. PT_DYNAMIC is read
//   from its file offset; every address it holds (DT_STRTAB, DT_SYMTAB, DT_HASH, DT_GNU_HASH,
//   DT_VERSYM, DT_VERNEED) is turned into a file offset through the PT_LOAD segments. Section
//   headers are optional: stripped binaries and binaries whose section header table was removed
//   give the same result. When section headers are present, .dynsym/.dynstr (found by section
//   type, not name) serve as a fallback (no hash table, no DT_SYMTAB) and as a cross-check;
//   disagreements become `warnings`, never errors. A section header table that is out of bounds
//   is ignored with a warning (has_section_headers = false).
// * A file without PT_DYNAMIC (static executable, relocatable object, core file) is not an
//   error: is_dynamic = false and every list is empty. A static-pie executable has PT_DYNAMIC,
//   so it is is_dynamic = true (with no DT_NEEDED and no undefined symbols).
// * Never partial: when anything that contributes to `needed`, `soname`, `rpath`, `runpath`,
//   `undefined` or `defined` is out of bounds or malformed, the whole call fails. A successful
//   result is therefore complete; a compatibility verdict never rests on a silently truncated
//   import list.
// * Safety: every offset, size and count is bounds-checked with overflow-safe arithmetic; string
//   reads never leave their string table; loops are bounded (dynamic entries <= 65536, dynamic
//   symbols <= 4194304, version-needs entries <= 65536, total copied string bytes bounded by the
//   string table size). The functions are noexcept: they never throw (std::bad_alloc and
//   everything else is caught and reported as an error), never abort, never exit, and never
//   read outside [data, data + size).
// * ReadElf(path): open(O_RDONLY|O_NONBLOCK|O_CLOEXEC) + fstat + mmap(PROT_READ, MAP_PRIVATE),
//   ParseElf, munmap. Only the pages holding the headers and dynamic tables are touched, so the
//   cost does not grow with file size. Non-regular files (directory, FIFO, device, socket) are
//   refused without reading or blocking. Messages do not repeat the path; callers prefix it.
//   Caveat inherent to mmap: if another process truncates the file while it is being parsed,
//   the kernel delivers SIGBUS.
// * Thread-safe: no global state.
//
// Error messages (stable prefixes; details may follow after ": " or in parentheses):
//   "empty file", "not an ELF file (bad magic)", "truncated ELF header (N bytes)",
//   "unsupported ELF class (N)", "big-endian ELF not supported",
//   "unsupported ELF data encoding (N)", "invalid e_phentsize (N)",
//   "program header table out of bounds", "dynamic section out of bounds",
//   "too many dynamic entries", "<table> address 0x... is not in any PT_LOAD segment",
//   "dynamic string table ...", "dynamic string data too large ...", "dynamic symbol table ...",
//   "absurd dynamic symbol count (N)", "cannot determine the dynamic symbol count ...",
//   "hash table ...", "GNU hash table ...", "symbol version table ...", "version needs table ...",
//   "string offset ... out of bounds", "unterminated string ...", "path is a directory",
//   "not a regular file (fifo|character device|block device|socket|unknown type)",
//   "cannot open: <strerror>", "cannot stat: <strerror>", "cannot mmap: <strerror>",
//   "file too large", "out of memory", "internal error".
#ifndef CUDYN_TOOLS_ELF_ELF_READER_H_
#define CUDYN_TOOLS_ELF_ELF_READER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudyn {
namespace elf {

// One undefined (imported) dynamic symbol.
struct ImportedSymbol {
  std::string name;
  // The required version (e.g. "GLIBC_2.2.5") from DT_VERSYM + DT_VERNEED; empty when the object
  // has no version information or the symbol is unversioned.
  std::string version;
  // The DT_NEEDED library the version requirement belongs to (e.g. "libc.so.6"); empty when
  // `version` is empty. This is the only place ELF records which library a symbol comes from.
  std::string version_file;
  bool weak = false;  // STB_WEAK: the object loads even when no library defines it

  bool operator==(const ImportedSymbol& o) const {
    return name == o.name && version == o.version && version_file == o.version_file &&
           weak == o.weak;
  }
};

struct ElfInfo {
  int elf_class = 0;                 // 32 or 64
  uint16_t elf_type = 0;             // e_type: 1 ET_REL, 2 ET_EXEC, 3 ET_DYN, 4 ET_CORE
  uint16_t machine = 0;              // e_machine, e.g. 62 (EM_X86_64), 183 (EM_AARCH64)
  std::string machine_name;          // "x86-64", "AArch64", "x86", ... or "unknown (N)"
  bool has_section_headers = false;  // a usable section header table is present
  bool is_dynamic = false;           // has PT_DYNAMIC
  std::string interpreter;           // PT_INTERP, e.g. "/lib64/ld-linux-x86-64.so.2"; empty if none
  std::vector<std::string> needed;   // DT_NEEDED, in file order
  std::string soname;                // DT_SONAME
  std::vector<std::string> rpath;    // DT_RPATH, split at ':'
  std::vector<std::string> runpath;  // DT_RUNPATH, split at ':'
  // Undefined dynamic symbols (st_shndx == SHN_UNDEF, binding GLOBAL or WEAK), in symbol-table
  // order. Names are unique in practice; duplicates in the file are kept.
  std::vector<ImportedSymbol> undefined;
  // Exported dynamic symbols: defined, binding GLOBAL/WEAK/GNU_UNIQUE, visibility DEFAULT or
  // PROTECTED, not STT_SECTION/STT_FILE. Unique names, in first-occurrence order (a name defined
  // at several versions, e.g. memcpy@GLIBC_2.2.5 and memcpy@@GLIBC_2.14, appears once). As with
  // `nm -D`, this includes the SHN_ABS marker symbols GNU ld emits for version definitions
  // (e.g. "GLIBC_2.2.5" in libc.so.6).
  std::vector<std::string> defined;
  // Where the dynamic symbol count came from, in order of preference: "DT_HASH", "DT_GNU_HASH"
  // (only when some bucket is non-empty: an object that exports nothing has an empty GNU hash
  // table, which does not count its undefined symbols), "section headers" (.dynsym), or
  // "distance to the next dynamic table" (DT_SYMTAB up to the nearest address named by another
  // d_ptr entry or program header; a warning is added). "" when there is no symbol table.
  std::string symbol_count_source;
  // Non-fatal findings: section headers disagree with the dynamic section, section header
  // table ignored, fallbacks taken, ...
  std::vector<std::string> warnings;
};

struct ElfError {
  std::string message;
};

// Either an ElfInfo or an ElfError.
class ElfResult {
 public:
  static ElfResult Ok(ElfInfo info) {
    ElfResult r;
    r.info_.emplace(std::move(info));
    return r;
  }
  static ElfResult Err(std::string message) {
    ElfResult r;
    r.error_.message = std::move(message);
    return r;
  }

  bool ok() const noexcept { return info_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  // Precondition: ok().
  const ElfInfo& value() const& { return *info_; }
  ElfInfo& value() & { return *info_; }
  ElfInfo&& value() && { return std::move(*info_); }
  // Precondition: !ok().
  const ElfError& error() const noexcept { return error_; }

 private:
  std::optional<ElfInfo> info_;
  ElfError error_;
};

// Parses the ELF image [data, data + size). Pure: no I/O, no global state. `data` may be null
// when size == 0. Never reads outside the range, never throws.
ElfResult ParseElf(const uint8_t* data, size_t size) noexcept;

// Maps `path` read-only and parses it (see the contract above).
ElfResult ReadElf(const std::string& path) noexcept;

// "x86-64" for 62, "AArch64" for 183, ...; "unknown (N)" otherwise.
std::string MachineName(uint16_t machine);

}  // namespace elf
}  // namespace cudyn

#endif  // CUDYN_TOOLS_ELF_ELF_READER_H_
