// See choose_child.h.
#include "tests/util/choose_child.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "gtest/gtest.h"

extern char** environ;

namespace cudyn {
namespace testing {

ProgramRun RunProgram(const std::string& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& extra, bool foreign_leak) {
  ProgramRun run;
  int fds[2];
  if (pipe(fds) != 0) return run;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && std::strncmp(*e, "CUDYN_", 6) != 0 &&
        std::strncmp(*e, "CUDA_HOME=", 10) != 0 && std::strncmp(*e, "CUDA_PATH=", 10) != 0) {
      env.push_back(*e);
      if (foreign_leak && std::strncmp(*e, "ASAN_OPTIONS=", 13) == 0) {
        env.back() += ":detect_leaks=0";
      }
    }
  }
  env.push_back("CUDYN_LOG=off");
  env.insert(env.end(), extra.begin(), extra.end());
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : all) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) run.raw.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(run.raw);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) run.answer[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return run;
}

ChildAnswer RunChild(const std::vector<std::string>& args, const ChildEnvironment& c) {
  std::string library_path;
  for (const std::string& d : c.ld_library_path) library_path += d + ":";
  std::vector<std::string> env = {
      "LD_LIBRARY_PATH=" + library_path +
          (c.driver.empty() ? std::string("/nonexistent")
                            : c.driver.substr(0, c.driver.rfind('/'))),
      "CUDYN_DRIVER_PATH=" +
          (c.driver.empty() ? std::string("/nonexistent/libcuda.so.1") : c.driver)};
  if (!c.clamp.empty()) env.push_back("CUDYN_MAX_CUDA_VERSION=" + c.clamp);
  ProgramRun run = RunProgram("/proc/self/exe", args, env, c.foreign_leak);
  EXPECT_EQ(run.exit_code, 0) << "child output:\n" << run.raw;
  return run.answer;
}

std::string MappedFiles(const char* marker) {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> mapped;
  for (std::string line; std::getline(maps, line);) {
    const size_t at = line.find('/');
    if (at != std::string::npos && line.find(marker) != std::string::npos) {
      mapped.insert(line.substr(at));
    }
  }
  std::string out;
  for (const std::string& m : mapped) out += (out.empty() ? "" : ",") + m;
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
