// cudyn-check: dispatch and help, through the subcommand table (subcommands.h).
#include "tools/check.h"

#include <cstdlib>

#include "tools/cli_args.h"
#include "tools/subcommands.h"
#include "tools/version/cudyn_version.h"

namespace cudyn {
namespace check {

int RunCheck(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  try {
    // The report already says everything the loader would log; keep its stderr quiet unless the
    // user asked for it.
    if (std::getenv("CUDYN_LOG") == nullptr) setenv("CUDYN_LOG", "off", 0);
    if (argv.size() == 1 && argv[0] == "--version") {
      out << "cudyn-check " << CUDYN_VERSION_STRING << "\n";
      return kExitOk;
    }
    Args args;
    std::string error = ParseArgs(argv, &args);
    if (!error.empty()) {
      err << "cudyn-check: " << error << "\n"
          << "run 'cudyn-check --help' or 'cudyn-check "
          << (args.command_given ? args.command : std::string("SUBCOMMAND")) << " --help'\n";
      return kExitUsage;
    }
    const Subcommand* subcommand = FindSubcommand(args.command);
    if (subcommand == nullptr) {  // ParseArgs refuses these already
      err << "cudyn-check: unknown subcommand '" << args.command << "'\n";
      return kExitUsage;
    }
    // `help` answers --help itself (the help of its topic).
    if (args.help && subcommand->run != RunHelp) {
      out << HelpText(args.command_given ? args.command : "");
      return kExitOk;
    }
    if (subcommand->toolkit != nullptr) return RunToolkit(*subcommand->toolkit, args, out, err);
    return subcommand->run(args, out, err);
  } catch (const std::exception& e) {
    err << "cudyn-check: internal error: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace check
}  // namespace cudyn
