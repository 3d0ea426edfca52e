#include "tools/deps/library_search.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tools/util/bytes.h"

namespace cudyn {
namespace deps {
namespace {

constexpr uint16_t kEmX86_64 = 62;
constexpr uint16_t kEmAarch64 = 183;
constexpr uint16_t kEm386 = 3;

// ld.so.cache layout (glibc's dl-cache.h, as found in the files).
constexpr char kOldMagic[] = "ld.so-1.7.0";             // + u32 nlibs + 12-byte entries
constexpr char kNewMagic[] = "glibc-ld.so.cache1.1";    // 20 bytes, then the rest of the header
constexpr size_t kOldHeaderSize = 16;                   // magic[11], pad, u32 nlibs at 12
constexpr size_t kOldEntrySize = 12;                    // i32 flags, u32 key, u32 value
constexpr size_t kNewHeaderSize = 48;
constexpr size_t kNewEntrySize = 24;  // i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap
// Entry flags: the type in the low byte (libc6 = 3), the architecture in the second.
constexpr uint32_t kFlagElfLibc6 = 0x0003;
constexpr uint32_t kFlagX8664Lib64 = 0x0300;
constexpr uint32_t kFlagAarch64Lib64 = 0x0a00;

using bytes::LoadLe16;
using bytes::LoadLe32;
using bytes::LoadLe64;

// NUL-terminated string at `offset` of [base, base + size); false when it runs off the end.
bool StringAt(const uint8_t* base, size_t size, uint32_t offset, std::string* out) {
  if (offset >= size) return false;
  const void* nul = std::memchr(base + offset, '\0', size - offset);
  if (nul == nullptr) return false;
  out->assign(reinterpret_cast<const char*>(base + offset),
              static_cast<const uint8_t*>(nul) - (base + offset));
  return true;
}


std::string LibDirFor(uint16_t machine) {
  if (machine == kEmAarch64) return "lib/aarch64-linux-gnu";
  if (machine == kEm386) return "lib/i386-linux-gnu";
  return "lib/x86_64-linux-gnu";
}

std::string PlatformFor(uint16_t machine) {
  if (machine == kEmAarch64) return "aarch64";
  if (machine == kEm386) return "i686";
  return "x86_64";
}

// Replaces $NAME and ${NAME} in `text`.
std::string ReplaceToken(const std::string& text, const std::string& name,
                         const std::string& value) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '$') {
      if (text.compare(i + 1, name.size(), name) == 0) {
        const size_t after = i + 1 + name.size();
        // $ORIGINX is not $ORIGIN: the token must end at a non-identifier character.
        if (after >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[after])) ||
                                      text[after] == '_')) {
          out += value;
          i = after;
          continue;
        }
      }
      if (text.compare(i + 1, name.size() + 2, "{" + name + "}") == 0) {
        out += value;
        i += name.size() + 3;
        continue;
      }
    }
    out.push_back(text[i++]);
  }
  return out;
}

}  // namespace

std::vector<std::string> SplitPathList(const char* text) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ':' || *p == ';' || *p == '\0') {
      out.push_back(item);  // ld.so: an empty entry is the working directory
      item.clear();
      if (*p == '\0') break;
    } else {
      item.push_back(*p);
    }
  }
  return out;
}

const char* FoundByName(FoundBy by) {
  switch (by) {
    case FoundBy::kNotFound: return "not found";
    case FoundBy::kPath: return "path";
    case FoundBy::kRpath: return "RPATH";
    case FoundBy::kLdLibraryPath: return "LD_LIBRARY_PATH";
    case FoundBy::kRunpath: return "RUNPATH";
    case FoundBy::kLdCache: return "ld.so.cache";
    case FoundBy::kSystemDir: return "system directory";
  }
  return "?";
}

bool ParseLdCache(const uint8_t* data, size_t size, std::vector<CacheEntry>* out,
                  std::string* error) {
  try {
    out->clear();
    size_t start = 0;  // the new-format header; its string offsets are relative to it
    if (size >= kOldHeaderSize && std::memcmp(data, kOldMagic, sizeof kOldMagic - 1) == 0) {
      const uint64_t old_libs = LoadLe32(data + 12);
      const uint64_t old_end = kOldHeaderSize + old_libs * kOldEntrySize;
      start = static_cast<size_t>((old_end + 7) & ~uint64_t{7});  // aligned for the new header
      if (old_end > size || start > size) {
        *error = "ld.so.cache: truncated old-format entries";
        return false;
      }
      if (start == size) return true;  // old format only: nothing we read
    }
    const uint8_t* base = data + start;
    const size_t avail = size - start;
    if (avail < kNewHeaderSize || std::memcmp(base, kNewMagic, sizeof kNewMagic - 1) != 0) {
      *error = "ld.so.cache: not a glibc-ld.so.cache1.1 file";
      return false;
    }
    const uint64_t nlibs = LoadLe32(base + 20);
    if (nlibs > (avail - kNewHeaderSize) / kNewEntrySize) {
      *error = "ld.so.cache: " + std::to_string(nlibs) + " entries do not fit in the file";
      return false;
    }
    out->reserve(static_cast<size_t>(nlibs));
    for (uint64_t i = 0; i < nlibs; ++i) {
      const uint8_t* e = base + kNewHeaderSize + i * kNewEntrySize;
      CacheEntry entry;
      entry.flags = LoadLe32(e);
      entry.hwcap = LoadLe64(e + 16);
      if (!StringAt(base, avail, LoadLe32(e + 4), &entry.name) ||
          !StringAt(base, avail, LoadLe32(e + 8), &entry.path)) {
        *error = "ld.so.cache: entry " + std::to_string(i) + " points outside the file";
        out->clear();
        return false;
      }
      out->push_back(std::move(entry));
    }
    return true;
  } catch (const std::bad_alloc&) {
    out->clear();
    *error = "ld.so.cache: out of memory";
    return false;
  }
}

