// cudyn-check: the compat-check CLI as a library (tools/cudyn_check.cc is its main()).
// See tools/README.md for the subcommands, the --json schema and the exit codes.
#ifndef CUDYN_TOOLS_CHECK_H_
#define CUDYN_TOOLS_CHECK_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tools/check_common.h"
#include "tools/cli_args.h"
#include "tools/layers/kernel_layer.h"
#include "tools/layers/runtime_layer.h"
#include "tools/layers/verdict.h"

namespace cudyn {
namespace check {

// Runs the CLI on argv (without the program name), writing the result to `out` and diagnostics
// to `err`. Returns the exit code (ExitCode). Never throws.
int RunCheck(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// Help text of a subcommand ("" = the overview).
std::string HelpText(const std::string& command);

int RunReport(const Args& args, std::ostream& out, std::ostream& err);
int RunApis(const Args& args, std::ostream& out, std::ostream& err);
int RunBinary(const Args& args, std::ostream& out, std::ostream& err);
int RunDrivers(const Args& args, std::ostream& out, std::ostream& err);
int RunRuntimes(const Args& args, std::ostream& out, std::ostream& err);

// Shared by the driver-opening subcommands: parses --driver (made absolute) /
// --max-cuda-version / --search-root; prints the usage error and returns false when bad.
bool ParseOpenRequest(const Args& args, const char* command, OpenRequest* request,
                      std::ostream& err);
// Writes the "no driver" answer (JSON or text) and returns kExitNoDriver.
int ReportNoDriver(const Args& args, const char* command, const OpenedDriver& opened,
                   const Json& extra_findings, std::ostream& out);

// ---- binary -----------------------------------------------------------------------------------

// One imported driver-API symbol (an undefined dynamic symbol named cu[A-Z]*).
struct ImportedApi {
  std::string symbol;
  std::string base;         // "" when unknown
  int entry = -1;           // table index, -1 when the table does not know it
  int abi_version = 0;      // minimum CUDA driver version; 0 when unknown
  bool weak = false;        // weak imports do not decide the verdict (the binary loads without)
};

// A driver entry point the file names as a string (in .rodata / .dynstr) without importing it:
// a program that looks it up at run time (dlsym / cuGetProcAddress). Information only.
struct NamedApi {
  std::string symbol;
  int abi_version = 0;  // the table's minimum CUDA driver version
};

enum class Verdict { kError, kPortable, kNotApplicable, kCompatible, kIncompatible, kUndecided };
const char* VerdictName(Verdict verdict);  // "error", "portable", "not_applicable", ...

struct BinaryAnalysis {
  std::string path;
  std::string error;  // non-empty: unreadable / not ELF / malformed ("<path>: <reader message>")
  int elf_class = 0;
  uint16_t elf_machine = 0;  // e_machine
  std::string machine;
  std::string type;   // "executable", "shared object", "relocatable", "core", "unknown"
  bool is_dynamic = false;
  std::string soname;
  std::vector<std::string> needed;          // every DT_NEEDED, in file order
  std::vector<std::string> rpath;           // DT_RPATH entries
  std::vector<std::string> runpath;         // DT_RUNPATH entries
  std::vector<std::string> libcuda_needed;  // DT_NEEDED libcuda.so*
  std::vector<std::string> cudart_needed;   // DT_NEEDED libcudart.so*
  std::vector<std::string> cudyn_needed;    // DT_NEEDED libcudyn_cuda.so*
  int defined_driver_symbols = 0;           // cu* table symbols it defines (exports)
  bool static_cudyn_marker = false;         // the cudyn loader is compiled in (see README)
  bool is_driver_library = false;           // it is a libcuda itself (SONAME libcuda.so.*)
  std::vector<ImportedApi> imports;
  // cu[A-Z]* imports that are not the driver's: names the tables do not know, in a file that does
  // not link libcuda (or cudyn), or defined by another DT_NEEDED library found on this machine
  // (libcufile's cuFileRead ...). Information only.
  std::vector<std::string> other_cu_imports;
  std::vector<std::string> warnings;        // from the ELF reader
  // The runtime and kernel layers (tools/layers), from the same mapping of the file.
  layers::RuntimeLayer runtime;
  layers::KernelLayer kernels;
  // Table entry points named as strings, not imported and not defined; newest first, then by name.
  std::vector<NamedApi> named;
  bool links_cudyn() const {
    return !cudyn_needed.empty() || defined_driver_symbols > 0 || static_cudyn_marker;
  }
  // Highest abi_version over the known, non-weak imports (0 if none).
  int needs_version() const;
  // Non-weak imports the table does not know: no driver version can be shown to satisfy them.
  std::vector<std::string> unknown_symbols() const;
};

// Maps `path` once and reads it whole (ELF reader, fatbin reader, runtime and kernel layers, the
// named entry points, the static-cudyn marker). Never throws; `error` is set on failure.
BinaryAnalysis AnalyzeBinary(const std::string& path);
// The same for an image in memory (a member of a wheel); `name` is how it is reported.
BinaryAnalysis AnalyzeBinaryImage(const std::string& name, const uint8_t* data, size_t size);

// What a file is judged against.
struct BinaryTarget {
  int version = 0;                    // CUDA driver version; 0 = none known
  std::vector<layers::GpuArch> gpus;  // empty: no GPU known
};

struct BinaryVerdict {
  Verdict verdict = Verdict::kError;
  std::string reason;                 // one line
  std::vector<std::string> too_new;   // imports whose abi_version > target
  // Set by JudgeFile: the verdict of each layer in decision order (driver API, runtime, then the
  // kernels once per GPU, or once without a GPU), the GPU of each ("" when none), and the
  // failing layer that decides (kNone when the file runs) with its CUDA error (35/209/222; 0
  // for the driver API: the dynamic linker refuses the file).
  std::vector<layers::LayerVerdict> layers;
  std::vector<std::string> layer_gpus;
  layers::Layer deciding_layer = layers::Layer::kNone;
  int cuda_error = 0;
};
// The driver-API layer alone (imports vs target). target: 0 = no target known.
BinaryVerdict Judge(const BinaryAnalysis& analysis, int target);
// Every layer: the driver-API verdict (Judge) is layers::Decide's `earlier` layer, then the
// runtime, then the kernels. The first failing layer makes the file incompatible.
BinaryVerdict JudgeFile(const BinaryAnalysis& analysis, const BinaryTarget& target);

// The oldest CUDA driver on which JudgeFile lets the file run on every one of `gpus`, found by
// judging it at each version where a rule changes (the imports' needs, the runtime's minimum,
// the ISA of each PTX image). version 0: any driver; -1: none (a layer fails on every driver,
// e.g. no kernel image for a GPU). `layer`/`reason`: the layer that fails just below the answer.
struct MinimumDriver {
  int version = 0;
  layers::Layer layer = layers::Layer::kNone;
  std::string reason;
};
MinimumDriver FindMinimumDriver(const BinaryAnalysis& analysis,
                                const std::vector<layers::GpuArch>& gpus);

// "sm_90,sm_80a" / "90" / "9.0" -> GPUs; "none" -> no GPU. False (and *error) when malformed.
bool ParseGpuList(const std::string& text, std::vector<layers::GpuArch>* out, bool* none,
                  std::string* error);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_H_
