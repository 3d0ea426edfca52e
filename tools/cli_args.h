// Command-line parsing for cudyn-check: a subcommand, global --json/--help, per-subcommand value
// options ("--name VALUE" or "--name=VALUE"), positional arguments (files for `binary`), and "--"
// to end options. Parsing never exits; errors come back as text for a usage error (exit 2).
#ifndef CUDYN_TOOLS_CLI_ARGS_H_
#define CUDYN_TOOLS_CLI_ARGS_H_

#include <string>
#include <vector>

#include "tools/args.h"

namespace cudyn {
namespace check {

// Parses argv without the program name against the subcommand table (subcommands.h: names,
// options, positionals). Returns "" on success, else the usage error text. With --help anywhere,
// unknown options and bad positionals are not errors (help wins).
std::string ParseArgs(const std::vector<std::string>& argv, Args* out);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CLI_ARGS_H_
