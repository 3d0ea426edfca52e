// `cudyn-check binary`, the verdict layer: one verdict per file from its analysis
// (binary_analysis.h) and a target (a CUDA driver version, GPUs): the driver-API layer here, then
// layers::Decide for the runtime and kernel layers, then (a set of files with --deps) the
// dependencies layer; the oldest driver that runs each file and the whole set; exit codes. No
// reading and no printing here.
#ifndef CUDYN_TOOLS_BINARY_VERDICT_H_
#define CUDYN_TOOLS_BINARY_VERDICT_H_

#include <string>
#include <vector>

#include "tools/binary_analysis.h"
#include "tools/binary_nvml.h"
#include "tools/check_inputs.h"
#include "tools/layers/kernel_layer.h"
#include "tools/layers/verdict.h"

namespace cudyn {
namespace check {

enum class Verdict { kError, kPortable, kNotApplicable, kCompatible, kIncompatible, kUndecided };
const char* VerdictName(Verdict verdict);  // "error", "portable", "not_applicable", ...

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
  // Its NVML imports against the target's NVML branch (set by JudgeFile); a file linked with
  // -lnvidia-ml that the branch's NVML lacks an import of is incompatible.
  NvmlFinding nvml;
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

// Exit code of one file's verdict (0/1/2/3).
int ExitFor(Verdict verdict);
// Precedence of the per-file exit codes, for the process's (the worst wins): 2 (an input could
// not be read) > 3 (undecided) > 1 (incompatible) > 0.
int ExitRank(int code);
// "35 cudaErrorInsufficientDriver".
std::string CudaErrorText(int error);

// ---- sets of files (directories, wheels, --deps) ----------------------------------------------

// One collected file with its verdict and the oldest driver that runs it.
struct JudgedInput {
  InputFile input;
  BinaryVerdict verdict;
  MinimumDriver minimum;
};

// Judges every collected file against `target` (its verdict and minimum driver); with `deps`, then
// the dependencies layer (loader/DESIGN.md layer 4) over `inputs.edges`. In the order of inputs.files,
// which are moved out.
std::vector<JudgedInput> JudgeInputs(InputSet* inputs, const BinaryTarget& target, bool deps);

// The oldest driver for the whole set: the highest minimum over the readable files, each by its
// own layers (a minimum inherited from a dependency names that dependency, also in the set); a
// file that no driver runs (version -1) decides it.
struct SetMinimum {
  int version = 0;
  std::string path;  // the file that sets it ("" when every file runs on any driver)
  layers::Layer layer = layers::Layer::kNone;
  std::string reason;
};
SetMinimum FindSetMinimum(const std::vector<JudgedInput>& files);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_BINARY_VERDICT_H_
