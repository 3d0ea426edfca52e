// Which device-code image a real CUDA driver of a given version would load on a given GPU, or
// which error it would return: one rule, shared by the loader's driver emulation
// (CUDYN_CLAMP_MODE=emulate, loader/emulate.cc) and cudyn-check's kernel layer
// (tools/layers/verdict.cc). The facts come from version_tables (generated, never typed here):
// PTX ISA -> the CUDA release that introduced it (inputs/ptx_isa.tsv), GPU arch -> the first PTX
// ISA that targets it (inputs/gpu_arch.tsv).
//
// The rule, for a driver of CUDA version V and a GPU sm_XY:
//  1. SASS that executes on the GPU: sm_AB with A == X and B <= Y; sm_ABa only when AB == XY;
//     sm_ABf (family) as plain. Of several, the highest B, then a > f > plain.
//  2. else PTX that targets the GPU (compute_AB: AB <= XY; compute_ABa: AB == XY; compute_ABf:
//     A == X and B <= Y) whose ISA V JITs; of several, the highest target, then the highest ISA.
//  3. else 222 CUDA_ERROR_UNSUPPORTED_PTX_VERSION when PTX targets the GPU but every such ISA is
//     too new for V, else 209 CUDA_ERROR_NO_BINARY_FOR_GPU.
// Whether V knows the GPU at all (sm_90 from 11.8, sm_100 from 12.8) is a separate question,
// DriverKnowsGpu: a real driver that does not know the GPU never offers it.
//
// Also the small parsing both sides need for an image in memory: fatbin entry headers, a PTX
// text's `.version`, a cubin's arch. Pure functions: no I/O, never read outside the bounds they
// are given, never throw — except those that build a fatbin or judge one whole (JudgeFatbin,
// FatbinWithOnlyEntry, RegistrationFatbin), which allocate: std::bad_alloc is their callers' to
// catch.
#ifndef CUDYN_LOADER_KERNEL_RULE_H_
#define CUDYN_LOADER_KERNEL_RULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudyn {
namespace kernel_rule {

// A GPU architecture / compute capability: sm_90 is {9, 0}; variant '\0', 'a' or 'f'.
struct GpuArch {
  int major = 0;
  int minor = 0;
  char variant = '\0';
  int number() const { return major * 10 + minor; }
  std::string Name(const char* prefix = "sm_") const;
  bool operator==(const GpuArch& o) const {
    return major == o.major && minor == o.minor && variant == o.variant;
  }
};

// fatbin / cubin arch number (90, 100, 103) -> {9, 0}, {10, 0}, {10, 3}.
GpuArch ArchFromNumber(int number, char variant);

// Can a SASS image for `image` execute on `gpu`? Can PTX for `image` be JIT-compiled for `gpu`?
bool SassRunsOn(const GpuArch& image, const GpuArch& gpu);
bool PtxTargets(const GpuArch& image, const GpuArch& gpu);

// The oldest CUDA driver (e.g. 13000) that JITs PTX of ISA major.minor; 0 if the ISA is newer
// than the table knows.
int MinDriverForPtxIsa(int major, int minor);
// The newest PTX ISA a driver of `cuda_version` JITs; false when it predates every row.
bool MaxPtxIsaForDriver(int cuda_version, int* major, int* minor);
// Can a driver of `cuda_version` JIT PTX of ISA major.minor? False for an ISA newer than the
// table knows (no driver is known to).
bool DriverJitsPtxIsa(int cuda_version, int major, int minor);
// The oldest CUDA driver that knows GPU `gpu` (variant ignored): sm_90 -> 11080. 0 when the arch
// is older than every row (every driver cudyn binds knows it); -1 when it is newer than the
// table knows or not a known arch between rows.
int MinDriverForGpu(const GpuArch& gpu);
// Does a driver of `cuda_version` know (and so offer) this GPU? An arch the table does not know
// is assumed known (nothing to emulate).
bool DriverKnowsGpu(int cuda_version, const GpuArch& gpu);

constexpr int kNoBinaryForGpu = 209;         // CUDA_ERROR_NO_BINARY_FOR_GPU
constexpr int kUnsupportedPtxVersion = 222;  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION

struct Image {
  bool ptx = false;
  GpuArch arch;
  int isa_major = 0;  // PTX only
  int isa_minor = 0;
};

struct Choice {
  int error = 0;   // 0, kNoBinaryForGpu or kUnsupportedPtxVersion
  int index = -1;  // the chosen image when error == 0
  bool jit = false;
  // error == 0 and jit: the oldest driver that JITs the chosen PTX. error == 222: the image
  // whose PTX the oldest driver JITs (too_new) and that driver (0: no known driver).
  int min_driver = 0;
  int too_new = -1;
};

Choice ChooseImage(const Image* images, size_t count, int cuda_version, const GpuArch& gpu);

// ---- parsing an image in memory -------------------------------------------------------------

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;  // __fatBinC_Wrapper_t
// nvcc's __fatBinC_Wrapper_t: what the host code hands __cudaRegisterFatBinary (kept in the
// object's .nvFatBinSegment; the runtime reads `data` when it loads the module).
struct FatbinWrapper {
  int magic;
  int version;
  const void* data;
  void* filename_or_fatbins;
};
constexpr size_t kFatbinHeaderSize = 16;
constexpr size_t kFatbinEntryHeaderMin = 0x40;
constexpr uint64_t kFatbinFlagLz4 = 0x2000;
constexpr uint64_t kFatbinFlagZstd = 0x8000;
constexpr uint64_t kFatbinFlagArchSpecific = 0x100000;  // sm_90a / compute_90a
constexpr uint64_t kFatbinFlagFamily = 0x200000;        // sm_100f / compute_100f

// One fatbin entry header (layout: tools/fatbin/fatbin_reader.h).
struct FatbinEntryHeader {
  uint16_t kind = 0;  // 1 PTX, 2 cubin
  uint32_t header_size = 0;
  uint64_t payload_size = 0;  // stored bytes, padded (the entry spans header_size + this)
  uint32_t compressed_size = 0;
  int version_major = 0;  // PTX: ISA; cubin: cubin ABI
  int version_minor = 0;
  int arch = 0;
  uint64_t flags = 0;
  uint64_t uncompressed_size = 0;
  char variant = '\0';
};

// Decodes the entry header at `h`, of which `avail` bytes may be read (up to the container's
// end). False when it is malformed (too short, header or payload past `avail`).
bool DecodeFatbinEntryHeader(const uint8_t* h, uint64_t avail, FatbinEntryHeader* out) noexcept;

// The fatbin container header at `data` (`avail` readable bytes): its header and payload sizes.
bool DecodeFatbinHeader(const uint8_t* data, uint64_t avail, uint64_t* header_size,
                        uint64_t* payload_size) noexcept;

// A fatbin container judged for a driver of `cuda_version` on `gpu`: its PTX / SASS entries in
// order (images[i] spans entries[i] bytes from offsets[i] of the container) and the choice.
struct JudgedFatbin {
  uint64_t header_size = 0;
  std::vector<Image> images;
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> sizes;
  Choice choice;
};
// False when `data` (`avail` readable bytes, or UINT64_MAX) is no well-formed fatbin container
// or holds no PTX / SASS entry.
bool JudgeFatbin(const uint8_t* data, uint64_t avail, int cuda_version, const GpuArch& gpu,
                 JudgedFatbin* out);
// The container holding only entry `index` of `judged`: its header (payload size rewritten) and
// that entry, still compressed if it was.
std::string FatbinWithOnlyEntry(const uint8_t* data, const JudgedFatbin& judged, int index);

// What to hand a real driver of `real_version` (newer) so that it answers as a driver of
// `emulated_version` answers for the fatbin at `data` on `gpu` — the fatbin a CUDA runtime
// registers, which it loads later through paths cudyn does not see:
//  * kKeep: the emulated choice is the real one's, or the verdict is 209 (no image runs or targets
//    the GPU: the same for every version);
//  * kOnlyChosen: *out is the container with only the emulated choice;
//  * kTooNewPtx (the emulated verdict is 222): *out is a container with one PTX entry for `gpu`
//    whose ISA is one past the newest the tables know, so no driver they know JITs it and the real
//    one answers 222 itself.
enum class Registration { kKeep, kOnlyChosen, kTooNewPtx };
Registration RegistrationFatbin(const uint8_t* data, uint64_t avail, int emulated_version,
                                int real_version, const GpuArch& gpu, std::string* out);

// The `.version X.Y` directive of PTX text; false when absent.
bool ParsePtxVersion(const char* text, size_t size, int* major, int* minor) noexcept;
inline bool ParsePtxVersion(const std::string& ptx, int* major, int* minor) noexcept {
  return ParsePtxVersion(ptx.data(), ptx.size(), major, minor);
}
// The first `.target sm_XY[a|f]` of PTX text; false when absent.
bool ParsePtxTarget(const char* text, size_t size, GpuArch* out) noexcept;

// The arch a cubin (an NVIDIA CUDA ELF, e_machine 190) is for, from e_flags: bits 8..15 from the
// ELF ABI version 8 on (CUDA 12.9+), bits 0..7 before. False when it is not such an ELF.
bool CubinArch(const uint8_t* data, size_t size, GpuArch* out) noexcept;

}  // namespace kernel_rule
}  // namespace cudyn

#endif  // CUDYN_LOADER_KERNEL_RULE_H_
