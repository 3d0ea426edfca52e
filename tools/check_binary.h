// Internal to `cudyn-check binary` (check_binary.cc: readers, layers, verdict, RunBinary;
// check_binary_print.cc: the human and JSON printers).
#ifndef CUDYN_TOOLS_CHECK_BINARY_H_
#define CUDYN_TOOLS_CHECK_BINARY_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/check.h"

namespace cudyn {
namespace check {

std::string Join(const std::vector<std::string>& items, const std::string& sep);
// "DT_NEEDED libcudyn_cuda.so; defines 12 driver-API symbols itself ...".
std::string CudynEvidence(const BinaryAnalysis& a);

// Exit code of one file's verdict (0/1/2/3).
int ExitFor(Verdict verdict);

// The runtime layer's finding in one line: "embeds the CUDA runtime 13.0 (static) -> needs a
// 13.0 driver", "none (no CUDA runtime linked or embedded)".
std::string RuntimeFindingText(const layers::RuntimeLayer& r);
// The kernel layer's finding in one line: "sm_75 SASS, compute_75 PTX (ISA 9.0)".
std::string KernelSummaryText(const layers::KernelLayer& k);
// "35 cudaErrorInsufficientDriver".
std::string CudaErrorText(int error);

// How many named entry points the human output shows by name (newest first).
constexpr size_t kNamedShown = 5;

// `files[]` entry of the JSON answer.
Json BinaryFileJson(const BinaryAnalysis& a, const BinaryVerdict& v, int target);
// The human block of one readable file.
void PrintBinaryFile(std::ostream& out, const BinaryAnalysis& a, const BinaryVerdict& v,
                     int target);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_BINARY_H_
