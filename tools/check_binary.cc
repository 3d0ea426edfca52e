// `cudyn-check binary FILE...`: every layer that decides whether an ELF file runs on a driver
// version (--target-version, or the driver's effective version) and a GPU (--gpu, or the
// driver's devices). The command only wires the layers together: the files are collected
// (check_inputs.h), each read once (binary_analysis.h: one mmap, one parse), judged
// (binary_verdict.h) and printed (check_binary_print.h).
#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "nlohmann/json.hpp"
#include "tools/binary_verdict.h"
#include "tools/commands.h"
#include "tools/check_binary_print.h"
#include "tools/check_inputs.h"

namespace cudyn {
namespace check {

bool ParseGpuList(const std::string& text, std::vector<layers::GpuArch>* out, bool* none,
                  std::string* error) {
  *none = false;
  if (text == "none") {
    *none = true;
    return true;
  }
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    layers::GpuArch arch;
    bool chars_ok = !item.empty();
    for (char c : item) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') chars_ok = false;
    }
    if (!chars_ok || item.compare(0, 8, "compute_") == 0 || !layers::ParseGpuArch(item, &arch) ||
        arch.major > 20) {
      *error = "'" + item + "' is not a GPU architecture (e.g. sm_90, sm_80, 90 or 9.0; or none)";
      return false;
    }
    arch.variant = '\0';  // a GPU is sm_90; `a`/`f` name images, not devices
    if (std::find(out->begin(), out->end(), arch) == out->end()) out->push_back(arch);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

namespace {

// --gpu (repeatable, comma lists) into answer->target.gpus; "none" sets *none. False after a
// usage error on `err`.
bool ParseGpuOptions(const Args& args, BinaryAnswer* answer, bool* none, std::ostream& err) {
  *none = false;
  for (const std::string& value : args.get_all("--gpu")) {
    bool this_none = false;
    std::string error;
    if (!ParseGpuList(value, &answer->target.gpus, &this_none, &error)) {
      err << "cudyn-check binary: --gpu " << error << "\n";
      return false;
    }
    *none = *none || this_none;
  }
  if (*none && !answer->target.gpus.empty()) {
    err << "cudyn-check binary: --gpu none cannot be combined with GPU architectures\n";
    return false;
  }
  answer->gpu_source = answer->target.gpus.empty() ? "none" : "--gpu";
  answer->gpu_note = *none ? "--gpu none" : "";
  return true;
}

Json TargetJson(int version, const char* source) {
  Json j = Json::object();
  j["version"] = version;
  j["version_text"] = ShortVersion(version);
  j["source"] = source;
  return j;
}

// --target-version as the target. False after a usage error on `err`.
bool ParseTargetVersion(const Args& args, BinaryAnswer* answer, std::ostream& err) {
  const std::optional<int> v = ParseVersionOption(args.get("--target-version"));
  if (!v) {
    err << "cudyn-check binary: --target-version '" << args.get("--target-version")
        << "' is not a CUDA version (e.g. 11040 or 11.4)\n";
    return false;
  }
  answer->target.version = *v;
  answer->target_text = "CUDA " + VersionText(*v) + " (--target-version)";
  answer->target_json = TargetJson(*v, "--target-version");
  return true;
}

// Opens the driver for what the options leave to it: the target version (without
// --target-version) and the GPUs (without --gpu). A usable driver stays loaded for the rest of
// the process; one that did not open stays in *opened (its candidates are printed). False after
// a usage error on `err`.
bool AskTheDriver(const Args& args, bool version_given, bool gpus_from_driver,
                  OpenedDriver* opened, BinaryAnswer* answer, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "binary", &request, err)) return false;
  *opened = OpenDriverForCheck(request);
  const bool usable = opened->driver != nullptr && opened->driver->ok();
  if (!version_given) {
    if (usable) {
      answer->target.version = opened->driver->effective_version();
      answer->target_text = "CUDA " + VersionText(answer->target.version) +
                            " (effective version of the driver " + opened->driver->path() + ")";
      answer->target_json = TargetJson(answer->target.version, "driver");
      answer->driver_json = DriverJson(*opened);
    } else {
      answer->target_text = "none: no driver found and no --target-version";
      if (opened->driver != nullptr) {
        answer->driver_json = Json::object();
        answer->driver_json["error"] = DriverErrorJson(*opened->driver);
        answer->driver_json["candidates"] = CandidatesJson(opened->driver->candidates());
      }
    }
  }
  if (gpus_from_driver) {
    if (usable) {
      answer->target.gpus = DriverGpus(*opened->driver, &answer->gpu_note);
      if (!answer->target.gpus.empty()) answer->gpu_source = "driver";
    } else {
      answer->gpu_note = "no usable driver to ask";
    }
  }
  if (usable) {
    KeepDriverLoaded(std::move(opened->driver));
  } else {
    answer->failed_driver = opened->driver.get();
  }
  return true;
}

// Collects the files of the arguments, judges them, and sets the exit code (the worst file's);
// each unreadable input is named on `err`.
void JudgeArguments(const Args& args, BinaryAnswer* answer, std::ostream& err) {
  InputOptions options;
  options.deps = args.flag("--deps");
  answer->inputs = CollectInputs(args.positional, options);
  answer->files = JudgeInputs(&answer->inputs, answer->target, options.deps);
  answer->exit_code = kExitOk;
  for (const JudgedInput& r : answer->files) {
    const int code = ExitFor(r.verdict.verdict);
    if (ExitRank(code) > ExitRank(answer->exit_code)) answer->exit_code = code;
    if (!r.input.analysis.error.empty()) err << "cudyn-check: " << r.input.analysis.error << "\n";
  }
  // The set summary: when the files are more than the arguments named one by one.
  answer->is_set = options.deps || answer->files.size() != args.positional.size() ||
                   std::any_of(answer->files.begin(), answer->files.end(),
                               [](const JudgedInput& r) {
                                 return r.input.origin != InputOrigin::kArgument;
                               });
  answer->set_minimum = FindSetMinimum(answer->files);
}

}  // namespace

int RunBinary(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.positional.empty()) {
    err << "cudyn-check binary: no FILE given\n"
        << "run 'cudyn-check binary --help'\n";
    return kExitUsage;
  }
  BinaryAnswer answer;
  bool gpu_none = false;
  if (!ParseGpuOptions(args, &answer, &gpu_none, err)) return kExitUsage;
  const bool version_given = args.has("--target-version");
  if (version_given && !ParseTargetVersion(args, &answer, err)) return kExitUsage;
  const bool gpus_from_driver = answer.target.gpus.empty() && !gpu_none;
  OpenedDriver opened;  // outlives the printing: a driver that did not open lists its candidates
  if ((!version_given || gpus_from_driver) &&
      !AskTheDriver(args, version_given, gpus_from_driver, &opened, &answer, err)) {
    return kExitUsage;
  }
  JudgeArguments(args, &answer, err);
  if (args.json) {
    out << JsonText(BinaryAnswerJson(answer));
  } else {
    PrintBinaryAnswer(out, answer);
  }
  return answer.exit_code;
}

}  // namespace check
}  // namespace cudyn
