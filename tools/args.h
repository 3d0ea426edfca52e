// A parsed cudyn-check command line: the subcommand, global flags, every option's values and the
// positional arguments. Plain data: cli_args.h fills it, the subcommands (commands.h) read it.
#ifndef CUDYN_TOOLS_ARGS_H_
#define CUDYN_TOOLS_ARGS_H_

#include <map>
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

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_ARGS_H_
