// Tests for the cudyn ELF reader (tools/elf/elf_reader.h).
//
// Inputs are real ELF files: tools/elf/testdata (built by Bazel: a fake driver library with versioned cu* exports, an application importing known
// symbols from it and from libc, 32-bit builds of both, static and static-pie executables), the
// test binary itself, system binaries, and copies of these modified at test time (stripped with
// strip/objcopy, section headers removed, truncated, corrupted). A small in-test ELF writer builds
// minimal ELF32/ELF64 dynamic images for the layouts no compiler produces on purpose (no hash
// table, no section headers, PN_XNUM, malformed tables).
//
// Expected values come from the sources in testdata/ and, where binutils is installed, from
// `nm -D` and `readelf -d` run on the very same files.
#include "tests/util/file_bytes.h"
#include "tools/elf/elf_reader.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cudyn {
namespace elf {
namespace {

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------------------------------------
// Environment helpers

std::string TestDataPath(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/tools/elf/testdata/" + name;
  }
  return "tools/elf/testdata/" + name;
}

std::string TmpDir() {
  static const std::string dir = [] {
    if (const char* t = std::getenv("TEST_TMPDIR")) return std::string(t);
    char tmpl[] = "/tmp/elf_reader_test.XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d != nullptr ? d : "/tmp");
  }();
  return dir;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Bytes ReadBytes(const std::string& path) { return cudyn::testing::ReadFileBytes<Bytes>(path); }

void WriteBytes(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

// Runs a shell command; returns its exit status and stdout.
int RunCommand(const std::string& command, std::string* out) {
  out->clear();
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool HaveTool(const std::string& tool) {
  std::string out;
  return RunCommand("command -v " + tool + " >/dev/null 2>&1", &out) == 0;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Views of an ElfInfo that are easy to compare

// "name@version" (or "name"), plus " (weak)" for weak imports.
std::string ImportKey(const ImportedSymbol& s) {
  std::string k = s.name;
  if (!s.version.empty()) k += "@" + s.version;
  if (s.weak) k += " (weak)";
  return k;
}

std::set<std::string> ImportKeys(const ElfInfo& info) {
  std::set<std::string> keys;
  for (const ImportedSymbol& s : info.undefined) keys.insert(ImportKey(s));
  return keys;
}

std::set<std::string> ImportKeysWithPrefix(const ElfInfo& info, const std::string& prefix) {
  std::set<std::string> keys;
  for (const ImportedSymbol& s : info.undefined) {
    if (s.name.compare(0, prefix.size(), prefix) == 0) keys.insert(ImportKey(s));
  }
  return keys;
}

const ImportedSymbol* FindImport(const ElfInfo& info, const std::string& name) {
  for (const ImportedSymbol& s : info.undefined) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::set<std::string> AsSet(const std::vector<std::string>& v) {
  return std::set<std::string>(v.begin(), v.end());
}

// Everything ParseElf derives from the dynamic section must be identical.
void ExpectSameDynamicInfo(const ElfInfo& expected, const ElfInfo& actual,
                           const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(expected.elf_class, actual.elf_class);
  EXPECT_EQ(expected.elf_type, actual.elf_type);
  EXPECT_EQ(expected.machine, actual.machine);
  EXPECT_EQ(expected.is_dynamic, actual.is_dynamic);
  EXPECT_EQ(expected.interpreter, actual.interpreter);
  EXPECT_EQ(expected.needed, actual.needed);
  EXPECT_EQ(expected.soname, actual.soname);
  EXPECT_EQ(expected.rpath, actual.rpath);
  EXPECT_EQ(expected.runpath, actual.runpath);
  EXPECT_EQ(expected.undefined, actual.undefined);
  EXPECT_EQ(expected.defined, actual.defined);
}

// Parses a copy of [data, data + size) in a heap block of exactly that size, so that
// AddressSanitizer sees any read past the end.
ElfResult ParseExact(const uint8_t* data, size_t size) {
  if (size == 0) return ParseElf(nullptr, 0);
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size]);
  std::memcpy(copy.get(), data, size);
  return ParseElf(copy.get(), size);
}
ElfResult ParseExact(const Bytes& b) { return ParseExact(b.data(), b.size()); }

::testing::AssertionResult ParsesOk(const ElfResult& r) {
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "error: " << r.error().message;
}

::testing::AssertionResult FailsWith(const ElfResult& r, const std::string& message_prefix) {
  if (r.ok())
    return ::testing::AssertionFailure() << "parsed OK, expected \"" << message_prefix << "\"";
  if (r.error().message.compare(0, message_prefix.size(), message_prefix) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "error \"" << r.error().message
                                       << "\" does not start with \"" << message_prefix << "\"";
}

// ---------------------------------------------------------------------------------------------
// binutils as the reference

// Undefined dynamic symbols as ImportKey()s, from `nm -D --undefined-only`.
std::set<std::string> NmImports(const std::string& path) {
  std::string out;
  EXPECT_EQ(RunCommand("nm -D --undefined-only " + Quote(path) + " 2>/dev/null", &out), 0) << path;
  std::set<std::string> keys;
  for (const std::string& line : Lines(out)) {
    std::istringstream in(line);
    std::string type, name;
    if (!(in >> type >> name)) continue;
    keys.insert(name + ((type == "w" || type == "v") ? " (weak)" : ""));
  }
  return keys;
}

// Exported dynamic symbol names (without @version), from `nm -D --defined-only`: global (upper
// case), unique (u) and indirect (i) symbols; local ones (lower case) are not exported.
std::set<std::string> NmExports(const std::string& path) {
  std::string out;
  EXPECT_EQ(RunCommand("nm -D --defined-only " + Quote(path) + " 2>/dev/null", &out), 0) << path;
  std::set<std::string> names;
  for (const std::string& line : Lines(out)) {
    std::istringstream in(line);
    std::string value, type, name;
    if (!(in >> value >> type >> name)) continue;
    if (!(std::isupper(static_cast<unsigned char>(type[0])) || type == "u" || type == "i"))
      continue;
    names.insert(name.substr(0, name.find('@')));
  }
  return names;
}

struct ReadelfDynamic {
  std::vector<std::string> needed, rpath, runpath;
  std::string soname;
};

std::vector<std::string> SplitColons(const std::string& s) {
  std::vector<std::string> parts;
  if (s.empty()) return parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(
        s.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return parts;
}

ReadelfDynamic Readelf(const std::string& path) {
  std::string out;
  EXPECT_EQ(RunCommand("readelf -dW " + Quote(path) + " 2>/dev/null", &out), 0) << path;
  ReadelfDynamic r;
  for (const std::string& line : Lines(out)) {
    const size_t open = line.find('[');
    const size_t close = line.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    const std::string value = line.substr(open + 1, close - open - 1);
    if (line.find("(NEEDED)") != std::string::npos) r.needed.push_back(value);
    if (line.find("(SONAME)") != std::string::npos) r.soname = value;
    if (line.find("(RPATH)") != std::string::npos) {
      for (auto& p : SplitColons(value)) r.rpath.push_back(p);
    }
    if (line.find("(RUNPATH)") != std::string::npos) {
      for (auto& p : SplitColons(value)) r.runpath.push_back(p);
    }
  }
  return r;
}

void ExpectMatchesBinutils(const std::string& path, const ElfInfo& info) {
  SCOPED_TRACE(path);
  if (!HaveTool("nm") || !HaveTool("readelf")) {
    std::printf("note: nm/readelf not installed; binutils comparison of %s skipped\n",
                path.c_str());
    return;
  }
  EXPECT_EQ(NmImports(path), ImportKeys(info));
  EXPECT_EQ(NmExports(path), AsSet(info.defined));
  const ReadelfDynamic r = Readelf(path);
  EXPECT_EQ(r.needed, info.needed);
  EXPECT_EQ(r.soname, info.soname);
  EXPECT_EQ(r.rpath, info.rpath);
  EXPECT_EQ(r.runpath, info.runpath);
}

// ---------------------------------------------------------------------------------------------
// Byte-level edits of ELF images (little-endian)

uint64_t GetLe(const Bytes& b, size_t off, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint64_t>(b.at(off + i)) << (8 * i);
  return v;
}
void PutLe(Bytes* b, size_t off, size_t width, uint64_t v) {
  for (size_t i = 0; i < width; ++i) b->at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}

struct EhdrFields {  // offsets and widths of the e_* fields for one class
  size_t phoff, shoff, word, phentsize, phnum, shentsize, shnum, shstrndx;
};
EhdrFields Fields(const Bytes& b) {
  if (b.at(EI_CLASS) == ELFCLASS64) return {32, 40, 8, 54, 56, 58, 60, 62};
  return {28, 32, 4, 42, 44, 46, 48, 50};
}

// What `sstrip`-like tools do first: forget the section header table.
Bytes WithoutSectionHeaders(Bytes b) {
  const EhdrFields f = Fields(b);
  PutLe(&b, f.shoff, f.word, 0);
  PutLe(&b, f.shnum, 2, 0);
  PutLe(&b, f.shstrndx, 2, 0);
  return b;
}

struct PhdrView {
  uint32_t type;
  uint64_t offset, vaddr, filesz;
  size_t at;  // file offset of the program header itself
};
std::vector<PhdrView> ProgramHeaders(const Bytes& b) {
  const EhdrFields f = Fields(b);
  const bool is64 = b.at(EI_CLASS) == ELFCLASS64;
  const uint64_t phoff = GetLe(b, f.phoff, f.word);
  const uint64_t entsize = GetLe(b, f.phentsize, 2);
  const uint64_t num = GetLe(b, f.phnum, 2);
  std::vector<PhdrView> v;
  for (uint64_t i = 0; i < num; ++i) {
    const size_t at = phoff + i * entsize;
    if (is64) {
      v.push_back({static_cast<uint32_t>(GetLe(b, at, 4)), GetLe(b, at + 8, 8),
                   GetLe(b, at + 16, 8), GetLe(b, at + 32, 8), at});
    } else {
      v.push_back({static_cast<uint32_t>(GetLe(b, at, 4)), GetLe(b, at + 4, 4), GetLe(b, at + 8, 4),
                   GetLe(b, at + 16, 4), at});
    }
  }
  return v;
}

uint64_t EndOfLoadSegments(const Bytes& b) {
  uint64_t end = 0;
  for (const PhdrView& p : ProgramHeaders(b)) {
    if (p.type == PT_LOAD) end = std::max(end, p.offset + p.filesz);
  }
  return end;
}

uint64_t EndOfProgramHeaders(const Bytes& b) {
  const EhdrFields f = Fields(b);
  return GetLe(b, f.phoff, f.word) + GetLe(b, f.phentsize, 2) * GetLe(b, f.phnum, 2);
}

// ---------------------------------------------------------------------------------------------
// A minimal ELF writer for synthetic dynamic images (ELF32 or ELF64, little-endian).
//
// Layout: ELF header, 2 program headers (PT_LOAD of everything up to the end of the dynamic
// section at vaddr 0x10000 + offset, PT_DYNAMIC), .dynstr, .dynsym, hash table, .gnu.version,
// .gnu.version_r, .dynamic, then optionally .shstrtab and the section header table.

struct SynthSymbol {
  SynthSymbol(const char* n, bool d = false, bool w = false, const char* v = "")
      : name(n), defined(d), weak(w), version(v) {}
  std::string name;
  bool defined;
  bool weak;
  std::string version;  // undefined symbols: required version, from needed[0]
};

enum class SynthHash { kSysv, kGnuEmpty, kNone };

struct SynthOptions {
  int elf_class = 64;
  uint16_t machine = EM_X86_64;
  std::vector<std::string> needed{"libcuda.so.1"};
  std::string soname;
  std::string runpath;
  std::vector<SynthSymbol> symbols{{"cuInit"}, {"cuMemAdvise"}};
  SynthHash hash = SynthHash::kSysv;
  bool section_headers = true;
  bool versions = false;
  bool omit_strtab = false;        // leave DT_STRTAB out of the dynamic section
  bool omit_symtab = false;        // leave DT_SYMTAB out
  size_t extra_debug_entries = 0;  // DT_DEBUG entries before DT_NULL
};

constexpr uint64_t kSynthBase = 0x10000;

struct SynthElf {
  Bytes bytes;
  bool is64 = true;
  uint64_t dynamic_off = 0, dynstr_off = 0, dynsym_off = 0, hash_off = 0, verneed_off = 0;
  uint64_t shoff = 0;
  std::map<int64_t, uint64_t> dyn_entry;  // tag -> file offset of its (first) entry
  size_t word() const { return is64 ? 8 : 4; }
  void SetDynValue(int64_t tag, uint64_t value) {
    PutLe(&bytes, dyn_entry.at(tag) + word(), word(), value);
  }
};

uint32_t SysvHash(const std::string& name) {
  uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    const uint32_t g = h & 0xf0000000u;
    if (g != 0) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

SynthElf BuildElf(const SynthOptions& o) {
  SynthElf e;
  e.is64 = o.elf_class == 64;
  const size_t w = e.is64 ? 8 : 4;
  const size_t ehsize = e.is64 ? 64 : 52, phentsize = e.is64 ? 56 : 32;
  const size_t symsize = e.is64 ? 24 : 16, dynsize = 2 * w, shentsize = e.is64 ? 64 : 40;
  auto align = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };

  // String table.
  std::string strtab(1, '\0');
  std::map<std::string, uint32_t> str;
  auto add = [&](const std::string& s) {
    if (s.empty() || str.count(s)) return;
    str[s] = static_cast<uint32_t>(strtab.size());
    strtab += s;
    strtab += '\0';
  };
  for (auto& n : o.needed) add(n);
  add(o.soname);
  add(o.runpath);
  for (auto& s : o.symbols) add(s.name);
  std::vector<std::string> versions;  // index 2, 3, ...
  if (o.versions) {
    for (auto& s : o.symbols) {
      if (!s.defined && !s.version.empty() &&
          std::find(versions.begin(), versions.end(), s.version) == versions.end()) {
        versions.push_back(s.version);
        add(s.version);
      }
    }
  }

  const size_t nsyms = o.symbols.size() + 1;
  uint64_t off = ehsize + 2 * phentsize;
  off = align(off, 8);
  e.dynstr_off = off;
  off += strtab.size();
  off = align(off, 8);
  e.dynsym_off = off;
  off += nsyms * symsize;
  off = align(off, 8);
  e.hash_off = off;
  if (o.hash == SynthHash::kSysv) off += 4 * (2 + 1 + nsyms);
  if (o.hash == SynthHash::kGnuEmpty) off += 16 + w + 4;
  off = align(off, 8);
  const uint64_t versym_off = off;
  if (o.versions) off += 2 * nsyms;
  off = align(off, 8);
  e.verneed_off = off;
  if (o.versions && !versions.empty()) off += 16 + 16 * versions.size();
  off = align(off, 8);
  e.dynamic_off = off;

  // Dynamic entries.
  std::vector<std::pair<int64_t, uint64_t>> dyn;
  for (auto& n : o.needed) dyn.push_back({DT_NEEDED, str[n]});
  if (!o.soname.empty()) dyn.push_back({DT_SONAME, str[o.soname]});
  if (!o.runpath.empty()) dyn.push_back({DT_RUNPATH, str[o.runpath]});
  if (o.hash == SynthHash::kSysv) dyn.push_back({DT_HASH, kSynthBase + e.hash_off});
  if (o.hash == SynthHash::kGnuEmpty) dyn.push_back({DT_GNU_HASH, kSynthBase + e.hash_off});
  if (!o.omit_strtab) dyn.push_back({DT_STRTAB, kSynthBase + e.dynstr_off});
  if (!o.omit_symtab) dyn.push_back({DT_SYMTAB, kSynthBase + e.dynsym_off});
  dyn.push_back({DT_STRSZ, strtab.size()});
  dyn.push_back({DT_SYMENT, symsize});
  if (o.versions) {
    dyn.push_back({DT_VERSYM, kSynthBase + versym_off});
    if (!versions.empty()) {
      dyn.push_back({DT_VERNEED, kSynthBase + e.verneed_off});
      dyn.push_back({DT_VERNEEDNUM, 1});
    }
  }
  for (size_t i = 0; i < o.extra_debug_entries; ++i) dyn.push_back({DT_DEBUG, 0});
  dyn.push_back({DT_NULL, 0});
  off += dyn.size() * dynsize;
  const uint64_t load_end = off;

  const std::string shstrtab = std::string("\0.dynstr\0.dynsym\0.dynamic\0.shstrtab\0", 36);
  uint64_t shstrtab_off = 0;
  if (o.section_headers) {
    shstrtab_off = off;
    off += shstrtab.size();
    off = align(off, 8);
    e.shoff = off;
    off += 5 * shentsize;
  }
  e.bytes.assign(off, 0);
  Bytes& b = e.bytes;

  // ELF header.
  std::memcpy(b.data(), ELFMAG, SELFMAG);
  b[EI_CLASS] = e.is64 ? ELFCLASS64 : ELFCLASS32;
  b[EI_DATA] = ELFDATA2LSB;
  b[EI_VERSION] = EV_CURRENT;
  PutLe(&b, 16, 2, ET_DYN);
  PutLe(&b, 18, 2, o.machine);
  PutLe(&b, 20, 4, EV_CURRENT);
  const EhdrFields f = Fields(b);
  PutLe(&b, f.phoff, w, ehsize);
  PutLe(&b, f.shoff, w, e.shoff);
  PutLe(&b, f.phentsize - 2, 2, ehsize);  // e_ehsize
  PutLe(&b, f.phentsize, 2, phentsize);
  PutLe(&b, f.phnum, 2, 2);
  PutLe(&b, f.shentsize, 2, o.section_headers ? shentsize : 0);
  PutLe(&b, f.shnum, 2, o.section_headers ? 5 : 0);
  PutLe(&b, f.shstrndx, 2, o.section_headers ? 4 : 0);

  // Program headers.
  auto phdr = [&](size_t i, uint32_t type, uint64_t offset, uint64_t size) {
    const size_t at = ehsize + i * phentsize;
    PutLe(&b, at, 4, type);
    if (e.is64) {
      PutLe(&b, at + 4, 4, PF_R | PF_W);
      PutLe(&b, at + 8, 8, offset);
      PutLe(&b, at + 16, 8, kSynthBase + offset);
      PutLe(&b, at + 24, 8, kSynthBase + offset);
      PutLe(&b, at + 32, 8, size);
      PutLe(&b, at + 40, 8, size);
      PutLe(&b, at + 48, 8, 8);
    } else {
      PutLe(&b, at + 4, 4, offset);
      PutLe(&b, at + 8, 4, kSynthBase + offset);
      PutLe(&b, at + 12, 4, kSynthBase + offset);
      PutLe(&b, at + 16, 4, size);
      PutLe(&b, at + 20, 4, size);
      PutLe(&b, at + 24, 4, PF_R | PF_W);
      PutLe(&b, at + 28, 4, 4);
    }
  };
  phdr(0, PT_LOAD, 0, load_end);
  phdr(1, PT_DYNAMIC, e.dynamic_off, dyn.size() * dynsize);

  std::memcpy(b.data() + e.dynstr_off, strtab.data(), strtab.size());

  // Symbols (index 0 stays the null symbol).
  for (size_t i = 0; i < o.symbols.size(); ++i) {
    const SynthSymbol& s = o.symbols[i];
    const size_t at = e.dynsym_off + (i + 1) * symsize;
    const uint8_t info = static_cast<uint8_t>(((s.weak ? STB_WEAK : STB_GLOBAL) << 4) | STT_FUNC);
    const uint16_t shndx = s.defined ? 1 : SHN_UNDEF;
    const uint64_t value = s.defined ? kSynthBase + 0x100 + 16 * i : 0;
    PutLe(&b, at, 4, str[s.name]);
    if (e.is64) {
      b[at + 4] = info;
      PutLe(&b, at + 6, 2, shndx);
      PutLe(&b, at + 8, 8, value);
    } else {
      PutLe(&b, at + 4, 4, value);
      b[at + 12] = info;
      PutLe(&b, at + 14, 2, shndx);
    }
  }

  // Hash table: one bucket, one chain through all symbols.
  if (o.hash == SynthHash::kSysv) {
    PutLe(&b, e.hash_off, 4, 1);
    PutLe(&b, e.hash_off + 4, 4, nsyms);
    PutLe(&b, e.hash_off + 8, 4, nsyms - 1);
    for (size_t i = 1; i < nsyms; ++i) PutLe(&b, e.hash_off + 12 + 4 * i, 4, i - 1);
  } else if (o.hash == SynthHash::kGnuEmpty) {
    // What GNU ld writes for an object that exports nothing: symoffset 1, one empty bucket.
    PutLe(&b, e.hash_off, 4, 1);
    PutLe(&b, e.hash_off + 4, 4, 1);
    PutLe(&b, e.hash_off + 8, 4, 1);
  }

  // Versions.
  if (o.versions) {
    for (size_t i = 0; i < o.symbols.size(); ++i) {
      const SynthSymbol& s = o.symbols[i];
      uint16_t index = 1;
      if (!s.defined && !s.version.empty()) {
        index = static_cast<uint16_t>(
            2 + (std::find(versions.begin(), versions.end(), s.version) - versions.begin()));
      }
      PutLe(&b, versym_off + 2 * (i + 1), 2, index);
    }
    if (!versions.empty()) {
      const uint64_t vn = e.verneed_off;
      PutLe(&b, vn, 2, 1);                    // vn_version
      PutLe(&b, vn + 2, 2, versions.size());  // vn_cnt
      PutLe(&b, vn + 4, 4, str[o.needed.at(0)]);
      PutLe(&b, vn + 8, 4, 16);  // vn_aux
      PutLe(&b, vn + 12, 4, 0);  // vn_next
      for (size_t j = 0; j < versions.size(); ++j) {
        const uint64_t va = vn + 16 + 16 * j;
        PutLe(&b, va, 4, SysvHash(versions[j]));
        PutLe(&b, va + 6, 2, 2 + j);  // vna_other
        PutLe(&b, va + 8, 4, str[versions[j]]);
        PutLe(&b, va + 12, 4, j + 1 < versions.size() ? 16 : 0);
      }
    }
  }

  // Dynamic section.
  for (size_t i = 0; i < dyn.size(); ++i) {
    const uint64_t at = e.dynamic_off + i * dynsize;
    PutLe(&b, at, w, static_cast<uint64_t>(dyn[i].first));
    PutLe(&b, at + w, w, dyn[i].second);
    e.dyn_entry.emplace(dyn[i].first, at);
  }

  // Section headers: null, .dynstr, .dynsym, .dynamic, .shstrtab.
  if (o.section_headers) {
    std::memcpy(b.data() + shstrtab_off, shstrtab.data(), shstrtab.size());
    auto shdr = [&](size_t i, uint32_t name, uint32_t type, uint64_t offset, uint64_t size,
                    uint32_t link, uint32_t info, uint64_t entsize) {
      const uint64_t at = e.shoff + i * shentsize;
      PutLe(&b, at, 4, name);
      PutLe(&b, at + 4, 4, type);
      const uint64_t addr = type == SHT_STRTAB && i == 4 ? 0 : kSynthBase + offset;
      if (e.is64) {
        PutLe(&b, at + 8, 8, SHF_ALLOC);
        PutLe(&b, at + 16, 8, addr);
        PutLe(&b, at + 24, 8, offset);
        PutLe(&b, at + 32, 8, size);
        PutLe(&b, at + 40, 4, link);
        PutLe(&b, at + 44, 4, info);
        PutLe(&b, at + 48, 8, 8);
        PutLe(&b, at + 56, 8, entsize);
      } else {
        PutLe(&b, at + 8, 4, SHF_ALLOC);
        PutLe(&b, at + 12, 4, addr);
        PutLe(&b, at + 16, 4, offset);
        PutLe(&b, at + 20, 4, size);
        PutLe(&b, at + 24, 4, link);
        PutLe(&b, at + 28, 4, info);
        PutLe(&b, at + 32, 4, 4);
        PutLe(&b, at + 36, 4, entsize);
      }
    };
    shdr(1, 1, SHT_STRTAB, e.dynstr_off, strtab.size(), 0, 0, 0);
    shdr(2, 9, SHT_DYNSYM, e.dynsym_off, nsyms * symsize, 1, 1, symsize);
    shdr(3, 17, SHT_DYNAMIC, e.dynamic_off, dyn.size() * dynsize, 1, 0, dynsize);
    shdr(4, 26, SHT_STRTAB, shstrtab_off, shstrtab.size(), 0, 0, 0);
  }
  return e;
}

// Offset of field `field` (byte offset within an Elf64/Elf32 Shdr) of section `index`.
uint64_t ShdrField(const SynthElf& e, size_t index, size_t field64, size_t field32) {
  return e.shoff + index * (e.is64 ? 64 : 40) + (e.is64 ? field64 : field32);
}

// ---------------------------------------------------------------------------------------------
// Test data

struct RealFile {
  std::string path;
  Bytes bytes;
  ElfInfo info;
};

const RealFile& Data(const std::string& name) {
  static std::map<std::string, RealFile>* cache = new std::map<std::string, RealFile>;
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  RealFile f;
  f.path = TestDataPath(name);
  f.bytes = ReadBytes(f.path);
  ElfResult r = ReadElf(f.path);
  if (r.ok()) f.info = r.value();
  return cache->emplace(name, std::move(f)).first->second;
}

// Asserts that a test-data file exists and parses; use as ASSERT_NO_FATAL_FAILURE(Need("x")).
void Need(const std::string& name) {
  const std::string path = TestDataPath(name);
  ASSERT_TRUE(FileExists(path)) << "missing test data " << path
                                << " (run under Bazel)";
  ElfResult r = ReadElf(path);
  ASSERT_TRUE(r.ok()) << path << ": " << r.error().message;
}

const char* const kApp = "elftest_app";
const char* const kLib = "libelftest_cuda.so";
const char* const kLibSysv = "libelftest_cuda_sysv.so";
const char* const kApp32 = "elftest_app32";
const char* const kLib32 = "libelftest_cuda32.so";
const char* const kStatic = "static_app";
const char* const kStaticPie = "static_pie_app";

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
constexpr uint16_t kHostMachine = 0;
#endif

// =============================================================================================
// Real binaries with known contents

TEST(RealElf, AppImportsExactlyTheDriverSymbolsItsSourceCalls) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  const ElfInfo& info = Data(kApp).info;
  EXPECT_EQ(info.elf_class, 64);
  EXPECT_EQ(info.machine, kHostMachine);
  EXPECT_TRUE(info.is_dynamic);
  EXPECT_FALSE(info.interpreter.empty());
  EXPECT_EQ(ImportKeysWithPrefix(info, "cu"),
            (std::set<std::string>{"cuDriverGetVersion@ELFTEST_1.0", "cuInit@ELFTEST_1.0",
                                   "cuMemAdvise_v2@ELFTEST_1.0", "cuGetProcAddress_v2 (weak)"}));
  for (const char* name : {"cuInit", "cuDriverGetVersion", "cuMemAdvise_v2"}) {
    const ImportedSymbol* s = FindImport(info, name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->version_file, "libelftest_cuda.so.1") << name;
    EXPECT_FALSE(s->weak) << name;
  }
  EXPECT_EQ(FindImport(info, "cuGetProcAddress_v2")->version_file, "");
  EXPECT_EQ(FindImport(info, "cuMemAdvise"), nullptr);  // defined by the library, never called
  for (const char* name : {"getenv", "getpid"}) {
    const ImportedSymbol* s = FindImport(info, name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->version.compare(0, 6, "GLIBC_"), 0) << name << " version " << s->version;
    EXPECT_EQ(s->version_file, "libc.so.6") << name;
  }
  // DT_NEEDED records the soname, not the file name the linker was given.
  const std::set<std::string> needed = AsSet(info.needed);
  EXPECT_EQ(needed.count("libelftest_cuda.so.1"), 1u);
  EXPECT_EQ(needed.count("libc.so.6"), 1u);
  for (const std::string& n : info.needed) EXPECT_EQ(n.find('/'), std::string::npos) << n;
  const std::set<std::string> runpath = AsSet(info.runpath);
  EXPECT_EQ(runpath.count("/opt/elftest/lib"), 1u);
  EXPECT_EQ(runpath.count("$ORIGIN/../lib"), 1u);
  EXPECT_TRUE(info.warnings.empty()) << info.warnings.front();
}

TEST(RealElf, AppMatchesBinutils) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  ExpectMatchesBinutils(Data(kApp).path, Data(kApp).info);
}

TEST(RealElf, LibraryExportsExactlyItsVersionScript) {
  ASSERT_NO_FATAL_FAILURE(Need(kLib));
  const ElfInfo& info = Data(kLib).info;
  EXPECT_EQ(info.soname, "libelftest_cuda.so.1");
  EXPECT_EQ(info.interpreter, "");
  EXPECT_EQ(AsSet(info.rpath).count("/opt/elftest/old"), 1u);  // --disable-new-dtags: DT_RPATH
  // The version script exports these five; GNU ld adds the version-definition marker symbol.
  std::set<std::string> exports = AsSet(info.defined);
  exports.erase("ELFTEST_1.0");
  EXPECT_EQ(exports, (std::set<std::string>{"cuInit", "cuDriverGetVersion", "cuMemAdvise",
                                            "cuMemAdvise_v2", "cudyn_elftest_counter"}));
  EXPECT_EQ(info.symbol_count_source, "DT_GNU_HASH");
  EXPECT_TRUE(ImportKeysWithPrefix(info, "cu").empty());
  ExpectMatchesBinutils(Data(kLib).path, info);
}

TEST(RealElf, SysvHashLibraryGivesTheSameSymbols) {
  ASSERT_NO_FATAL_FAILURE(Need(kLib));
  ASSERT_NO_FATAL_FAILURE(Need(kLibSysv));
  const ElfInfo& gnu = Data(kLib).info;
  const ElfInfo& sysv = Data(kLibSysv).info;
  EXPECT_EQ(sysv.symbol_count_source, "DT_HASH");
  EXPECT_EQ(AsSet(sysv.defined), AsSet(gnu.defined));
  EXPECT_EQ(ImportKeys(sysv), ImportKeys(gnu));
  EXPECT_EQ(sysv.soname, gnu.soname);
  ExpectMatchesBinutils(Data(kLibSysv).path, sysv);
}

TEST(RealElf, Elf32AppAndLibrary) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp32));
  ASSERT_NO_FATAL_FAILURE(Need(kLib32));
  const ElfInfo& app = Data(kApp32).info;
  EXPECT_EQ(app.elf_class, 32);
  EXPECT_EQ(app.machine, EM_386);
  EXPECT_EQ(app.machine_name, "x86");
  EXPECT_EQ(ImportKeysWithPrefix(app, "cu"),
            (std::set<std::string>{"cuDriverGetVersion@ELFTEST_1.0", "cuInit@ELFTEST_1.0",
                                   "cuMemAdvise_v2@ELFTEST_1.0", "cuGetProcAddress_v2 (weak)"}));
  ASSERT_NE(FindImport(app, "getpid"), nullptr);
  EXPECT_EQ(FindImport(app, "getpid")->version_file, "libc.so.6");
  EXPECT_EQ(AsSet(app.needed).count("libelftest_cuda.so.1"), 1u);
  ExpectMatchesBinutils(Data(kApp32).path, app);

  const ElfInfo& lib = Data(kLib32).info;
  EXPECT_EQ(lib.elf_class, 32);
  EXPECT_EQ(lib.soname, "libelftest_cuda.so.1");
  std::set<std::string> exports = AsSet(lib.defined);
  exports.erase("ELFTEST_1.0");
  EXPECT_EQ(exports, (std::set<std::string>{"cuInit", "cuDriverGetVersion", "cuMemAdvise",
                                            "cuMemAdvise_v2", "cudyn_elftest_counter"}));
  ExpectMatchesBinutils(Data(kLib32).path, lib);
}

TEST(RealElf, StaticExecutableIsNotDynamicAndNotAnError) {
  ASSERT_NO_FATAL_FAILURE(Need(kStatic));
  const ElfInfo& info = Data(kStatic).info;
  EXPECT_FALSE(info.is_dynamic);
  EXPECT_EQ(info.elf_type, ET_EXEC);
  EXPECT_TRUE(info.needed.empty());
  EXPECT_TRUE(info.undefined.empty());
  EXPECT_TRUE(info.defined.empty());
  EXPECT_EQ(info.interpreter, "");
}

TEST(RealElf, StaticPieHasADynamicSectionButNoImports) {
  ASSERT_NO_FATAL_FAILURE(Need(kStaticPie));
  const ElfInfo& info = Data(kStaticPie).info;
  EXPECT_TRUE(info.is_dynamic);
  EXPECT_EQ(info.elf_type, ET_DYN);
  EXPECT_TRUE(info.needed.empty());
  EXPECT_TRUE(info.undefined.empty());
  EXPECT_EQ(info.interpreter, "");
  ExpectMatchesBinutils(Data(kStaticPie).path, info);
  // Without section headers the count comes from the table layout; still nothing imported.
  ElfResult r = ParseExact(WithoutSectionHeaders(Data(kStaticPie).bytes));
  ASSERT_TRUE(ParsesOk(r));
  ExpectSameDynamicInfo(info, r.value(), "static-pie without section headers");
}

TEST(RealElf, TheTestBinaryItself) {
  // Resolve the link: in the nm/readelf child processes /proc/self/exe would be nm/readelf.
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  ElfResult r = ReadElf("/proc/self/exe");
  ASSERT_TRUE(ParsesOk(r));
  const ElfInfo& info = r.value();
  EXPECT_EQ(info.machine, kHostMachine);
  EXPECT_TRUE(info.is_dynamic);
  // This file calls mkfifo (Errors.FileSystemObjects), so the test binary imports it from libc.
  // (Not one of the calls in elf_reader.cc: Bazel may link the reader as a shared library; and
  // not mmap and the like: sanitizer runtimes intercept those, leaving the import unversioned.)
  const ImportedSymbol* mkfifo = FindImport(info, "mkfifo");
  ASSERT_NE(mkfifo, nullptr);
  EXPECT_EQ(mkfifo->version.compare(0, 6, "GLIBC_"), 0) << mkfifo->version;
  EXPECT_EQ(mkfifo->version_file, "libc.so.6");
  ExpectMatchesBinutils(self, info);
  ElfResult by_path = ReadElf(self);
  ASSERT_TRUE(ParsesOk(by_path));
  ExpectSameDynamicInfo(info, by_path.value(), self);
}

TEST(RealElf, SystemBinaries) {
  int checked = 0;
  for (const char* path : {"/bin/true", "/bin/ls", "/usr/bin/env"}) {
    if (!FileExists(path)) continue;
    ElfResult r = ReadElf(path);
    ASSERT_TRUE(ParsesOk(r)) << path;
    EXPECT_TRUE(r.value().is_dynamic) << path;
    ExpectMatchesBinutils(path, r.value());
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no system binaries found";
}

// =============================================================================================
// The same binaries, stripped, without section headers, truncated, huge

TEST(Stripped, StripAndObjcopyStripAllGiveTheSameResult) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  ASSERT_NO_FATAL_FAILURE(Need(kLib));
  const bool have_strip = HaveTool("strip"), have_objcopy = HaveTool("objcopy");
  if (!have_strip && !have_objcopy) GTEST_SKIP() << "neither strip nor objcopy is installed";
  for (const char* name : {kApp, kLib}) {
    const RealFile& f = Data(name);
    std::vector<std::pair<std::string, std::string>> commands;
    const std::string base = TmpDir() + "/" + name;
    if (have_strip)
      commands.push_back(
          {base + ".strip", "strip -o " + Quote(base + ".strip") + " " + Quote(f.path)});
    if (have_objcopy) {
      commands.push_back({base + ".objcopy",
                          "objcopy --strip-all " + Quote(f.path) + " " + Quote(base + ".objcopy")});
    }
    for (const auto& c : commands) {
      std::string out;
      ASSERT_EQ(RunCommand(c.second, &out), 0) << c.second;
      ASSERT_NE(ReadBytes(c.first), f.bytes) << "stripping changed nothing: " << c.first;
      ElfResult r = ReadElf(c.first);
      ASSERT_TRUE(ParsesOk(r)) << c.first;
      ExpectSameDynamicInfo(f.info, r.value(), c.first);
    }
  }
}

TEST(NoSectionHeaders, SameImportsWithoutSectionHeaders) {
  for (const char* name : {kApp, kLib, kLibSysv, kApp32, kLib32}) {
    ASSERT_NO_FATAL_FAILURE(Need(name));
    const RealFile& f = Data(name);
    ElfResult r = ParseExact(WithoutSectionHeaders(f.bytes));
    ASSERT_TRUE(ParsesOk(r)) << name;
    EXPECT_FALSE(r.value().has_section_headers) << name;
    EXPECT_TRUE(f.info.has_section_headers) << name;
    ExpectSameDynamicInfo(f.info, r.value(), name);
  }
}

TEST(NoSectionHeaders, SectionHeaderTableCutOffTheFile) {
  // Like sstrip: no section headers, and nothing after the last PT_LOAD's file image.
  for (const char* name : {kApp, kLib, kApp32}) {
    ASSERT_NO_FATAL_FAILURE(Need(name));
    const RealFile& f = Data(name);
    Bytes b = WithoutSectionHeaders(f.bytes);
    const uint64_t end = EndOfLoadSegments(b);
    ASSERT_GT(end, 0u);
    ASSERT_LT(end, b.size()) << name;
    b.resize(end);
    ElfResult r = ParseExact(b);
    ASSERT_TRUE(ParsesOk(r)) << name;
    ExpectSameDynamicInfo(f.info, r.value(), name);
  }
}

TEST(NoSectionHeaders, SectionHeaderTableOutOfBoundsIsAWarning) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  const RealFile& f = Data(kApp);
  Bytes b = f.bytes;
  const EhdrFields fl = Fields(b);
  PutLe(&b, fl.shoff, fl.word, b.size() + 4096);
  ElfResult r = ParseExact(b);
  ASSERT_TRUE(ParsesOk(r));
  EXPECT_FALSE(r.value().has_section_headers);
  ASSERT_FALSE(r.value().warnings.empty());
  EXPECT_NE(r.value().warnings[0].find("section header table ignored"), std::string::npos)
      << r.value().warnings[0];
  ExpectSameDynamicInfo(f.info, r.value(), "e_shoff past the end");
}

