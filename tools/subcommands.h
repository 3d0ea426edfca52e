// The subcommands of cudyn-check, in one table: the argument parser (cli_args.cc) takes their
// names, options and positional arguments from it, RunCheck dispatches through it, and the help
// texts (the overview's list too) come from it. Adding a subcommand is adding a row.
#ifndef CUDYN_TOOLS_SUBCOMMANDS_H_
#define CUDYN_TOOLS_SUBCOMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/args.h"

namespace cudyn {
struct ToolkitTraits;
namespace check {

// What a subcommand accepts after its name besides options.
enum class Positionals {
  kNone,   // nothing
  kFiles,  // any number of files (binary)
  kTopic,  // at most one subcommand name (help)
};

struct Subcommand {
  const char* name;
  const char* summary;                     // its line in the overview help
  std::vector<std::string> value_options;  // "--driver", ... (take a value)
  std::vector<std::string> flag_options;   // "--deps", ... (take none)
  Positionals positionals;
  int (*run)(const Args& args, std::ostream& out, std::ostream& err);
  const char* help;                        // its whole help text
  // A library on the toolkit template: run is RunToolkit for it (check_toolkit.cc).
  const ToolkitTraits* toolkit = nullptr;
};

// Every subcommand, in help order; the first is the default (no subcommand given).
const std::vector<Subcommand>& Subcommands();
// The row named `name`, or nullptr.
const Subcommand* FindSubcommand(const std::string& name);
// "report, apis, binary, drivers, runtimes, help".
std::string SubcommandNames();
// The help without a subcommand: usage, one line per subcommand, global options.
std::string OverviewHelp();
// Help text of a subcommand ("" or an unknown name = the overview).
std::string HelpText(const std::string& command);
// `help [SUBCOMMAND]`: its row's run.
int RunHelp(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_SUBCOMMANDS_H_
