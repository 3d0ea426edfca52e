// Kernel layer of cudyn-check: what device code a file carries (from its fatbins), summarised so
// that a library with thousands of entries reads as a handful of lines. Plain data; no printing.
#ifndef CUDYN_TOOLS_LAYERS_KERNEL_LAYER_H_
#define CUDYN_TOOLS_LAYERS_KERNEL_LAYER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "loader/kernel_rule.h"
#include "tools/fatbin/fatbin_reader.h"

namespace cudyn {
namespace layers {

// A GPU architecture / compute capability: the shared rule's (loader/kernel_rule.h).
using GpuArch = kernel_rule::GpuArch;
using kernel_rule::ArchFromNumber;
using kernel_rule::MaxPtxIsaForDriver;
using kernel_rule::MinDriverForPtxIsa;

// "sm_90", "sm_90a", "compute_80", "90", "9.0" -> GpuArch; false if it is none of these.
bool ParseGpuArch(const std::string& text, GpuArch* out);

// One distinct kind of image: SASS for an arch, or PTX for an arch at an ISA version.
struct KernelImage {
  bool ptx = false;
  GpuArch arch;
  int isa_major = 0;  // PTX only
  int isa_minor = 0;
  size_t count = 0;       // entries of this kind
  size_t compressed = 0;  // of which compressed
  bool operator==(const KernelImage& o) const {
    return ptx == o.ptx && arch == o.arch && isa_major == o.isa_major && isa_minor == o.isa_minor;
  }
};

struct KernelLayer {
  bool has_device_code = false;  // at least one fatbin entry
  size_t containers = 0;
  size_t entries = 0;
  size_t compressed_entries = 0;
  size_t unknown_entries = 0;  // entry kinds other than PTX / cubin
  // Distinct images, sorted: SASS before PTX, then by arch, variant, ISA.
  std::vector<KernelImage> images;
  // PTX ISA range over all PTX entries (0.0 when there is no PTX).
  int min_isa_major = 0, min_isa_minor = 0, max_isa_major = 0, max_isa_minor = 0;
  std::vector<std::string> warnings;  // from the fatbin reader
  // The CUDA toolkit that produced the device code, from the "Cuda compilation tools, release
  // X.Y" ident of a cubin (13.0's PTX has none): 13000; 0 when unknown. Set by
  // FindKernelToolkit (AnalyzeFile/AnalyzeImage call it).
  int toolkit_release = 0;
  // Device code that no runtime registers: an executable or shared object with fatbins but no
  // .nvFatBinSegment (the wrappers nvcc's host code hands to __cudaRegisterFatBinary) and no
  // __nv_relfatbin. Such a file loads its fatbins itself (cuModuleLoadData*) and chooses which,
  // per GPU — CUDA 13.0's libcufft.so.12 and libcufftw.so.12 do (libcufftw carries only sm_75
  // SASS and works on an H100). Set by AnalyzeImage.
  bool self_loaded = false;
  // Relocatable device code (nvcc -rdc=true: the file keeps __nv_relfatbin). nvcc's link stub
  // registers the device-linked image, and where none of its images runs on the GPU a launch
  // answers 500 (cudaErrorSymbolNotFound), not 209: measured on the H100 (580 driver) with the
  // 11.8, 12.5 and 13.0 runtimes, directly and under driver emulation (tests/gpu/RESULTS.md).
  // Set by AnalyzeImage.
  bool relocatable = false;
};

KernelLayer AnalyzeKernels(const fatbin::FatbinInfo& info);

// The toolkit ident of the first cubin that has one: uncompressed cubins are searched in place,
// then at most `max_decodes` compressed ones are decoded. `data`/`size`: the image `info` was
// read from.
int FindKernelToolkit(const uint8_t* data, size_t size, const fatbin::FatbinInfo& info,
                      int max_decodes = 4);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_KERNEL_LAYER_H_