bool CacheEntryMatches(const CacheEntry& entry, int elf_class, uint16_t machine) {
  if ((entry.flags & 0xff) != kFlagElfLibc6) return false;
  const uint32_t arch = entry.flags & 0xff00;
  if (elf_class == 64 && machine == kEmX86_64) return arch == kFlagX8664Lib64;
  if (elf_class == 64 && machine == kEmAarch64) return arch == kFlagAarch64Lib64;
  if (elf_class == 32 && machine == kEm386) return arch == 0;
  return false;
}

bool IsElfFor(const std::string& path, int elf_class, uint16_t machine) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  uint8_t header[20];
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                  ::pread(fd, header, sizeof header, 0) == static_cast<ssize_t>(sizeof header);
  ::close(fd);
  if (!ok || std::memcmp(header, "\x7f" "ELF", 4) != 0) return false;
  const int file_class = header[4] == 2 ? 64 : header[4] == 1 ? 32 : 0;
  return file_class == elf_class && LoadLe16(header + 18) == machine;  // little-endian ELF only
}

std::vector<std::string> DefaultSystemDirs() {
  return {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib",
          "/lib64", "/usr/lib64"};
}

bool ReadLdCacheFile(const std::string& path, std::vector<CacheEntry>* out, std::string* error) {
  out->clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    ::close(fd);
    *error = path + ": not a regular non-empty file";
    return false;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    *error = path + ": cannot mmap: " + std::strerror(errno);
    return false;
  }
  const bool ok = ParseLdCache(static_cast<const uint8_t*>(map), size, out, error);
  ::munmap(map, size);
  return ok;
}

SearchEnvironment SystemSearchEnvironment() {
  SearchEnvironment env;
  env.ld_library_path = SplitPathList(std::getenv("LD_LIBRARY_PATH"));
  env.system_dirs = DefaultSystemDirs();
  ReadLdCacheFile("/etc/ld.so.cache", &env.cache, &env.cache_error);
  return env;
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  // "x.whl!/a.so" -> "x.whl!" would lose the zip root marker: keep "x.whl!/".
  if (slash > 0 && path[slash - 1] == '!') return path.substr(0, slash + 1);
  return path.substr(0, slash);
}

std::string NormalizePath(const std::string& path) {
  // The fixed prefix: "/" for absolute paths, "<zip>!/" inside an archive.
  std::string prefix;
  std::string rest = path;
  const size_t bang = path.find("!/");
  if (bang != std::string::npos) {
    prefix = path.substr(0, bang + 2);
    rest = path.substr(bang + 2);
  } else if (!path.empty() && path[0] == '/') {
    prefix = "/";
    rest = path.substr(1);
  }
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= rest.size()) {
    size_t j = rest.find('/', i);
    if (j == std::string::npos) j = rest.size();
    const std::string part = rest.substr(i, j - i);
    if (part.empty() || part == ".") {
      // skip
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (prefix.empty()) {
        parts.push_back("..");  // relative path above its start: kept
      }                         // above "/" or the archive root: stays at the root
    } else {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = prefix;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k > 0) out += '/';
    out += parts[k];
  }
  if (out.empty()) out = ".";
  return out;
}

std::string ExpandSearchEntry(const std::string& entry, const std::string& object_path,
                              uint16_t machine) {
  if (entry.empty()) return ".";
  std::string s = ReplaceToken(entry, "ORIGIN", DirName(object_path));
  s = ReplaceToken(s, "LIB", LibDirFor(machine));
  s = ReplaceToken(s, "PLATFORM", PlatformFor(machine));
  return NormalizePath(s);
}

SearchResult FindLibrary(const std::string& needed, const Requester& requester,
                         const SearchEnvironment& env, const AcceptFn& accept) {
  SearchResult result;
  auto try_path = [&](const std::string& candidate, FoundBy by) {
    if (accept(candidate)) {
      result.found_by = by;
      result.path = candidate;
      return true;
    }
    result.tried.push_back(candidate);
    return false;
  };
  auto try_dirs = [&](const std::vector<std::string>& dirs, FoundBy by, bool expand) {
    for (const std::string& dir : dirs) {
      const std::string d = expand ? ExpandSearchEntry(dir, requester.path, requester.machine)
                                   : (dir.empty() ? std::string(".") : dir);
      if (try_path(NormalizePath(d + "/" + needed), by)) return true;
    }
    return false;
  };
  if (needed.find('/') != std::string::npos) {
    try_path(NormalizePath(needed), FoundBy::kPath);
    return result;
  }
  if (requester.runpath.empty()) {
    if (try_dirs(requester.rpath, FoundBy::kRpath, true)) return result;
    if (try_dirs(requester.inherited_rpath, FoundBy::kRpath, false)) return result;
  }
  if (try_dirs(env.ld_library_path, FoundBy::kLdLibraryPath, false)) return result;
  if (try_dirs(requester.runpath, FoundBy::kRunpath, true)) return result;
  for (const CacheEntry& e : env.cache) {
    if (e.name != needed || !CacheEntryMatches(e, requester.elf_class, requester.machine)) continue;
    if (try_path(e.path, FoundBy::kLdCache)) return result;
  }
  try_dirs(env.system_dirs, FoundBy::kSystemDir, false);
  return result;
}

}  // namespace deps
}  // namespace cudyn
