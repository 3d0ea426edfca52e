#include "tools/cli_args.h"

#include <algorithm>

namespace cudyn {
namespace check {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Every value option of every subcommand: lets "--driver PATH report" take PATH as the value
// before the subcommand is known.
const std::vector<std::string>& AllValueOptions() {
  static const std::vector<std::string>* const kAll = [] {
    auto* all = new std::vector<std::string>();
    for (const std::string& command : Commands()) {
      for (const std::string& option : ValueOptions(command)) {
        if (!Contains(*all, option)) all->push_back(option);
      }
    }
    return all;
  }();
  return *kAll;
}

bool IsFlagOption(const std::string& name) {
  for (const std::string& command : Commands()) {
    if (Contains(FlagOptions(command), name)) return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& Commands() {
  static const std::vector<std::string>* const kCommands =
      new std::vector<std::string>{"report", "apis", "binary", "drivers", "runtimes", "help"};
  return *kCommands;
}

const std::vector<std::string>& FlagOptions(const std::string& command) {
  static const std::vector<std::string>* const kBinary = new std::vector<std::string>{"--deps"};
  static const std::vector<std::string>* const kReport = new std::vector<std::string>{"--nfd"};
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  if (command == "binary") return *kBinary;
  if (command == "report") return *kReport;
  return *kNone;
}

const std::vector<std::string>& ValueOptions(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>>* const kOptions =
      new std::map<std::string, std::vector<std::string>>{
          {"report", {"--driver", "--max-cuda-version", "--search-root", "--output"}},
          {"apis", {"--driver", "--max-cuda-version", "--search-root", "--status", "--base"}},
          {"binary",
           {"--target-version", "--gpu", "--driver", "--max-cuda-version", "--search-root"}},
          {"drivers", {"--search-root"}},
          {"runtimes", {"--driver", "--max-cuda-version", "--search-root", "--root"}},
          {"help", {}},
      };
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  auto it = kOptions->find(command);
  return it == kOptions->end() ? *kNone : it->second;
}

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
      if (!Contains(AllValueOptions(), name)) {
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
      if (!Contains(Commands(), arg)) {
        // Always an error, even with --help: there is no such subcommand to describe.
        return "unknown subcommand '" + arg +
               "' (expected one of: report, apis, binary, drivers, runtimes, help)";
      }
      out->command = arg;
      out->command_given = true;
      continue;
    }
    out->positional.push_back(arg);
  }
  if (!out->command_given) out->command = "report";
  const std::vector<std::string>& allowed = ValueOptions(out->command);
  for (const std::string& option : given_options) {
    if (!Contains(allowed, option) && !Contains(FlagOptions(out->command), option)) {
      errors.push_back("option " + option + " does not apply to '" + out->command + "'");
    }
  }
  if (!out->positional.empty() && out->command != "binary" && out->command != "help") {
    errors.push_back("unexpected argument '" + out->positional.front() + "' for '" +
                     out->command + "'");
  }
  if (out->command == "help" && out->positional.size() > 1) {
    errors.push_back("help takes at most one subcommand name");
  }
  if (out->help || errors.empty()) return "";
  return errors.front();
}

}  // namespace check
}  // namespace cudyn