TEST(Truncated, EveryPrefixIsAnErrorOrTheCompleteResult) {
  // A prefix never yields a partial import list: it is either rejected or parsed completely.
  for (const char* name : {kApp, kLib, kApp32}) {
    ASSERT_NO_FATAL_FAILURE(Need(name));
    const RealFile& f = Data(name);
    const Bytes& b = f.bytes;
    const size_t ehsize = b[EI_CLASS] == ELFCLASS64 ? 64 : 52;
    const uint64_t phdr_end = EndOfProgramHeaders(b);
    size_t first_ok = 0;
    for (size_t len = 0; len < b.size(); ++len) {
      ElfResult r = ParseExact(b.data(), len);
      if (len == 0) {
        EXPECT_TRUE(FailsWith(r, "empty file"));
      } else if (len < ehsize) {
        EXPECT_TRUE(FailsWith(r, "truncated ELF header (" + std::to_string(len) + " bytes)"))
            << len;
      } else if (len < phdr_end) {
        EXPECT_TRUE(FailsWith(r, "program header table out of bounds")) << len;
      }
      if (r.ok()) {
        if (first_ok == 0) first_ok = len;
        ExpectSameDynamicInfo(f.info, r.value(),
                              std::string(name) + " prefix " + std::to_string(len));
        if (::testing::Test::HasFailure()) return;  // one report is enough
      } else {
        EXPECT_FALSE(r.error().message.empty());
        // Once the dynamic tables are complete, truncation only costs the section headers.
        EXPECT_EQ(first_ok, 0u) << name << ": prefix " << first_ok << " parsed but prefix " << len
                                << " failed: " << r.error().message;
      }
    }
    EXPECT_GT(first_ok, phdr_end) << name;
    EXPECT_LE(first_ok, EndOfLoadSegments(b)) << name;
  }
}

