#include "tests/util/runfiles.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace cudyn {
namespace testing {
namespace {

std::string Root() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir != nullptr && srcdir[0] != '\0') return srcdir;
  char cwd[PATH_MAX];
  // Outside `bazel test` the working directory is <runfiles>/cudyn.
  if (getcwd(cwd, sizeof(cwd)) != nullptr) return std::string(cwd) + "/..";
  return "..";
}

std::string Candidate(const std::string& path) {
  struct stat st;
  for (const std::string& c : {Root() + "/cudyn/" + path, Root() + "/" + path,
                               Root() + "/cudyn/external/" + path}) {
    if (lstat(c.c_str(), &st) == 0) return c;
  }
  return "";
}

std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof(cwd)) != nullptr ? std::string(cwd) + "/" + path : path;
}

}  // namespace

std::string Runfile(const std::string& path) {
  std::string c = Candidate(path);
  if (c.empty()) return "";
  char resolved[PATH_MAX];
  return realpath(c.c_str(), resolved) != nullptr ? std::string(resolved) : "";
}

std::string RunfileNoResolve(const std::string& path) {
  std::string c = Candidate(path);
  if (c.empty()) return "";
  std::string::size_type slash = c.rfind('/');
  char resolved[PATH_MAX];
  if (realpath(c.substr(0, slash).c_str(), resolved) == nullptr) return "";
  return std::string(resolved) + c.substr(slash);
}

std::string MakeTempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = Absolute(tmp != nullptr ? tmp : "/tmp") + "/" + name + "XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return "";
  return dir;
}

}  // namespace testing
}  // namespace cudyn
