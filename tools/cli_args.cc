#include "tools/cli_args.h"

#include <algorithm>
#include <optional>

#include "tools/subcommands.h"

namespace cudyn {
namespace check {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Every value option of every subcommand: lets "--driver PATH report" take PATH as the value
// before the subcommand is known.
bool IsValueOption(const std::string& name) {
  for (const Subcommand& s : Subcommands()) {
    if (Contains(s.value_options, name)) return true;
  }
  return false;
}

bool IsFlagOption(const std::string& name) {
  for (const Subcommand& s : Subcommands()) {
    if (Contains(s.flag_options, name)) return true;
  }
  return false;
}

}  // namespace

std::string ParseArgs(const std::vector<std::string>& argv, Args* out) {
  *out = Args();
  std::vector<std::string> errors;  // reported unless --help is present
  std::vector<std::string> given_options;
  bool options_ended = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    if (!options_ended && arg.size() > 1 && arg[0] == '-') {
      if (arg == "-h" || arg == "--help") {
        out->help = true;
        continue;
      }
      if (arg == "--json") {
        out->json = true;
        continue;
      }
      std::string name = arg;
      std::optional<std::string> value;
      size_t eq = arg.find('=');
      if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
      if (name == "--json" || name == "--help") {
        errors.push_back("option " + name + " takes no value");
        continue;
      }
      if (IsFlagOption(name)) {
        if (value) {
          errors.push_back("option " + name + " takes no value");
          continue;
        }
        out->flags.insert(name);
        given_options.push_back(name);
        continue;
      }
      if (!IsValueOption(name)) {
        errors.push_back("unknown option '" + name + "'");
        continue;
      }
      if (!value) {
        if (i + 1 >= argv.size()) {
          errors.push_back("option " + name + " needs a value");
          continue;
        }
        value = argv[++i];
      }
      out->values[name] = *value;
      out->all_values[name].push_back(*value);
      given_options.push_back(name);
      continue;
    }
    if (!out->command_given) {
      if (FindSubcommand(arg) == nullptr) {
        // Always an error, even with --help: there is no such subcommand to describe.
        return "unknown subcommand '" + arg + "' (expected one of: " + SubcommandNames() + ")";
      }
      out->command = arg;
      out->command_given = true;
      continue;
    }
    out->positional.push_back(arg);
  }
  if (!out->command_given) out->command = Subcommands().front().name;
  const Subcommand& command = *FindSubcommand(out->command);
  for (const std::string& option : given_options) {
    if (!Contains(command.value_options, option) && !Contains(command.flag_options, option)) {
      errors.push_back("option " + option + " does not apply to '" + out->command + "'");
    }
  }
  if (!out->positional.empty() && command.positionals == Positionals::kNone) {
    errors.push_back("unexpected argument '" + out->positional.front() + "' for '" +
                     out->command + "'");
  }
  if (command.positionals == Positionals::kTopic && out->positional.size() > 1) {
    errors.push_back(out->command + " takes at most one subcommand name");
  }
  if (out->help || errors.empty()) return "";
  return errors.front();
}

}  // namespace check
}  // namespace cudyn
