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

// What a program run by RunProgram printed and how it ended.
struct ProgramRun {
  ChildAnswer answer;  // its stdout's key=value lines
  std::string raw;     // its whole stdout
  int exit_code = -1;  // -1: it did not exit
};
// Runs `program` with `args` (argv[1]...) in the test's environment without its LD_LIBRARY_PATH,
// CUDYN_*, CUDA_HOME and CUDA_PATH, with CUDYN_LOG=off, then `env` ("NAME=value"; with
// `foreign_leak` as in ChildEnvironment).
ProgramRun RunProgram(const std::string& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& env, bool foreign_leak = false);

// Runs this test binary (/proc/self/exe) with `args` under `env` (RunProgram); returns its
// key=value lines. Expects (gtest) a clean exit.
ChildAnswer RunChild(const std::vector<std::string>& args, const ChildEnvironment& env);

// In a child: the real files whose path contains `marker` ("/libcublas.so.") this process has
// mapped (/proc/self/maps), sorted, joined by ','.
std::string MappedFiles(const char* marker);

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
