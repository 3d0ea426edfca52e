#include "tools/testing/run_tool.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/util/runfiles.h"

extern char** environ;

namespace cudyn {
namespace check {
namespace testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tool() { return ::cudyn::testing::Runfile("tools/cudyn-check"); }

ToolRun RunTool(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  ToolRun run;
  static int counter = 0;
  const std::string dir = ::cudyn::testing::MakeTempDir("run");
  const std::string out_path = dir + "/out" + std::to_string(counter);
  const std::string err_path = dir + "/err" + std::to_string(counter++);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.compare(0, 16, "LD_LIBRARY_PATH=") == 0 || kv.compare(0, 6, "CUDYN_") == 0) continue;
    env_strings.push_back(kv);
  }
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (std::string& kv : env_strings) envp.push_back(&kv[0]);
  envp.push_back(nullptr);
  const std::string tool = Tool();
  std::vector<std::string> argv_strings = {tool};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execve(tool.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) == pid) run.max_rss_kib = usage.ru_maxrss;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = ReadFile(out_path);
  run.err = ReadFile(err_path);
  run.json = Json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  run.json_ok = !run.json.is_discarded();
  return run;
}

std::string Describe(const ToolRun& run) {
  return "exit " + std::to_string(run.exit_code) + "\n--- stdout ---\n" + run.out.substr(0, 6000) +
         "\n--- stderr ---\n" + run.err.substr(0, 2000);
}

}  // namespace testing
}  // namespace check
}  // namespace cudyn