TEST(LargeFile, SparseOneGibFileWithARealElfAtTheStart) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  const RealFile& f = Data(kApp);
  const std::string path = TmpDir() + "/large.elf";
  WriteBytes(path, f.bytes);
  ASSERT_EQ(::truncate(path.c_str(), off_t{1} << 30), 0) << std::strerror(errno);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  ASSERT_EQ(st.st_size, off_t{1} << 30);
  ElfResult r = ReadElf(path);
  ASSERT_TRUE(ParsesOk(r));
  EXPECT_TRUE(r.value().has_section_headers);
  ExpectSameDynamicInfo(f.info, r.value(), "1 GiB sparse file");
  ::unlink(path.c_str());
}

// =============================================================================================
// Malformed input: clear errors

TEST(Errors, EmptyInput) {
  EXPECT_TRUE(FailsWith(ParseElf(nullptr, 0), "empty file"));
  const std::string path = TmpDir() + "/empty";
  WriteBytes(path, {});
  EXPECT_TRUE(FailsWith(ReadElf(path), "empty file"));
}

TEST(Errors, TextFile) {
  const std::string path = TmpDir() + "/text.txt";
  const std::string text = "#!/bin/sh\necho this is not an ELF file\n";
  WriteBytes(path, Bytes(text.begin(), text.end()));
  EXPECT_TRUE(FailsWith(ReadElf(path), "not an ELF file (bad magic)"));
  const uint8_t two[] = {'M', 'Z'};
  EXPECT_TRUE(FailsWith(ParseExact(two, 2), "not an ELF file (bad magic)"));
}

