// `cudyn-check binary`, the printers: the human text and the --json document of an answer (the
// target, the GPUs, every judged file, the set). They only format what the analysis
// (binary_analysis.h) and the verdict (binary_verdict.h) decided.
#ifndef CUDYN_TOOLS_CHECK_BINARY_PRINT_H_
#define CUDYN_TOOLS_CHECK_BINARY_PRINT_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tools/binary_verdict.h"
#include "tools/check_common.h"

namespace cudyn {
namespace check {

// Everything `binary` answers.
struct BinaryAnswer {
  BinaryTarget target;
  std::string target_text;  // "CUDA 12.2 (12020) (--target-version)", "none: no driver ..."
  Json target_json;         // {"version", "version_text", "source"}; null without a target
  Json driver_json;         // Driver, or {"error", "candidates"}; null with --target-version
  // A driver that did not open while it was to give the target: its candidates are listed.
  const Driver* failed_driver = nullptr;
  std::string gpu_source;   // "--gpu", "driver", "none"
  std::string gpu_note;     // why there is no GPU ("--gpu none", "cuInit(0) returned 100 ...")
  InputSet inputs;          // what was collected (its files are in `files`)
  std::vector<JudgedInput> files;
  bool is_set = false;      // more files than the arguments named: print the set's summary
  SetMinimum set_minimum;
  int exit_code = 0;
};

// The --json document (tools/README.md "binary").
Json BinaryAnswerJson(const BinaryAnswer& answer);
// The human text: the target and GPUs, one block per file with CUDA content (one summary line
// for the others), the set's summary, the counts and the exit code.
void PrintBinaryAnswer(std::ostream& out, const BinaryAnswer& answer);

// How many named entry points the human output shows by name (newest first).
constexpr size_t kNamedShown = 5;

// `files[]` entry of the JSON answer.
Json BinaryFileJson(const BinaryAnalysis& a, const BinaryVerdict& v, int target);
// JSON `files[]` additions: origin, needed_by/needed_as/found_by, cuda_content, minimum_driver,
// error_kind, zip_error.
void AddInputFields(const JudgedInput& f, Json* file_json);
// The human block of one readable file.
// With `minimum`, also the oldest driver that runs the file ("minimum driver: CUDA 13.0 (...)").
void PrintBinaryFile(std::ostream& out, const BinaryAnalysis& a, const BinaryVerdict& v,
                     int target, const MinimumDriver* minimum = nullptr);
// JSON `set`: counts by origin, minimum_driver (+ file), unresolved, skipped_files, ...
Json InputSetJson(const InputSet& set, const std::vector<JudgedInput>& files,
                  const SetMinimum& minimum);
// The human summary after the file blocks.
void PrintInputSetSummary(std::ostream& out, const InputSet& set,
                          const std::vector<JudgedInput>& files, const SetMinimum& minimum);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_BINARY_PRINT_H_
