// See choose_child.h.
#include "tests/util/choose_child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "gtest/gtest.h"

extern char** environ;

namespace cudyn {
namespace testing {

ChildAnswer RunChild(const std::vector<std::string>& args, const ChildEnvironment& c) {
  ChildAnswer out;
  int fds[2];
  if (pipe(fds) != 0) return out;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && std::strncmp(*e, "CUDYN_", 6) != 0) {
      env.push_back(*e);
      if (c.foreign_leak && std::strncmp(*e, "ASAN_OPTIONS=", 13) == 0) {
        env.back() += ":detect_leaks=0";
      }
    }
  }
  std::string library_path;
  for (const std::string& d : c.ld_library_path) library_path += d + ":";
  env.push_back("LD_LIBRARY_PATH=" + library_path +
                (c.driver.empty() ? std::string("/nonexistent")
                                  : c.driver.substr(0, c.driver.rfind('/'))));
  env.push_back("CUDYN_DRIVER_PATH=" +
                (c.driver.empty() ? std::string("/nonexistent/libcuda.so.1") : c.driver));
  env.push_back("CUDYN_LOG=off");
  if (!c.clamp.empty()) env.push_back("CUDYN_MAX_CUDA_VERSION=" + c.clamp);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::vector<std::string> all = {"/proc/self/exe"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : all) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execve("/proc/self/exe", argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

void ExpectRefusedUnloadedByName(const ChildAnswer& r, const std::string& name,
                                 const std::string& rejection, int min_driver,
                                 const std::string& reason_piece) {
  SCOPED_TRACE(name);
  auto at = [&r](const std::string& key) {
    auto it = r.find(key);
    return it != r.end() ? it->second : std::string();
  };
  int found = -1;
  for (int k = 0; k < std::atoi(at("candidates").c_str()); ++k) {
    if (at("cand." + std::to_string(k)) == name + "|" + rejection + "|0") found = k;
  }
  ASSERT_GE(found, 0) << "not refused by its name";
  const std::string k = std::to_string(found);
  EXPECT_EQ(at("source." + k), "default search");
  EXPECT_EQ(at("min_driver." + k), std::to_string(min_driver));
  const std::string reason = at("reason." + k);
  EXPECT_NE(reason.find("(SONAME " + name), std::string::npos) << reason;
  EXPECT_NE(reason.find(reason_piece), std::string::npos) << reason;
  EXPECT_NE(reason.find("not loaded)"), std::string::npos) << reason;
}

}  // namespace testing
}  // namespace cudyn
