// Test helper: runs the built cudyn-check as its own process and keeps what it printed.
#ifndef CUDYN_TOOLS_TESTING_RUN_TOOL_H_
#define CUDYN_TOOLS_TESTING_RUN_TOOL_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace cudyn {
namespace check {
namespace testing {

using Json = nlohmann::ordered_json;

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  Json json;             // stdout parsed, when it is JSON
  bool json_ok = false;
  long max_rss_kib = -1;  // the process's peak resident set (wait4's ru_maxrss), KiB
};

// The cudyn-check of the test's runfiles.
std::string Tool();

// Runs cudyn-check with `args`. The environment is the test's minus LD_LIBRARY_PATH and CUDYN_*,
// plus `extra_env` ("NAME=value").
ToolRun RunTool(const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {});

// "exit N" and the start of stdout and stderr, for failure messages.
std::string Describe(const ToolRun& run);

std::string ReadFile(const std::string& path);

}  // namespace testing
}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_TESTING_RUN_TOOL_H_
