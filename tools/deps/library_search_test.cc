// Tests of the ld.so search rules: the cache parser against the real /etc/ld.so.cache and
// `ldconfig -p`, the search order on a fake file system, and whole lookups against `ldd`.
#include "tests/util/file_bytes.h"
#include "tools/deps/library_search.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/elf/elf_reader.h"

namespace cudyn {
namespace deps {
namespace {

// stdout of a shell command.
std::string Output(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string ReadFile(const std::string& path) { return cudyn::testing::ReadFileBytes(path); }

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string Ldconfig() {
  for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// `ldconfig -p`'s entries for "(libc6,x86-64...)": {name, path} in its order.
std::vector<std::pair<std::string, std::string>> LdconfigX8664() {
  std::vector<std::pair<std::string, std::string>> out;
  std::string text = Output(Ldconfig() + " -p");
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] != '\t') continue;
    const size_t paren = line.find(" (");
    const size_t arrow = line.find(") => ");
    if (paren == std::string::npos || arrow == std::string::npos) continue;
    const std::string kind = line.substr(paren + 2, arrow - paren - 2);
    if (kind.compare(0, 12, "libc6,x86-64") != 0) continue;
    out.emplace_back(line.substr(1, paren - 1), line.substr(arrow + 5));
  }
  return out;
}

TEST(LdCache, ParsesTheRealCacheAsLdconfigListsIt) {
  ASSERT_FALSE(Ldconfig().empty()) << "no ldconfig on this machine";
  const std::string cache = ReadFile("/etc/ld.so.cache");
  ASSERT_FALSE(cache.empty());
  std::vector<CacheEntry> entries;
  std::string error;
  ASSERT_TRUE(ParseLdCache(Bytes(cache), cache.size(), &entries, &error)) << error;
  std::vector<std::pair<std::string, std::string>> ours;
  for (const CacheEntry& e : entries) {
    if (CacheEntryMatches(e, 64, 62)) ours.emplace_back(e.name, e.path);
  }
  const auto theirs = LdconfigX8664();
  ASSERT_GT(theirs.size(), 10u);
  EXPECT_EQ(ours, theirs);
}

TEST(LdCache, MalformedCachesAreErrorsNotCrashes) {
  const std::string cache = ReadFile("/etc/ld.so.cache");
  ASSERT_GT(cache.size(), 100u);
  std::vector<CacheEntry> entries;
  std::string error;
  // Truncated anywhere in the header or the entry array: an error, never a crash.
  for (size_t cut : {size_t{0}, size_t{5}, size_t{20}, size_t{47}, size_t{48}, size_t{60}}) {
    error.clear();
    EXPECT_FALSE(ParseLdCache(Bytes(cache), cut, &entries, &error)) << cut;
    EXPECT_FALSE(error.empty()) << cut;
    EXPECT_TRUE(entries.empty());
  }
  std::string bad = cache;
  bad[0] = 'X';
  EXPECT_FALSE(ParseLdCache(Bytes(bad), bad.size(), &entries, &error));
  EXPECT_NE(error.find("not a glibc-ld.so.cache1.1"), std::string::npos) << error;
  // The first entry's name offset pointing past the end.
  bad = cache;
  const uint32_t far = 0xfffffff0u;
  std::memcpy(&bad[48 + 4], &far, sizeof far);
  EXPECT_FALSE(ParseLdCache(Bytes(bad), bad.size(), &entries, &error));
  EXPECT_NE(error.find("points outside"), std::string::npos) << error;
  // Cut right after the entry array: every name lies outside.
  uint32_t nlibs;
  std::memcpy(&nlibs, cache.data() + 20, sizeof nlibs);
  bad = cache.substr(0, 48 + 24 * size_t{nlibs});
  EXPECT_FALSE(ParseLdCache(Bytes(bad), bad.size(), &entries, &error));
  EXPECT_NE(error.find("points outside"), std::string::npos) << error;
}

TEST(LdCache, OldFormatPrefixIsSkipped) {
  const std::string cache = ReadFile("/etc/ld.so.cache");
  // "ld.so-1.7.0", pad, nlibs = 2, two 12-byte entries: the new header follows at 40 (8-aligned).
  std::string old("ld.so-1.7.0\0", 12);
  const uint32_t two = 2;
  old.append(reinterpret_cast<const char*>(&two), 4);
  old.append(24, '\0');
  old.append(40 - old.size(), '\0');
  std::vector<CacheEntry> plain, combined;
  std::string error;
  ASSERT_TRUE(ParseLdCache(Bytes(cache), cache.size(), &plain, &error)) << error;
  const std::string both = old + cache;
  ASSERT_TRUE(ParseLdCache(Bytes(both), both.size(), &combined, &error)) << error;
  ASSERT_EQ(plain.size(), combined.size());
  EXPECT_EQ(plain.front().path, combined.front().path);
}

TEST(Paths, NormalizeAndExpand) {
  EXPECT_EQ(NormalizePath("/a/./b/../c//d"), "/a/c/d");
  EXPECT_EQ(NormalizePath("/../x"), "/x");
  EXPECT_EQ(NormalizePath("a/../../b"), "../b");
  EXPECT_EQ(NormalizePath("w.whl!/torch/lib/../../nvidia/cu13/lib"), "w.whl!/nvidia/cu13/lib");
  EXPECT_EQ(NormalizePath("w.whl!/../x"), "w.whl!/x");
  EXPECT_EQ(DirName("/opt/app/bin/prog"), "/opt/app/bin");
  EXPECT_EQ(DirName("prog"), ".");
  EXPECT_EQ(DirName("w.whl!/a.so"), "w.whl!/");
  EXPECT_EQ(ExpandSearchEntry("$ORIGIN/../lib", "/opt/app/bin/prog", 62), "/opt/app/lib");
  EXPECT_EQ(ExpandSearchEntry("${ORIGIN}/x", "/opt/p", 62), "/opt/x");
  EXPECT_EQ(ExpandSearchEntry("$ORIGINAL/x", "/opt/p", 62), "$ORIGINAL/x");
  EXPECT_EQ(ExpandSearchEntry("/usr/$LIB", "/opt/p", 62), "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(ExpandSearchEntry("/usr/${LIB}/$PLATFORM", "/p", 183),
            "/usr/lib/aarch64-linux-gnu/aarch64");
  EXPECT_EQ(ExpandSearchEntry("$ORIGIN/../../nvidia/cu13/lib", "w.whl!/torch/lib/libtorch.so", 62),
            "w.whl!/nvidia/cu13/lib");
  EXPECT_EQ(ExpandSearchEntry("", "/opt/p", 62), ".");
}

// A fake file system: the paths that exist.
struct FakeFs {
  std::set<std::string> files;
  AcceptFn accept() const {
    return [this](const std::string& p) { return files.count(p) > 0; };
  }
};

TEST(FindLibrary, FollowsLdSoOrder) {
  SearchEnvironment env;
  env.ld_library_path = {"/llp"};
  env.system_dirs = {"/sys1", "/sys2"};
  env.cache = {{"libc.so.6", "/cache/libc.so.6", 0x0303, 0},
               {"libx.so.1", "/cache32/libx.so.1", 0x0003, 0},  // i386: not for x86-64
               {"libx.so.1", "/cache/libx.so.1", 0x0303, 0}};
  Requester r;
  r.path = "/opt/app/bin/prog";
  r.rpath = {"$ORIGIN/../lib"};
  r.inherited_rpath = {"/parent/lib"};
  FakeFs fs;
  fs.files = {"/opt/app/lib/libx.so.1", "/parent/lib/libx.so.1", "/llp/libx.so.1",
              "/cache/libx.so.1", "/sys2/libx.so.1"};

  SearchResult s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kRpath);
  EXPECT_EQ(s.path, "/opt/app/lib/libx.so.1");

