// The test helpers over Bazel's own runfiles library (@bazel_tools//tools/cpp/runfiles).
#include "tests/util/runfiles.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "tools/cpp/runfiles/runfiles.h"

namespace cudyn {
namespace testing {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;

// This workspace's name (WORKSPACE: workspace(name = "cudyn")) as the runfiles tree names it.
constexpr char kWorkspace[] = "cudyn";

// Under `bazel test` from the test environment; otherwise (a test binary run by hand, or copied
// with its .runfiles tree to another machine) from the executable's own path.
const Runfiles* Instance() {
  static const Runfiles* const runfiles = []() -> const Runfiles* {
    std::string error;
    if (Runfiles* r = Runfiles::CreateForTest(&error)) return r;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) return nullptr;
    exe[n] = '\0';
    return Runfiles::Create(exe, &error);
  }();
  return runfiles;
}

// The runfile's location (this workspace first, then an external repository), or "".
std::string Locate(const std::string& path) {
  const Runfiles* runfiles = Instance();
  if (runfiles == nullptr || path.empty()) return "";
  struct stat st;
  for (const std::string& name : {std::string(kWorkspace) + "/" + path, path}) {
    std::string location = runfiles->Rlocation(name);
    if (!location.empty() && lstat(location.c_str(), &st) == 0) return location;
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
  std::string location = Locate(path);
  if (location.empty()) return "";
  char resolved[PATH_MAX];
  return realpath(location.c_str(), resolved) != nullptr ? std::string(resolved) : "";
}

std::string MakeTempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = Absolute(tmp != nullptr ? tmp : "/tmp") + "/" + name + "XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return "";
  return dir;
}

}  // namespace testing
}  // namespace cudyn
