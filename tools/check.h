// cudyn-check: the compat-check CLI as a library (tools/cudyn_check.cc is its main()).
// See tools/README.md for the subcommands, the --json schema and the exit codes.
#ifndef CUDYN_TOOLS_CHECK_H_
#define CUDYN_TOOLS_CHECK_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/subcommands.h"

namespace cudyn {
namespace check {

// Runs the CLI on argv (without the program name), writing the result to `out` and diagnostics
// to `err`. Returns the exit code (ExitCode). Never throws.
int RunCheck(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_H_