  fs.files.erase("/opt/app/lib/libx.so.1");  // then the loaders' RPATH
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.path, "/parent/lib/libx.so.1");
  EXPECT_EQ(s.found_by, FoundBy::kRpath);

  r.runpath = {"$ORIGIN/../rlib"};  // RUNPATH: no RPATH at all; LD_LIBRARY_PATH first
  fs.files.insert("/opt/app/rlib/libx.so.1");
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kLdLibraryPath);
  EXPECT_EQ(s.path, "/llp/libx.so.1");

  fs.files.erase("/llp/libx.so.1");
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kRunpath);
  EXPECT_EQ(s.path, "/opt/app/rlib/libx.so.1");

  fs.files.erase("/opt/app/rlib/libx.so.1");
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kLdCache);
  EXPECT_EQ(s.path, "/cache/libx.so.1");
  // The i386 entry was not a candidate at all.
  for (const std::string& t : s.tried) EXPECT_NE(t, "/cache32/libx.so.1");

  fs.files.erase("/cache/libx.so.1");
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kSystemDir);
  EXPECT_EQ(s.path, "/sys2/libx.so.1");

  fs.files.clear();
  s = FindLibrary("libx.so.1", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kNotFound);
  const std::vector<std::string> tried = {"/llp/libx.so.1", "/opt/app/rlib/libx.so.1",
                                          "/cache/libx.so.1", "/sys1/libx.so.1",
                                          "/sys2/libx.so.1"};
  EXPECT_EQ(s.tried, tried);

  fs.files = {"/abs/libz.so"};
  s = FindLibrary("/abs/./libz.so", r, env, fs.accept());
  EXPECT_EQ(s.found_by, FoundBy::kPath);
  EXPECT_EQ(s.path, "/abs/libz.so");
}