TEST(Errors, TruncatedHeader) {
  const uint8_t magic[] = {0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT};
  EXPECT_TRUE(FailsWith(ParseExact(magic, 3), "truncated ELF header (3 bytes)"));
  EXPECT_TRUE(FailsWith(ParseExact(magic, 7), "truncated ELF header (7 bytes)"));
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  EXPECT_TRUE(
      FailsWith(ParseExact(Data(kApp).bytes.data(), 40), "truncated ELF header (40 bytes)"));
  ASSERT_NO_FATAL_FAILURE(Need(kApp32));
  EXPECT_TRUE(
      FailsWith(ParseExact(Data(kApp32).bytes.data(), 51), "truncated ELF header (51 bytes)"));
}

TEST(Errors, WrongClassAndByteOrder) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  Bytes b = Data(kApp).bytes;
  b[EI_CLASS] = 3;
  EXPECT_TRUE(FailsWith(ParseExact(b), "unsupported ELF class (3)"));
  b[EI_CLASS] = ELFCLASSNONE;
  EXPECT_TRUE(FailsWith(ParseExact(b), "unsupported ELF class (0)"));
  b = Data(kApp).bytes;
  b[EI_DATA] = ELFDATA2MSB;
  EXPECT_TRUE(FailsWith(ParseExact(b), "big-endian ELF not supported"));
  b[EI_DATA] = ELFDATANONE;
  EXPECT_TRUE(FailsWith(ParseExact(b), "unsupported ELF data encoding (0)"));
  // A 64-bit image labelled ELF32 is read with the ELF32 layout. Here e_phnum lands on the zero
  // high bytes of e_shoff: no program headers, so nothing dynamic, and nothing made up.
  b = Data(kApp).bytes;
  b[EI_CLASS] = ELFCLASS32;
  ElfResult r = ParseExact(b);
  if (r.ok()) {
    EXPECT_FALSE(r.value().is_dynamic);
    EXPECT_TRUE(r.value().undefined.empty());
    EXPECT_TRUE(r.value().needed.empty());
  }
}

