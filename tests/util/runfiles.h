// Test helper: absolute paths of runfiles (data dependencies) inside a Bazel test.
#ifndef CUDYN_TESTS_UTIL_RUNFILES_H_
#define CUDYN_TESTS_UTIL_RUNFILES_H_

#include <string>

namespace cudyn {
namespace testing {

// `path` as Bazel names it in runfiles: "tests/fake_driver/cuda_12020/libcuda.so.1" for this
// workspace, "nvidia_drivers/535/libcuda.so.1" for an external repository. Returns the absolute,
// symlink-resolved path, or "" when it does not exist.
std::string Runfile(const std::string& path);

// A fresh directory under TEST_TMPDIR.
std::string MakeTempDir(const std::string& name);

}  // namespace testing
}  // namespace cudyn

#endif  // CUDYN_TESTS_UTIL_RUNFILES_H_
