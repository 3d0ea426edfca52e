// Run by setuid_test.sh, once plainly and once installed setuid (owner nobody) and started by
// root, so that the kernel sets AT_SECURE. Opens the process-wide driver and runtime exactly as the
// drop-in stubs do (DefaultDriver, DefaultRuntime: environment honoured) and prints what it saw as
// key=value lines (the runtime's prefixed runtime_, NVRTC's nvrtc_, cuBLAS's cublas_).
#include <sys/auxv.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "loader/cublas.h"
#include "loader/cudart.h"
#include "loader/cudyn.h"
#include "loader/nvrtc.h"

// Under --config=asan: LeakSanitizer cannot stop the world in a setuid (non-dumpable) process and
// dies with a "fatal error" at exit. Leak checking is off only for the setuid run; every other
// test (and this helper's plain run) keeps it.
extern "C" int __lsan_is_turned_off() { return getauxval(AT_SECURE) != 0; }

// A toolkit library's default instance (NVRTC, cuBLAS), its keys prefixed `prefix`_.
static void PrintToolkit(const char* prefix, cudyn::Toolkit& lib) {
  const cudyn::ToolkitTraits& traits = lib.traits();
  std::printf("%s_path=%s\n", prefix, lib.path().c_str());
  std::printf("%s_found_by=%s\n", prefix,
              lib.ok() ? cudyn::ToolkitSourceName(traits, lib.found_by()) : "");
  for (const cudyn::ToolkitCandidate& c : lib.candidates()) {
    std::printf("%s_candidate=%s|%s|%s\n", prefix, cudyn::ToolkitSourceName(traits, c.source),
                c.path.c_str(), c.reason.c_str());
    std::printf("%s_rejection=%s\n", prefix, cudyn::ToolkitRejectionName(traits, c.rejection));
  }
  for (const std::string& w : lib.warnings()) std::printf("%s_warning=%s\n", prefix, w.c_str());
}

int main() {
  std::printf("at_secure=%lu\n", getauxval(AT_SECURE));
  std::printf("ruid=%d\neuid=%d\n", static_cast<int>(getuid()), static_cast<int>(geteuid()));
  cudyn::Driver& driver = cudyn::DefaultDriver();
  std::printf("error=%d\n", driver.error());
  std::printf("path=%s\n", driver.path().c_str());
  std::printf("found_by=%s\n", driver.ok() ? cudyn::CandidateSourceName(driver.found_by()) : "");
  for (const cudyn::DriverCandidate& c : driver.candidates()) {
    std::printf("candidate=%s|%s|%s\n", cudyn::CandidateSourceName(c.source), c.path.c_str(),
                c.reason.c_str());
    std::printf("rejection=%s\n", cudyn::RejectionName(c.rejection));
  }
  for (const std::string& w : driver.warnings()) std::printf("warning=%s\n", w.c_str());
  cudyn::Runtime& runtime = cudyn::DefaultRuntime();
  std::printf("runtime_error=%d\n", runtime.error());
  std::printf("runtime_path=%s\n", runtime.path().c_str());
  std::printf("runtime_found_by=%s\n",
              runtime.ok() ? cudyn::RuntimeSourceName(runtime.found_by()) : "");
  for (const cudyn::RuntimeCandidate& c : runtime.candidates()) {
    std::printf("runtime_candidate=%s|%s|%s\n", cudyn::RuntimeSourceName(c.source),
                c.path.c_str(), c.reason.c_str());
    std::printf("runtime_rejection=%s\n", cudyn::RuntimeRejectionName(c.rejection));
  }
  for (const std::string& w : runtime.warnings()) std::printf("runtime_warning=%s\n", w.c_str());
  PrintToolkit("nvrtc", cudyn::DefaultNvrtc());
  PrintToolkit("cublas", cudyn::DefaultCublas());
  return 0;
}
