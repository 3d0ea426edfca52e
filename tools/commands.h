// cudyn-check's subcommands, each a function over the parsed arguments (args.h), and what they
// share. The subcommand table (subcommands.h) names them; RunCheck (check.h) dispatches through it.
#ifndef CUDYN_TOOLS_COMMANDS_H_
#define CUDYN_TOOLS_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/args.h"
#include "tools/binary_analysis.h"
#include "tools/binary_verdict.h"
#include "tools/check_common.h"
#include "tools/layers/kernel_layer.h"

namespace cudyn {
struct ToolkitTraits;
namespace check {

// The subcommands (their rows in subcommands.h).
int RunReport(const Args& args, std::ostream& out, std::ostream& err);
int RunApis(const Args& args, std::ostream& out, std::ostream& err);
int RunBinary(const Args& args, std::ostream& out, std::ostream& err);
int RunDrivers(const Args& args, std::ostream& out, std::ostream& err);
int RunRuntimes(const Args& args, std::ostream& out, std::ostream& err);
// `cudyn-check <library>` for a library on the toolkit template, and `libraries` (all of them).
int RunToolkit(const ToolkitTraits& traits, const Args& args, std::ostream& out,
               std::ostream& err);
int RunLibraries(const Args& args, std::ostream& out, std::ostream& err);

// Shared by the driver-opening subcommands: parses --driver (made absolute) /
// --max-cuda-version / --search-root; prints the usage error and returns false when bad.
bool ParseOpenRequest(const Args& args, const char* command, OpenRequest* request,
                      std::ostream& err);
// Writes the "no driver" answer (JSON or text) and returns kExitNoDriver.
int ReportNoDriver(const Args& args, const char* command, const OpenedDriver& opened,
                   const Json& extra_findings, std::ostream& out);

// ---- binary -----------------------------------------------------------------------------------
// The layers of `binary`: check_inputs.h (which files) -> binary_analysis.h (each read once) ->
// binary_verdict.h (judged) -> check_binary_print.h (printed); RunBinary wires them together.

// "sm_90,sm_80a" / "90" / "9.0" -> GPUs; "none" -> no GPU. False (and *error) when malformed.
bool ParseGpuList(const std::string& text, std::vector<layers::GpuArch>* out, bool* none,
                  std::string* error);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_COMMANDS_H_
