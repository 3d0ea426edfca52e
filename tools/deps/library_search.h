// The dynamic linker's library search, as data, for `cudyn-check binary --deps`: which file a
// DT_NEEDED name resolves to for a given requesting object, following ld.so(8):
//
//   1. a name containing '/' is a path (relative to the working directory);
//   2. DT_RPATH of the requester, then of the objects that loaded it (the executable last) —
//      only when the requester has no DT_RUNPATH;
//   3. LD_LIBRARY_PATH;
//   4. DT_RUNPATH of the requester (never inherited);
//   5. /etc/ld.so.cache (entries for the requester's ELF class and machine);
//   6. the system directories (Debian's multiarch ones first).
//
// In RPATH/RUNPATH entries $ORIGIN / ${ORIGIN} is the requester's directory, $LIB / ${LIB} the
// library directory ("lib/x86_64-linux-gnu" for x86-64: what Debian's ld.so expands it to,
// measured with LD_PRELOAD='/usr/$LIB/libz.so.1'; "lib/aarch64-linux-gnu" for AArch64), $PLATFORM
// "x86_64" / "aarch64". Paths are normalised lexically (".", "..", "//"); a path inside a zip
// ("wheel.whl!/torch/lib") keeps its "!/" prefix fixed while normalising.
//
// Whether a candidate is usable (exists, is an ELF of the right class and machine, or is a member
// of a wheel) is the caller's `accept` function: ld.so skips a file of the wrong class and goes on.
#ifndef CUDYN_TOOLS_DEPS_LIBRARY_SEARCH_H_
#define CUDYN_TOOLS_DEPS_LIBRARY_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cudyn {
namespace deps {

// Where a name was found.
enum class FoundBy { kNotFound, kPath, kRpath, kLdLibraryPath, kRunpath, kLdCache, kSystemDir };
const char* FoundByName(FoundBy by);  // "not found", "path", "RPATH", "LD_LIBRARY_PATH", ...

// One entry of /etc/ld.so.cache.
struct CacheEntry {
  std::string name;  // "libz.so.1"
  std::string path;  // "/lib/x86_64-linux-gnu/libz.so.1"
  uint32_t flags = 0;
  uint64_t hwcap = 0;
};

// Parses ld.so.cache contents (the "glibc-ld.so.cache1.1" format, alone or after the old
// "ld.so-1.7.0" one). False and *error when malformed; never throws.
bool ParseLdCache(const uint8_t* data, size_t size, std::vector<CacheEntry>* out,
                  std::string* error);
// Whether a cache entry is for libraries of this ELF class and machine (libc6 x86-64, AArch64,
// i386 ...). Unknown combinations accept nothing.
bool CacheEntryMatches(const CacheEntry& entry, int elf_class, uint16_t machine);

// What does not change between lookups: the environment and the system's configuration.
struct SearchEnvironment {
  std::vector<std::string> ld_library_path;  // LD_LIBRARY_PATH split at ':' and ';'
  std::vector<CacheEntry> cache;             // parsed ld.so.cache, file order
  std::vector<std::string> system_dirs;      // ld.so's trusted directories
  std::string cache_error;                   // why the cache could not be read ("" if it was)
};
// A search-path list as ld.so reads LD_LIBRARY_PATH: split at ':' and ';', an empty entry kept
// (it is the working directory). nullptr: none.
std::vector<std::string> SplitPathList(const char* text);
// Reads and parses the ld.so.cache file at `path` (ldconfig's output, e.g. "/etc/ld.so.cache" or
// ROOT/etc/ld.so.cache). False and *error when it cannot be opened ("PATH: No such file or
// directory"), is not a regular non-empty file, or is malformed (ParseLdCache); never throws.
bool ReadLdCacheFile(const std::string& path, std::vector<CacheEntry>* out, std::string* error);
// LD_LIBRARY_PATH from the environment, /etc/ld.so.cache, Debian's system directories.
SearchEnvironment SystemSearchEnvironment();
// ld.so's trusted directories, in its order: /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu,
// /lib, /usr/lib, then /lib64, /usr/lib64 (other distributions) for ELF64.
std::vector<std::string> DefaultSystemDirs();

// The requesting object.
struct Requester {
  std::string path;                       // the object's path (its directory is $ORIGIN)
  int elf_class = 64;
  uint16_t machine = 62;                  // EM_X86_64
  std::vector<std::string> rpath;         // its DT_RPATH
  std::vector<std::string> runpath;       // its DT_RUNPATH
  // DT_RPATH of the objects that loaded it, nearest first, each already $ORIGIN-expanded for its
  // own object (ld.so searches them after the requester's own RPATH when it has no RUNPATH).
  std::vector<std::string> inherited_rpath;
};

struct SearchResult {
  FoundBy found_by = FoundBy::kNotFound;
  std::string path;                // the accepted candidate
  std::vector<std::string> tried;  // every candidate rejected or missing, in order
};

// What ld.so accepts from the file system: a regular file, an ELF of this class and machine.
bool IsElfFor(const std::string& path, int elf_class, uint16_t machine);

// Candidate paths are given to `accept`; the first accepted one is the answer.
using AcceptFn = std::function<bool(const std::string& path)>;
SearchResult FindLibrary(const std::string& needed, const Requester& requester,
                         const SearchEnvironment& env, const AcceptFn& accept);

// $ORIGIN/$LIB/$PLATFORM expansion of one RPATH/RUNPATH entry for an object at `object_path`,
// normalised. An entry that expands to "" (empty entry) means the working directory (".").
std::string ExpandSearchEntry(const std::string& entry, const std::string& object_path,
                              uint16_t machine);
// Lexical normalisation: "a/./b/../c//d" -> "a/c/d"; keeps a leading '/' and a "zip!/" prefix.
std::string NormalizePath(const std::string& path);
// The directory part of a path ("/a/b/c.so" -> "/a/b", "c.so" -> ".").
std::string DirName(const std::string& path);

}  // namespace deps
}  // namespace cudyn

#endif  // CUDYN_TOOLS_DEPS_LIBRARY_SEARCH_H_