TEST(Errors, AbsurdProgramHeaderTable) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  const Bytes& orig = Data(kApp).bytes;
  const EhdrFields f = Fields(orig);
  Bytes b = orig;
  PutLe(&b, f.phnum, 2, 0xfffe);
  EXPECT_TRUE(FailsWith(ParseExact(b), "program header table out of bounds"));
  b = orig;
  PutLe(&b, f.phoff, f.word, uint64_t{0xfffffffffffffff0u});
  EXPECT_TRUE(FailsWith(ParseExact(b), "program header table out of bounds"));
  b = orig;
  PutLe(&b, f.phoff, f.word, orig.size() - 8);
  EXPECT_TRUE(FailsWith(ParseExact(b), "program header table out of bounds"));
  b = orig;
  PutLe(&b, f.phentsize, 2, 8);
  EXPECT_TRUE(FailsWith(ParseExact(b), "invalid e_phentsize (8)"));
}

TEST(Errors, DynamicSectionOutOfBounds) {
  ASSERT_NO_FATAL_FAILURE(Need(kApp));
  Bytes b = Data(kApp).bytes;
  bool patched = false;
  for (const PhdrView& p : ProgramHeaders(b)) {
    if (p.type != PT_DYNAMIC) continue;
    PutLe(&b, p.at + 8, 8, b.size() - 16);  // p_offset: the table would run past the end
    patched = true;
  }
  ASSERT_TRUE(patched);
  EXPECT_TRUE(FailsWith(ParseExact(b), "dynamic section out of bounds"));
}

