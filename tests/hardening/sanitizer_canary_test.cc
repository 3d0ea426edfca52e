// The sanitizer steps check something: in each build configuration, a child of this test commits
// one defect of each kind (a heap overflow, a signed overflow, a data race) and the test asserts
// that exactly the sanitizers of that configuration (.bazelrc, told here through
// CUDYN_SANITIZERS) stop it, with a report that names this file. The plain build must stop none:
// what ships is not instrumented.
//
// Why it exists: the ASan/UBSan step compiles UBSan's checks as traps (.bazelrc, asan_ubsan); a
// flag that silently turned the checks off would leave that step green and empty.
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "gtest/gtest.h"

#ifndef CUDYN_SANITIZERS
#error "BUILD sets CUDYN_SANITIZERS (none, asan, ubsan, tsan, asan_ubsan_trap)"
#endif

namespace {

// Each defect reads its input from the command line so that no compiler folds it away.
int HeapOverflow(int n) {
  char* p = static_cast<char*>(std::malloc(16));
  std::memset(p, 0, 16);
  volatile char c = p[16 + n];  // one past the end (n == 0)
  std::free(p);
  return c;
}

int SignedOverflow(int n) {
  volatile int x = INT_MAX;
  return x + n;  // n == 1
}

int Race(int n) {
  static int shared = 0;  // written by two threads with nothing ordering them
  std::thread a([n] { shared += n; });
  std::thread b([n] { shared += n; });
  a.join();
  b.join();
  return shared;
}

int Child(const std::string& defect, int n) {
  int r = 0;
  if (defect == "heap") r = HeapOverflow(n);
  if (defect == "overflow") r = SignedOverflow(n);
  if (defect == "race") r = Race(n);
  std::printf("survived %d\n", r);
  return 0;
}

struct Outcome {
  bool stopped = false;  // exited non-zero or died
  std::string report;    // its stderr
};

Outcome RunChild(const char* defect, const char* n) {
  int err[2];
  if (pipe(err) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    execl("/proc/self/exe", "sanitizer_canary_test", "--child", defect, n, nullptr);
    _exit(127);
  }
  close(err[1]);
  Outcome out;
  char buf[4096];
  ssize_t got;
  while ((got = read(err[0], buf, sizeof buf)) > 0) out.report.append(buf, got);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  out.stopped = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return out;
}

const std::string kConfig = CUDYN_SANITIZERS;

bool Has(const char* sanitizer) {
  if (kConfig == "asan_ubsan_trap") return std::strcmp(sanitizer, "tsan") != 0;
  return kConfig == sanitizer;
}

TEST(SanitizerCanary, AddressSanitizerStopsAHeapOverflowExactlyWhereItRuns) {
  Outcome o = RunChild("heap", "0");
  EXPECT_EQ(o.stopped, Has("asan")) << kConfig << ":\n" << o.report;
  if (Has("asan")) {
    EXPECT_NE(o.report.find("heap-buffer-overflow"), std::string::npos) << o.report;
    EXPECT_NE(o.report.find("sanitizer_canary_test.cc"), std::string::npos) << o.report;
  }
}

TEST(SanitizerCanary, UndefinedBehaviorSanitizerStopsASignedOverflowExactlyWhereItRuns) {
  Outcome o = RunChild("overflow", "1");
  EXPECT_EQ(o.stopped, Has("ubsan")) << kConfig << ":\n" << o.report;
  if (kConfig == "ubsan") {
    EXPECT_NE(o.report.find("signed integer overflow"), std::string::npos) << o.report;
  }
  if (kConfig == "asan_ubsan_trap") {
    // A trap (ud2), reported by ASan's SIGILL handler (handle_sigill=1) with file and line.
    EXPECT_NE(o.report.find("ILL"), std::string::npos) << o.report;
    EXPECT_NE(o.report.find("sanitizer_canary_test.cc"), std::string::npos) << o.report;
  }
}

TEST(SanitizerCanary, ThreadSanitizerStopsADataRaceExactlyWhereItRuns) {
  Outcome o = RunChild("race", "1");
  EXPECT_EQ(o.stopped, Has("tsan")) << kConfig << ":\n" << o.report;
  if (Has("tsan")) {
    EXPECT_NE(o.report.find("data race"), std::string::npos) << o.report;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) return Child(argv[2], std::atoi(argv[3]));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
