// `cudyn-check binary`, the analysis layer: everything the verdict needs from one ELF file, read
// once (one mmap, one parse: layers::AnalyzeFile / AnalyzeImage) and turned into plain data. No
// verdict (binary_verdict.h) and no printing (check_binary_print.h) here.
#ifndef CUDYN_TOOLS_BINARY_ANALYSIS_H_
#define CUDYN_TOOLS_BINARY_ANALYSIS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/layers/entry_points.h"
#include "tools/layers/kernel_layer.h"
#include "tools/layers/runtime_layer.h"

namespace cudyn {
namespace check {

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
using NamedApi = layers::NamedEntryPoint;

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
  // NVML (tools/binary_nvml.h): its nvml* imports (symbol and weak only), DT_NEEDED
  // libnvidia-ml.so*, and whether cudyn's NVML serves them (DT_NEEDED libcudyn_nvml.so*, or the
  // file defines cudyn's NVML marker: linked statically).
  std::vector<ImportedApi> nvml_imports;
  std::vector<std::string> nvml_needed;
  bool links_cudyn_nvml = false;
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

// Reads `path` with one mmap and one parse (layers::AnalyzeFile: ELF reader, fatbin reader,
// runtime and kernel layers, named entry points, the static-cudyn marker), then looks up unknown
// cu* imports among the exports of the libraries it needs (AttributeUnknownImports). Never
// throws; `error` is set on failure.
BinaryAnalysis AnalyzeBinary(const std::string& path);
// The same for an image in memory (a member of a wheel: layers::AnalyzeImage); `name` is how it
// is reported. Its DT_NEEDED libraries are not looked up (they are not on this machine's paths).
BinaryAnalysis AnalyzeBinaryImage(const std::string& name, const uint8_t* data, size_t size);

// ---- What the analysis found, in one line each (for the verdict's reasons and the printers) ---

// "DT_NEEDED libcudyn_cuda.so; defines 12 driver-API symbols itself ...".
std::string CudynEvidence(const BinaryAnalysis& a);
// The runtime layer's finding: "embeds the CUDA runtime 13.0 (static) -> needs a 13.0 driver",
// "none (no CUDA runtime linked or embedded)".
std::string RuntimeFindingText(const layers::RuntimeLayer& r);
// The kernel layer's finding: "sm_75 SASS, compute_75 PTX (ISA 9.0)".
std::string KernelSummaryText(const layers::KernelLayer& k);
// The distinct architectures of the SASS (ptx = false: "sm_90") or PTX ("compute_90") images.
std::vector<std::string> ImageArchs(const layers::KernelLayer& k, bool ptx);
// "9.0" for a PTX ISA.
std::string IsaText(int major, int minor);
// Whether the file has anything a driver decides on (imports, runtime, kernels, entry-point
// names, cudyn itself); files without are summarised in one line, not printed one by one.
bool HasCudaContent(const BinaryAnalysis& a);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_BINARY_ANALYSIS_H_
