// Test helper shared by the real-library loader tests (tests/real_cublas, tests/real_nvrtc): each
// case runs in its own process (the test binary re-executed with --choose ...) under an
// environment of its own, and answers key=value lines; and the checks of the dynamic linker's
// default search those answers carry.
#ifndef CUDYN_TESTS_UTIL_CHOOSE_CHILD_H_
#define CUDYN_TESTS_UTIL_CHOOSE_CHILD_H_

#include <map>
#include <string>
#include <vector>

namespace cudyn {
namespace testing {

using ChildAnswer = std::map<std::string, std::string>;

struct ChildEnvironment {
  std::string driver;  // CUDYN_DRIVER_PATH, its directory last in LD_LIBRARY_PATH; "": none
  std::string clamp;   // CUDYN_MAX_CUDA_VERSION; "": unset
  // Directories in LD_LIBRARY_PATH before the driver's.
  std::vector<std::string> ld_library_path;
  // The child loads a real library that leaks by itself under LeakSanitizer (a Debian libstdc++
  // exception pool): it runs with detect_leaks=0 (sanitizer builds).
  bool foreign_leak = false;
};

// Runs /proc/self/exe with `args` (argv[1]...) in the test's environment without its
// LD_LIBRARY_PATH and CUDYN_* variables, plus `env`'s, with CUDYN_LOG=off; returns its stdout's
// key=value lines. Expects (gtest) a clean exit.
ChildAnswer RunChild(const std::vector<std::string>& args, const ChildEnvironment& env);

// A bare name the dynamic linker's default search would look up ("libcublas.so.13"), refused by
// its SONAME before dlopen: an answer's candidate "cand.K=<name>|<rejection>|0" (no version: never
// loaded), found by "default search", with `min_driver`, and a reason naming the SONAME with
// `reason_piece` in it and saying it was not loaded.
void ExpectRefusedUnloadedByName(const ChildAnswer& answer, const std::string& name,
                                 const std::string& rejection, int min_driver,
                                 const std::string& reason_piece);

}  // namespace testing
}  // namespace cudyn

#endif  // CUDYN_TESTS_UTIL_CHOOSE_CHILD_H_
