// Command-line parsing for cudyn-check: a subcommand, global --json/--help, per-subcommand value
// options ("--name VALUE" or "--name=VALUE"), positional arguments (files for `binary`), and "--"
// to end options. Parsing never exits; errors come back as text for a usage error (exit 2).
#ifndef CUDYN_TOOLS_CLI_ARGS_H_
#define CUDYN_TOOLS_CLI_ARGS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudyn {
namespace check {

struct Args {
  std::string command;        // a subcommand's name (subcommands.h)
  bool command_given = false; // false when the command defaulted to "report"
  bool json = false;
  bool help = false;
  std::map<std::string, std::string> values;  // "--driver" -> "/path" (the last one wins)
  // Every value of every option, in command-line order (for repeatable options such as --gpu).
  std::map<std::string, std::vector<std::string>> all_values;
  std::vector<std::string> positional;
  std::set<std::string> flags;  // options without a value given ("--deps")

  bool has(const std::string& option) const { return values.count(option) != 0; }
  bool flag(const std::string& option) const { return flags.count(option) != 0; }
  std::string get(const std::string& option) const {
    auto it = values.find(option);
    return it == values.end() ? std::string() : it->second;
  }
  std::vector<std::string> get_all(const std::string& option) const {
    auto it = all_values.find(option);
    return it == all_values.end() ? std::vector<std::string>() : it->second;
  }
};

// Parses argv without the program name against the subcommand table (subcommands.h: names,
// options, positionals). Returns "" on success, else the usage error text. With --help anywhere,
// unknown options and bad positionals are not errors (help wins).
std::string ParseArgs(const std::vector<std::string>& argv, Args* out);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CLI_ARGS_H_
