// Internal to `cudyn-check binary` (check_binary.cc: readers, layers, verdict, RunBinary;
// check_binary_print.cc: the human and JSON printers).
#ifndef CUDYN_TOOLS_CHECK_BINARY_H_
#define CUDYN_TOOLS_CHECK_BINARY_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "tools/check.h"
#include "tools/check_inputs.h"

namespace cudyn {
namespace check {

// A whole file mapped read-only (no size limit; the kernel pages it in as it is read).
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (map_ != nullptr) munmap(map_, size_);
  }
  bool Open(const std::string& path, std::string* error) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      *error = std::string("cannot open: ") + std::strerror(errno);
      return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
      close(fd);
      *error = "not a regular non-empty file";
      return false;
    }
    size_ = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    int saved = errno;
    close(fd);
    if (map == MAP_FAILED) {
      *error = std::string("cannot mmap: ") + std::strerror(saved);
      size_ = 0;
      return false;
    }
    map_ = map;
    return true;
  }
  const uint8_t* data() const { return static_cast<const uint8_t*>(map_); }
  size_t size() const { return size_; }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
};

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
// With `minimum`, also the oldest driver that runs the file ("minimum driver: CUDA 13.0 (...)").
void PrintBinaryFile(std::ostream& out, const BinaryAnalysis& a, const BinaryVerdict& v,
                     int target, const MinimumDriver* minimum = nullptr);

// The compute capabilities of the driver's devices (deduplicated), empty when cuInit fails or
// there are none; *note says why, for people; *device_count (optional): cuDeviceGetCount's answer.
std::vector<layers::GpuArch> DriverGpus(Driver& d, std::string* note, int* device_count = nullptr);

// ---- sets of files (directories, wheels, --deps) ----------------------------------------------

// One collected file with its verdict and the oldest driver that runs it.
struct JudgedInput {
  InputFile input;
  BinaryVerdict verdict;
  MinimumDriver minimum;
};

// Whether the file has anything a driver decides on (imports, runtime, kernels, entry-point
// names, cudyn itself); files without are summarised in one line, not printed one by one.
bool HasCudaContent(const BinaryAnalysis& a);

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

// JSON `files[]` additions: origin, needed_by/needed_as/found_by, cuda_content, minimum_driver.
void AddInputFields(const JudgedInput& f, Json* file_json);
// JSON `set`: counts by origin, minimum_driver (+ file), unresolved, skipped_files, ...
Json InputSetJson(const InputSet& set, const std::vector<JudgedInput>& files,
                  const SetMinimum& minimum);
// The human summary after the file blocks.
void PrintInputSetSummary(std::ostream& out, const InputSet& set,
                          const std::vector<JudgedInput>& files, const SetMinimum& minimum);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_BINARY_H_