// The real thing: every DT_NEEDED of a few system programs resolves where the dynamic linker
// (`ldd`, i.e. ld.so --list) finds it.
TEST(FindLibrary, AgreesWithLddOnSystemPrograms) {
  const SearchEnvironment env = SystemSearchEnvironment();
  ASSERT_TRUE(env.cache_error.empty()) << env.cache_error;
  int compared = 0;
  for (const char* program : {"/bin/ls", "/usr/bin/python3", "/usr/bin/bash", "/usr/bin/cmake"}) {
    if (access(program, R_OK) != 0) continue;
    elf::ElfResult elf = elf::ReadElf(program);
    ASSERT_TRUE(elf.ok()) << program;
    std::map<std::string, std::string> ldd;
    const std::string text = Output(std::string("ldd ") + program);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(pos, end - pos);
      pos = end + 1;
      const size_t arrow = line.find(" => ");
      const size_t paren = line.rfind(" (");
      if (arrow == std::string::npos || paren == std::string::npos || paren < arrow) continue;
      const size_t start = line.find_first_not_of('\t');
      ldd[line.substr(start, arrow - start)] = line.substr(arrow + 4, paren - arrow - 4);
    }
    Requester r;
    r.path = program;
    r.elf_class = elf.value().elf_class;
    r.machine = elf.value().machine;
    r.rpath = elf.value().rpath;
    r.runpath = elf.value().runpath;
    for (const std::string& needed : elf.value().needed) {
      SearchResult s = FindLibrary(needed, r, env, [&](const std::string& p) {
        return IsElfFor(p, r.elf_class, r.machine);
      });
      ASSERT_EQ(ldd.count(needed), 1u) << program << " " << needed << "\n" << text;
      EXPECT_EQ(s.path, ldd[needed]) << program << " " << needed;
      ++compared;
    }
  }
  EXPECT_GT(compared, 5);
}

TEST(IsElfFor, ClassAndMachine) {
  EXPECT_TRUE(IsElfFor("/bin/ls", 64, 62));
  EXPECT_FALSE(IsElfFor("/bin/ls", 32, 62));
  EXPECT_FALSE(IsElfFor("/bin/ls", 64, 183));
  EXPECT_FALSE(IsElfFor("/etc/passwd", 64, 62));
  EXPECT_FALSE(IsElfFor("/no/such/file", 64, 62));
  EXPECT_FALSE(IsElfFor("/tmp", 64, 62));
}

}  // namespace
}  // namespace deps
}  // namespace cudyn
