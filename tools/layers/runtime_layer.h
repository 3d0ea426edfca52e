// Runtime layer of cudyn-check: the CUDA runtime (libcudart) a file links dynamically, embeds
// statically, or is. Plain data; no printing.
//
// Rules
// * DT_NEEDED libcudart.so.<v> (or DT_SONAME libcudart.so.<v>: the file is the runtime): family
//   13 -> 13000, 12 -> 12000, 11.0 -> 11000, 10.2 -> 10020, 10.1 -> 10010, 10.0 -> 10000, 9.2
//   -> 9020 (since 11.x the SONAME carries the major only and the runtime of a major runs on any
//   driver of that major: CUDA minor-version compatibility).
// * Statically linked runtime (fingerprints measured on CUDA 13.0's libcudart_static.a and
//   libcudart.so.13 and Debian's 11.8 libcudart.so.11.8.89; proven on nvcc 13.0 output: default
//   `-cudart static` programs match, `-cudart shared` / `-cudart none` ones do not):
//   1. the runtime's versioned entry-point table, in .data.rel.ro: hundreds of consecutive
//      24-byte records {u64 version, char* name ("cuda..."), u64 0}; the newest version in it is
//      the runtime's own (13.0: 492 records, newest 13000; 11.8: 434 records, newest 11080). It
//      survives `strip` and identifies the runtime and its version by itself (ELF64 with
//      section headers; at least kMinVersionTableRecords records);
//   2. else both error strings of the runtime in its data sections —
//        "CUDA driver version is insufficient for CUDA runtime version"  (cudaGetErrorString)
//        "cudaErrorInsufficientDriver"                                   (cudaGetErrorName)
//      — with the version from the nvcc ident "Cuda compilation tools, release X.Y" in the
//      file's cubins (nvcc links its own toolkit's runtime); else the version is unknown (0).
//   The minimum driver of a static runtime X.Y is X.0 for X >= 11 (minor-version compatibility).
#ifndef CUDYN_TOOLS_LAYERS_RUNTIME_LAYER_H_
#define CUDYN_TOOLS_LAYERS_RUNTIME_LAYER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/runtime_fingerprint.h"  // kMinVersionTableRecords
#include "tools/elf/elf_reader.h"

namespace cudyn {
namespace layers {

enum class RuntimeLinkage {
  kNone,      // no CUDA runtime found
  kDynamic,   // DT_NEEDED libcudart.so.*
  kStatic,    // the runtime is compiled into the file
  kIsRuntime,  // the file is libcudart itself (DT_SONAME)
  // The file is a release of a library cudyn chooses by the driver (DT_SONAME libcufft.so.12) that
  // carries no runtime but still needs its release's driver (it checks the driver itself: the
  // 13.0 cuFFT answers CUFFT_NOT_SUPPORTED on a 12.x driver). Set by cudyn-check from the
  // release facts of loader/toolkit_libraries.h, not by AnalyzeRuntime.
  kLibraryRelease,
};

struct RuntimeLayer {
  RuntimeLinkage linkage = RuntimeLinkage::kNone;
  std::string library;      // "libcudart.so.13" (dynamic / is-runtime)
  int runtime_version = 0;  // 13000 (static: from the nvcc ident; dynamic: the SONAME family)
  int min_driver = 0;       // the oldest driver this runtime runs on; 0 = unknown/none
  std::vector<std::string> evidence;  // what the finding rests on, for the printer
};

// The runtime family rule (SONAME -> oldest driver, SONAMEs per driver) is
// loader/cudart_family.h's: cudyn::CudartSonameMinDriver, cudyn::CudartSonamesForDriver.

// `elf` is the ELF reader's result for [data, data + size); `data` is scanned for the static
// runtime only when no libcudart is linked.
RuntimeLayer AnalyzeRuntime(const elf::ElfInfo& elf, const uint8_t* data, size_t size);

// The newest version in the runtime's versioned entry-point table (see above;
// loader/runtime_fingerprint.h scans for it), 0 if the file (ELF64 with section headers) has no
// such table of at least kMinVersionTableRecords records.
int FindRuntimeVersionTable(const uint8_t* data, size_t size, size_t* records);

// The same from a path (mmap; ELF errors give linkage kNone and the error in evidence).
RuntimeLayer AnalyzeRuntimeFile(const std::string& path);

const char* RuntimeLinkageName(RuntimeLinkage l);

// 12080 -> "12.8"
std::string CudaVersionText(int v);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_RUNTIME_LAYER_H_