TEST(Errors, FileSystemObjects) {
  EXPECT_TRUE(FailsWith(ReadElf(TmpDir()), "path is a directory"));
  EXPECT_TRUE(
      FailsWith(ReadElf(TmpDir() + "/does-not-exist"), "cannot open: No such file or directory"));
  EXPECT_TRUE(FailsWith(ReadElf(""), "cannot open"));
  if (FileExists("/dev/null")) {
    EXPECT_TRUE(FailsWith(ReadElf("/dev/null"), "not a regular file (character device)"));
  }
  // A FIFO without a writer: must be refused at once, not block in open().
  const std::string fifo = TmpDir() + "/fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto result = std::async(std::launch::async, [&] { return ReadElf(fifo); });
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "ReadElf blocked on a FIFO";
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // unblock it
    result.wait();
    if (fd >= 0) ::close(fd);
  } else {
    EXPECT_TRUE(FailsWith(result.get(), "not a regular file (fifo)"));
  }
  ::unlink(fifo.c_str());
}

TEST(Errors, NoThrowNoCrashOnRandomCorruption) {
  // A quick in-process cousin of elf_fuzzer: flip bytes of real files; every result must be a
  // clean success or error (AddressSanitizer/UBSan builds check the memory accesses).
  std::mt19937 rng(12345);
  for (const char* name : {kApp, kLib, kApp32}) {
    ASSERT_NO_FATAL_FAILURE(Need(name));
    const Bytes& orig = Data(name).bytes;
    // Half of the flips in the first 4 KiB (headers, .dynsym, .dynstr, versions), half anywhere
    // (.dynamic and the section headers are further on).
    const size_t head = std::min<size_t>(orig.size(), 4096);
    for (int iter = 0; iter < 3000; ++iter) {
      Bytes b = orig;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) {
        b[rng() % (iter % 2 == 0 ? head : b.size())] = static_cast<uint8_t>(rng());
      }
      ElfResult r = ParseExact(b);
      if (!r.ok()) {
        EXPECT_FALSE(r.error().message.empty());
      }
    }
  }
}

