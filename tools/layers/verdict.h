// One verdict per file from its layers (runtime, kernels), a target driver version and a GPU.
// No printing: the CLI prints `FileVerdict`.
//
// Rules (loader/DESIGN.md "What decides whether a binary runs"; the kernel rule is
// loader/kernel_rule.h's ChooseImage, which the loader's driver emulation calls too):
// * Runtime: min_driver > target -> fails with 35 (cudaErrorInsufficientDriver). A dynamic
//   libcudart.so.13 (the API cudyn's runtime drop-in serves) then gets `with_cudyn`: the runtime
//   families the target can run instead, through `cudyn run --cudart`.
// * Kernels, for a GPU sm_XY that the target driver does not offer (its release predates the
//   GPU: kernel_rule::DriverKnowsGpu, from gpu_arch.tsv; sm_90 from 11.8, sm_100 from 12.8):
//   fails with 100 (cudaErrorNoDevice), as that driver's cuInit answers, whatever the images —
//   also for a file with no device code that uses CUDA (Target::uses_cuda: a driver-API-only
//   program, a library): such a driver offers no device at all on that GPU.
// * Kernels, for a GPU sm_XY: runs if some SASS can execute there — plain sm_AB: A == X and
//   B <= Y; sm_ABa: exactly sm_XY == sm_AB; sm_ABf (family, CUDA 12.9+): A == X and B <= Y —
//   else if some PTX can be JIT-compiled there — compute_AB: AB <= XY; compute_ABa: AB == XY;
//   compute_ABf: A == X and B <= Y — whose ISA the target driver JITs (ptx_isa.tsv); else
//   222 (cudaErrorUnsupportedPtxVersion) when PTX for the GPU exists but its ISA is too new for
//   the driver, else 209 (cudaErrorNoKernelImageForDevice) — 500 (cudaErrorSymbolNotFound) for
//   relocatable device code (KernelLayer::relocatable), as the runtime answers there.
// * Device code no runtime registers (KernelLayer::self_loaded: the file loads its fatbins itself
//   and picks per GPU) is "unknown": it never fails the file.
// * Without a GPU, only what holds for every GPU is decided: a file whose only device code is
//   PTX whose every ISA is too new for the target fails with 222; otherwise the kernel layer is
//   "unknown" (needs a GPU) and does not fail the file.
// The file fails on the first failing layer in the order [earlier...], runtime, kernels,
// [later...]; that layer decides.
#ifndef CUDYN_TOOLS_LAYERS_VERDICT_H_
#define CUDYN_TOOLS_LAYERS_VERDICT_H_

#include <string>
#include <vector>

#include "tools/layers/kernel_layer.h"
#include "tools/layers/runtime_layer.h"

namespace cudyn {
namespace layers {

// kDriverApi / kDependencies are decided outside this package (the CLI's driver-API check, the
// dependency walk); they enter a verdict through Decide's `earlier` argument.
enum class Layer { kNone, kDriverApi, kRuntime, kKernels, kDependencies };
enum class Status { kOk, kFails, kUnknown, kNotApplicable };

constexpr int kCudaErrorInsufficientDriver = 35;
constexpr int kCudaErrorNoDevice = 100;  // the target driver does not offer the GPU
constexpr int kCudaErrorNoKernelImage = 209;
constexpr int kCudaErrorSymbolNotFound = 500;  // relocatable device code with no usable image
constexpr int kCudaErrorUnsupportedPtxVersion = 222;

struct Target {
  int cuda_version = 0;  // the driver's CUDA version, e.g. 12080; must be > 0
  bool has_gpu = false;
  GpuArch gpu;  // variant ignored
  // The file uses CUDA at all (driver-API imports, a runtime, device code, CUDA libraries): a GPU
  // the target driver does not offer then fails it even without device code. False for a file
  // that never reaches a driver.
  bool uses_cuda = true;
};

struct LayerVerdict {
  Layer layer = Layer::kNone;
  Status status = Status::kNotApplicable;
  int cuda_error = 0;  // 35 / 100 / 209 / 222 when it fails
  int min_driver = 0;  // the oldest driver this layer accepts (0: none / depends on the GPU)
  std::string reason;  // one line, e.g. "runs sm_90 SASS" / "PTX ISA 9.0 needs CUDA 13.0"
  std::string image;   // the image that runs: "sm_90", "compute_80 (JIT, PTX ISA 9.0)"
  // How cudyn makes this failing layer run, where it can ("" otherwise): a program that needs
  // libcudart.so.13 on an older driver runs under `cudyn run --cudart` on a runtime it supports.
  std::string with_cudyn;
  // Kernels judged for a GPU: the oldest driver that offers it (11080 for sm_90; 0 when every
  // driver does or the table does not know the arch), and whether the target driver does not
  // (it predates the GPU: the layer then fails with 100 whatever the images).
  int gpu_min_driver = 0;
  bool gpu_not_offered = false;
};

struct FileVerdict {
  bool runs = true;
  Layer deciding_layer = Layer::kNone;  // the failing layer, else kNone
  int cuda_error = 0;
  std::string reason;                // the deciding layer's reason ("" when it runs)
  std::vector<LayerVerdict> layers;  // runtime, kernels
};

LayerVerdict JudgeRuntime(const RuntimeLayer& runtime, const Target& target);
LayerVerdict JudgeKernels(const KernelLayer& kernels, const Target& target);
// `earlier`: verdicts of layers judged elsewhere (e.g. the driver-API imports), considered
// first, in order; `later` after the kernels (e.g. dependencies).
FileVerdict Decide(const RuntimeLayer& runtime, const KernelLayer& kernels, const Target& target,
                   const std::vector<LayerVerdict>& earlier = {},
                   const std::vector<LayerVerdict>& later = {});

// Can a SASS image for `image` execute on `gpu`? Can PTX for `image` be JIT-compiled for `gpu`?
// (The shared rule's, loader/kernel_rule.h.)
using kernel_rule::PtxTargets;
using kernel_rule::SassRunsOn;

const char* LayerName(Layer l);
const char* StatusName(Status s);
// 35 -> "cudaErrorInsufficientDriver", 100, 209, 222; "" for others.
const char* CudaErrorName(int error);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_VERDICT_H_
