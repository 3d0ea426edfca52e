#include "tools/layers/verdict.h"

#include <algorithm>

#include "loader/cudart_family.h"

namespace cudyn {
namespace layers {

const char* LayerName(Layer l) {
  switch (l) {
    case Layer::kRuntime: return "runtime";
    case Layer::kKernels: return "kernels";
    case Layer::kDriverApi: return "driver_api";
    case Layer::kDependencies: return "dependencies";
    default: return "none";
  }
}

const char* CudaErrorName(int error) {
  switch (error) {
    case kCudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case kCudaErrorNoDevice: return "cudaErrorNoDevice";
    case kCudaErrorNoKernelImage: return "cudaErrorNoKernelImageForDevice";
    case kCudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
    case kCudaErrorUnsupportedPtxVersion: return "cudaErrorUnsupportedPtxVersion";
    default: return "";
  }
}

const char* StatusName(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kFails: return "fails";
    case Status::kUnknown: return "unknown";
    default: return "not_applicable";
  }
}

namespace {

std::string IsaText(int ma, int mi) { return std::to_string(ma) + "." + std::to_string(mi); }

std::vector<kernel_rule::Image> RuleImages(const KernelLayer& k) {
  std::vector<kernel_rule::Image> images;
  images.reserve(k.images.size());
  for (const auto& img : k.images) {
    kernel_rule::Image r;
    r.ptx = img.ptx;
    r.arch = img.arch;
    r.isa_major = img.isa_major;
    r.isa_minor = img.isa_minor;
    images.push_back(r);
  }
  return images;
}

}  // namespace

LayerVerdict JudgeRuntime(const RuntimeLayer& rt, const Target& target) {
  LayerVerdict v;
  v.layer = Layer::kRuntime;
  v.min_driver = rt.min_driver;
  switch (rt.linkage) {
    case RuntimeLinkage::kNone:
      v.status = Status::kNotApplicable;
      v.reason = "no CUDA runtime linked or embedded";
      return v;
    case RuntimeLinkage::kStatic:
      if (rt.min_driver == 0) {
        v.status = Status::kUnknown;
        v.reason = "embeds a CUDA runtime of unknown version";
        return v;
      }
      v.reason = "embeds the CUDA runtime " + CudaVersionText(rt.runtime_version);
      break;
    case RuntimeLinkage::kDynamic: v.reason = "links " + rt.library; break;
    case RuntimeLinkage::kIsRuntime: v.reason = "is the CUDA runtime " + rt.library; break;
    case RuntimeLinkage::kLibraryRelease:
      v.reason = "is " + rt.library + " (no runtime inside; it checks the driver itself)";
      break;
  }
  v.reason += ", which needs a CUDA " + CudaVersionText(rt.min_driver) + " driver";
  if (rt.min_driver > target.cuda_version) {
    v.status = Status::kFails;
    // A library release without a runtime answers with its own status (cuFFT: 16), not 35.
    v.cuda_error = rt.linkage == RuntimeLinkage::kLibraryRelease ? 0 : kCudaErrorInsufficientDriver;
    v.reason += " (target " + CudaVersionText(target.cuda_version) + ")";
    // cudyn's runtime drop-in stands in for libcudart.so.13 (the 13.0 runtime API) and serves it
    // with any runtime family the driver runs; `cudyn run` preloads it, which also reaches
    // libraries that need libcudart.so.13 through an RPATH of their own (PyTorch's). Promised no
    // further: a runtime loaded under another name is not cudyn's (cudyn warns when one is
    // called), and a call the chosen runtime cannot serve returns an error.
    const std::vector<std::string> instead = CudartSonamesForDriver(target.cuda_version);
    if (rt.linkage == RuntimeLinkage::kDynamic && rt.library == "libcudart.so.13" &&
        !instead.empty()) {
      v.with_cudyn =
          "`cudyn run --cudart` serves its libcudart.so.13 calls, and those of the libraries "
          "it loads that need libcudart.so.13, with a runtime this driver runs (" +
          instead.front() + (instead.size() > 1 ? ", " + instead[1] : "") +
          (instead.size() > 2 ? ", ..." : "") +
          "; `cudyn-check runtimes` lists those found); a call that runtime lacks returns an "
          "error, and cudyn warns if another runtime is called directly";
    }
  } else {
    v.status = Status::kOk;
  }
  return v;
}

LayerVerdict JudgeKernels(const KernelLayer& k, const Target& target) {
  LayerVerdict v;
  v.layer = Layer::kKernels;
  const GpuArch plain{target.gpu.major, target.gpu.minor, '\0'};
  if (target.has_gpu) v.gpu_min_driver = std::max(0, kernel_rule::MinDriverForGpu(plain));
  if (!k.has_device_code && !target.uses_cuda) {
    v.status = Status::kNotApplicable;
    v.reason = "no device code";
    return v;
  }
  if (target.has_gpu) {
    // A driver older than the GPU does not offer it (cuInit 100, as the loader's driver
    // emulation answers): no image runs, whatever the file carries, and a file without device
    // code (driver-API calls only) finds no device either. The same rule the emulation calls
    // (loader/kernel_rule.h, gpu_arch.tsv).
    if (!kernel_rule::DriverKnowsGpu(target.cuda_version, plain)) {
      const int first = v.gpu_min_driver;
      v.status = Status::kFails;
      v.cuda_error = kCudaErrorNoDevice;
      v.gpu_not_offered = true;
      // The oldest driver this layer accepts: the GPU's first, unless the images need more
      // there (PTX too new: its driver; nothing usable on the GPU: none, 0).
      v.min_driver = first;
      if (k.has_device_code && !k.self_loaded) {
        const std::vector<kernel_rule::Image> images = RuleImages(k);
        const kernel_rule::Choice at_first =
            kernel_rule::ChooseImage(images.data(), images.size(), first, plain);
        if (at_first.error == kernel_rule::kUnsupportedPtxVersion) {
          v.min_driver = at_first.min_driver;
        } else if (at_first.error != 0) {
          v.min_driver = 0;
        }
      }
      v.reason = plain.Name() + " needs a CUDA " + CudaVersionText(first) + " driver: a CUDA " +
                 CudaVersionText(target.cuda_version) + " driver offers no such device";
      return v;
    }
  }
  if (!k.has_device_code) {
    v.status = Status::kNotApplicable;
    v.reason = "no device code";
    return v;
  }
  if (k.self_loaded) {
    // Which image it loads, on which GPU, is the file's own choice: nothing to decide here.
    v.status = Status::kUnknown;
    v.reason =
        "device code the file loads itself (no runtime registration): it chooses the "
        "image per GPU";
    return v;
  }
  // The oldest driver that can JIT the oldest PTX: the least a PTX-only file needs.
  bool any_sass = false;
  int min_ptx_driver = 0;
  for (const auto& img : k.images) {
    if (!img.ptx) {
      any_sass = true;
      continue;
    }
    const int d = MinDriverForPtxIsa(img.isa_major, img.isa_minor);
    const int need = d == 0 ? 1 << 30 : d;
    if (min_ptx_driver == 0 || need < min_ptx_driver) min_ptx_driver = need;
  }
  if (!target.has_gpu) {
    if (!any_sass && min_ptx_driver > target.cuda_version) {
      v.status = Status::kFails;
      v.cuda_error = kCudaErrorUnsupportedPtxVersion;
      v.min_driver = min_ptx_driver < (1 << 30) ? min_ptx_driver : 0;
      v.reason = "only PTX, PTX ISA " + IsaText(k.min_isa_major, k.min_isa_minor) +
                 " and newer, which a CUDA " + CudaVersionText(target.cuda_version) +
                 " driver cannot JIT";
      return v;
    }
    v.status = Status::kUnknown;
    v.reason = "depends on the GPU (no GPU given)";
    return v;
  }
  const GpuArch& gpu = plain;
  // The shared rule (loader/kernel_rule.h): the same choice the loader's driver emulation makes.
  const std::vector<kernel_rule::Image> images = RuleImages(k);
  const kernel_rule::Choice choice =
      kernel_rule::ChooseImage(images.data(), images.size(), target.cuda_version, gpu);
  if (choice.error == 0) {
    const KernelImage& img = k.images[choice.index];
    v.status = Status::kOk;
    if (!choice.jit) {
      v.image = img.arch.Name("sm_");
      v.reason = "runs " + v.image + " SASS on " + gpu.Name();
      return v;
    }
    v.min_driver = choice.min_driver;
    v.image = img.arch.Name("compute_") + " (JIT, PTX ISA " +
              IsaText(img.isa_major, img.isa_minor) + ")";
    v.reason = "JIT-compiles " + img.arch.Name("compute_") + " PTX (ISA " +
               IsaText(img.isa_major, img.isa_minor) + ") for " + gpu.Name();
    return v;
  }
  const KernelImage* too_new = choice.too_new >= 0 ? &k.images[choice.too_new] : nullptr;
  v.status = Status::kFails;
  if (too_new != nullptr) {
    v.cuda_error = kCudaErrorUnsupportedPtxVersion;
    v.min_driver = choice.min_driver;
    v.reason = "no SASS for " + gpu.Name() + "; " + too_new->arch.Name("compute_") +
               " PTX is ISA " + IsaText(too_new->isa_major, too_new->isa_minor) + ", which " +
               (v.min_driver ? "needs a CUDA " + CudaVersionText(v.min_driver) + " driver"
                             : std::string("no known driver JITs")) +
               " (target " + CudaVersionText(target.cuda_version) + ")";
  } else {
    v.cuda_error = k.relocatable ? kCudaErrorSymbolNotFound : kCudaErrorNoKernelImage;
    std::string have;
    size_t shown = 0;
    for (const auto& img : k.images) {
      if (shown++ == 8) {
        have += ", ...";
        break;
      }
      if (!have.empty()) have += ", ";
      have += img.ptx ? img.arch.Name("compute_") : img.arch.Name("sm_");
    }
    v.reason = "no SASS or PTX usable on " + gpu.Name() + " (has " + have + ")";
    if (k.relocatable) {
      v.reason += "; relocatable device code: the runtime finds no kernel of the linked image";
    }
  }
  return v;
}

FileVerdict Decide(const RuntimeLayer& runtime, const KernelLayer& kernels, const Target& target,
                   const std::vector<LayerVerdict>& earlier,
                   const std::vector<LayerVerdict>& later) {
  FileVerdict f;
  f.layers = earlier;
  f.layers.push_back(JudgeRuntime(runtime, target));
  f.layers.push_back(JudgeKernels(kernels, target));
  f.layers.insert(f.layers.end(), later.begin(), later.end());
  for (const auto& l : f.layers) {
    if (l.status == Status::kFails) {
      f.runs = false;
      f.deciding_layer = l.layer;
      f.cuda_error = l.cuda_error;
      f.reason = l.reason;
      break;
    }
  }
  return f;
}

}  // namespace layers
}  // namespace cudyn
