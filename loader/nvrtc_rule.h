// The NVRTC acceptance rule, in one place for the NVRTC loader and cudyn-check.
//
// NVRTC emits PTX of its own release's ISA (13.0 -> 9.0, 12.5 -> 8.5, 11.8 -> 7.8; a release that
// introduced no ISA, such as 12.6, emits the newest one before it, 8.5), and a driver JITs PTX up
// to its own CUDA version's ISA: 13.0 NVRTC output on a 12.2 driver fails to load with
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222). So a driver can use an NVRTC's PTX when it is at least
// the CUDA release that introduced that ISA. Every ISA fact is loader/kernel_rule.h's (its
// MinDriverForPtxIsa / MaxPtxIsaForDriver / DriverJitsPtxIsa over version_tables/inputs/
// ptx_isa.tsv), the same rule driver emulation and cudyn-check's kernel layer apply; only the
// NVRTC-specific fact (a release emits the newest ISA introduced at or before it) is here.
// Pure functions of their arguments; never throw.
#ifndef CUDYN_LOADER_NVRTC_RULE_H_
#define CUDYN_LOADER_NVRTC_RULE_H_

namespace cudyn {

// The PTX ISA an NVRTC of `nvrtc_version` (1000*major + 10*minor) emits, as 10*major + minor
// (90 for 9.0): the newest ISA introduced at or before that release; 0 when older than the table.
// A release newer than every row is assumed to emit an ISA of its own, newer than the table knows:
// the newest ISA is returned and NvrtcMinDriver() answers the release itself.
int NvrtcPtxIsa(int nvrtc_version);

// The oldest driver (CUDA version) that JITs that NVRTC's PTX: the release that introduced
// NvrtcPtxIsa(nvrtc_version); `nvrtc_version` itself when it is newer than the table's rows or
// older than all of them.
int NvrtcMinDriver(int nvrtc_version);

// Can a driver of CUDA version `driver_version` JIT the PTX an NVRTC of `nvrtc_version` emits?
// kernel_rule::DriverJitsPtxIsa on NvrtcPtxIsa(nvrtc_version); a release newer than the table
// needs a driver of at least its own version.
bool NvrtcUsableBy(int nvrtc_version, int driver_version);

}  // namespace cudyn

#endif  // CUDYN_LOADER_NVRTC_RULE_H_