// =============================================================================================
// Synthetic images: ELF32 and ELF64, every way of finding the symbol count

struct Layout {
  int elf_class;
  SynthHash hash;
  bool section_headers;
  const char* expected_source;
};

class SyntheticLayout : public ::testing::TestWithParam<Layout> {};

TEST_P(SyntheticLayout, NeededAndImportsOfAMinimalCudaApp) {
  const Layout l = GetParam();
  SynthOptions o;
  o.elf_class = l.elf_class;
  o.machine = l.elf_class == 32 ? EM_386 : EM_X86_64;
  o.hash = l.hash;
  o.section_headers = l.section_headers;
  o.runpath = "/usr/local/cuda/lib64:$ORIGIN";
  o.symbols = {
      {"cuInit"}, {"cuMemAdvise"}, {"cuGetProcAddress_v2", false, true}, {"cudynExported", true}};
  const SynthElf e = BuildElf(o);
  ElfResult r = ParseExact(e.bytes);
  ASSERT_TRUE(ParsesOk(r));
  const ElfInfo& info = r.value();
  EXPECT_EQ(info.elf_class, l.elf_class);
  EXPECT_EQ(info.machine_name, l.elf_class == 32 ? "x86" : "x86-64");
  EXPECT_EQ(info.has_section_headers, l.section_headers);
  EXPECT_TRUE(info.is_dynamic);
  EXPECT_EQ(info.needed, std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(info.runpath, (std::vector<std::string>{"/usr/local/cuda/lib64", "$ORIGIN"}));
  EXPECT_EQ(ImportKeys(info),
            (std::set<std::string>{"cuInit", "cuMemAdvise", "cuGetProcAddress_v2 (weak)"}));
  EXPECT_EQ(info.defined, std::vector<std::string>{"cudynExported"});
  EXPECT_EQ(info.symbol_count_source, l.expected_source);
}

INSTANTIATE_TEST_SUITE_P(
    AllLayouts, SyntheticLayout,
    ::testing::Values(Layout{32, SynthHash::kSysv, true, "DT_HASH"},
                      Layout{32, SynthHash::kSysv, false, "DT_HASH"},
                      Layout{32, SynthHash::kGnuEmpty, true, "section headers"},
                      Layout{32, SynthHash::kGnuEmpty, false, "distance to the next dynamic table"},
                      Layout{32, SynthHash::kNone, true, "section headers"},
                      Layout{32, SynthHash::kNone, false, "distance to the next dynamic table"},
                      Layout{64, SynthHash::kSysv, true, "DT_HASH"},
                      Layout{64, SynthHash::kSysv, false, "DT_HASH"},
                      Layout{64, SynthHash::kGnuEmpty, true, "section headers"},
                      Layout{64, SynthHash::kGnuEmpty, false, "distance to the next dynamic table"},
                      Layout{64, SynthHash::kNone, true, "section headers"},
                      Layout{64, SynthHash::kNone, false, "distance to the next dynamic table"}),
    [](const ::testing::TestParamInfo<Layout>& p) {
      const char* hash = p.param.hash == SynthHash::kSysv       ? "Sysv"
                         : p.param.hash == SynthHash::kGnuEmpty ? "GnuEmpty"
                                                                : "NoHash";
      return "Elf" + std::to_string(p.param.elf_class) + hash +
             (p.param.section_headers ? "WithSections" : "NoSections");
    });

TEST(Synthetic, Elf32VersionedImports) {
  SynthOptions o;
  o.elf_class = 32;
  o.machine = EM_386;
  o.needed = {"libc.so.6", "libcuda.so.1"};
  o.versions = true;
  o.symbols = {{"puts", false, false, "GLIBC_2.0"},
               {"cuInit"},
               {"memcpy", false, false, "GLIBC_2.0"},
               {"__cxa_finalize", false, true, "GLIBC_2.1.3"}};
  ElfResult r = ParseExact(BuildElf(o).bytes);
  ASSERT_TRUE(ParsesOk(r));
  const ElfInfo& info = r.value();
  EXPECT_EQ(ImportKeys(info), (std::set<std::string>{"puts@GLIBC_2.0", "cuInit", "memcpy@GLIBC_2.0",
                                                     "__cxa_finalize@GLIBC_2.1.3 (weak)"}));
  EXPECT_EQ(FindImport(info, "puts")->version_file, "libc.so.6");
  EXPECT_EQ(FindImport(info, "cuInit")->version_file, "");
}

TEST(Synthetic, Elf32FromSectionHeadersWhenTheDynamicSectionLacksTables) {
  SynthOptions o;
  o.elf_class = 32;
  o.omit_strtab = true;
  o.omit_symtab = true;
  ElfResult r = ParseExact(BuildElf(o).bytes);
  ASSERT_TRUE(ParsesOk(r));
  EXPECT_EQ(r.value().needed, std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(ImportKeys(r.value()), (std::set<std::string>{"cuInit", "cuMemAdvise"}));
  EXPECT_EQ(r.value().symbol_count_source, "section headers");
  EXPECT_GE(r.value().warnings.size(), 2u);

  o.section_headers = false;  // nothing to fall back on
  EXPECT_TRUE(FailsWith(ParseExact(BuildElf(o).bytes), "dynamic string table missing"));
}

TEST(Synthetic, SectionHeadersThatDisagreeAreAWarning) {
  SynthElf e = BuildElf(SynthOptions{});
  PutLe(&e.bytes, ShdrField(e, 2, 32, 20), 8, 24);  // .dynsym sh_size: 1 symbol instead of 3
  ElfResult r = ParseExact(e.bytes);
  ASSERT_TRUE(ParsesOk(r));
  EXPECT_EQ(ImportKeys(r.value()), (std::set<std::string>{"cuInit", "cuMemAdvise"}));
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find(".dynsym has 1 symbols but DT_HASH says 3"),
            std::string::npos)
      << r.value().warnings[0];
}

TEST(Synthetic, ExtendedProgramHeaderCount) {
  SynthElf e = BuildElf(SynthOptions{});
  const EhdrFields f = Fields(e.bytes);
  PutLe(&e.bytes, f.phnum, 2, PN_XNUM);
  PutLe(&e.bytes, ShdrField(e, 0, 44, 28), 4, 2);  // section 0 sh_info holds the real count
  ElfResult r = ParseExact(e.bytes);
  ASSERT_TRUE(ParsesOk(r));
  EXPECT_EQ(ImportKeys(r.value()), (std::set<std::string>{"cuInit", "cuMemAdvise"}));

  PutLe(&e.bytes, ShdrField(e, 0, 44, 28), 4, 0xffffff);
  EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "program header table out of bounds"));

  SynthOptions o;
  o.section_headers = false;
  SynthElf n = BuildElf(o);
  PutLe(&n.bytes, f.phnum, 2, PN_XNUM);
  EXPECT_TRUE(FailsWith(ParseExact(n.bytes), "program header table out of bounds"));
}

TEST(Synthetic, BadStringReferences) {
  for (int cls : {32, 64}) {
    SynthOptions o;
    o.elf_class = cls;
    SynthElf e = BuildElf(o);
    e.SetDynValue(DT_NEEDED, 0x7fffffff);
    EXPECT_TRUE(
        FailsWith(ParseExact(e.bytes), "string offset 0x7fffffff for DT_NEEDED out of bounds"));

    e = BuildElf(o);
    e.SetDynValue(DT_STRSZ, e.bytes.size() * 2);
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "dynamic string table out of bounds"));

    e = BuildElf(o);
    e.SetDynValue(DT_STRSZ, std::string("\0libcuda.so", 11).size());  // cuts "libcuda.so.1"
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "unterminated string"));

    e = BuildElf(o);
    e.SetDynValue(DT_STRTAB, 0x7000000);
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes),
                          "dynamic string table address 0x7000000 is not in any PT_LOAD segment"));
  }
}

TEST(Synthetic, BadSymbolCounts) {
  for (int cls : {32, 64}) {
    SynthOptions o;
    o.elf_class = cls;
    SynthElf e = BuildElf(o);
    PutLe(&e.bytes, e.hash_off + 4, 4, 0xffffffff);  // nchain
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "absurd dynamic symbol count (4294967295)"));
    PutLe(&e.bytes, e.hash_off + 4, 4, 1000);
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "dynamic symbol table out of bounds"));

    e = BuildElf(o);
    e.SetDynValue(DT_HASH, 0x9000000);
    EXPECT_TRUE(
        FailsWith(ParseExact(e.bytes), "hash table address 0x9000000 is not in any PT_LOAD"));

    // No hash table, no section headers, and no table after DT_SYMTAB to bound it.
    o.hash = SynthHash::kNone;
    o.section_headers = false;
    e = BuildElf(o);
    e.SetDynValue(DT_SYMTAB, kSynthBase + e.dynamic_off + 8);
    EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "cannot determine the dynamic symbol count"));
  }
}

TEST(Synthetic, BadVersionNeeds) {
  SynthOptions o;
  o.needed = {"libc.so.6"};
  o.versions = true;
  o.symbols = {{"puts", false, false, "GLIBC_2.2.5"}};
  SynthElf e = BuildElf(o);
  PutLe(&e.bytes, e.verneed_off + 8, 4, 0x100000);  // vn_aux far past the end
  EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "version needs table out of bounds"));

  e = BuildElf(o);
  PutLe(&e.bytes, e.verneed_off + 4, 4, 0xfffffff);  // vn_file
  EXPECT_TRUE(
      FailsWith(ParseExact(e.bytes), "string offset 0xfffffff for version needs file name"));

  e = BuildElf(o);
  e.SetDynValue(DT_VERNEEDNUM, 3);               // claims 3 entries,
  PutLe(&e.bytes, e.verneed_off + 12, 4, 0x10);  // and the chain runs on into the dynamic section
  EXPECT_FALSE(ParseExact(e.bytes).ok());
}

TEST(Synthetic, DynamicSectionWithoutEnd) {
  SynthOptions o;
  o.extra_debug_entries = 70000;
  EXPECT_TRUE(FailsWith(ParseExact(BuildElf(o).bytes), "too many dynamic entries"));
  o.extra_debug_entries = 1000;  // long but legal
  EXPECT_TRUE(ParsesOk(ParseExact(BuildElf(o).bytes)));
}

TEST(Synthetic, EveryPrefixOfMinimalImages) {
  for (int cls : {32, 64}) {
    for (bool sections : {true, false}) {
      SynthOptions o;
      o.elf_class = cls;
      o.section_headers = sections;
      o.versions = true;
      o.needed = {"libcuda.so.1", "libc.so.6"};
      o.symbols = {{"cuInit"}, {"cuMemAdvise"}, {"puts", false, false, "GLIBC_2.0"}};
      const SynthElf e = BuildElf(o);
      ElfResult full = ParseExact(e.bytes);
      ASSERT_TRUE(ParsesOk(full));
      for (size_t len = 0; len < e.bytes.size(); ++len) {
        ElfResult r = ParseExact(e.bytes.data(), len);
        if (r.ok()) {
          ExpectSameDynamicInfo(full.value(), r.value(), "synthetic prefix " + std::to_string(len));
          EXPECT_GE(len, e.dynamic_off);
        } else {
          EXPECT_FALSE(r.error().message.empty());
        }
      }
    }
  }
}

TEST(Synthetic, BigEndianHeaderIsRejected) {
  SynthElf e = BuildElf(SynthOptions{});
  e.bytes[EI_DATA] = ELFDATA2MSB;
  EXPECT_TRUE(FailsWith(ParseExact(e.bytes), "big-endian ELF not supported"));
}

TEST(MachineNames, KnownAndUnknown) {
  EXPECT_EQ(MachineName(EM_X86_64), "x86-64");
  EXPECT_EQ(MachineName(EM_AARCH64), "AArch64");
  EXPECT_EQ(MachineName(EM_386), "x86");
  EXPECT_EQ(MachineName(EM_PPC64), "PowerPC64");
  EXPECT_EQ(MachineName(0x7777), "unknown (30583)");
}

}  // namespace
}  // namespace elf
}  // namespace cudyn
