// NVRTC (libnvrtc) on the toolkit library template (loader/toolkit.h): the newest NVRTC whose PTX
// the driver in front of the program can JIT, every entry of the 13.0 nvrtc.h
// (version_tables/nvrtc_api_table.tsv) bound to that NVRTC's own function.
//  * Status: NVRTC_ERROR_INTERNAL_ERROR (11) when no acceptable NVRTC was found;
//    NVRTC_ERROR_INVALID_INPUT (3) for an entry the chosen NVRTC lacks (nvrtcGetLTOIR before 12.x,
//    the PCH functions and nvrtcSetFlowCallback before 13.0): the call cannot be carried out with
//    what the caller passed, which every caller already handles as a refusal, and it never means
//    success or "retry". With no NVRTC at all the drop-in's nvrtcGetErrorString answers cudyn's
//    own text (stubs/toolkit_trampoline.h).
//  * Acceptance (loader/nvrtc_rule.h): its release's PTX ISA was introduced at or before the
//    driver's CUDA version (13.0 NVRTC output on a 12.2 driver fails with
//    CUDA_ERROR_UNSUPPORTED_PTX_VERSION). Version: nvrtcVersion (1000*major + 10*minor).
//  * Builtins: NVRTC dlopens libnvrtc-builtins.so.<major.minor> by bare name at its first compile
//    (no RUNPATH in the real libraries), so the copy beside the chosen NVRTC is loaded at open;
//    otherwise a compile of an NVRTC found outside the linker's search fails with
//    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7). companion() says what was done.
#ifndef CUDYN_LOADER_NVRTC_H_
#define CUDYN_LOADER_NVRTC_H_

#include "loader/toolkit.h"
#include "version_tables/generated_nvrtc/nvrtc_entry_count.h"

namespace cudyn {

// nvrtcResult values cudyn itself produces (same numbers as nvrtc.h).
inline constexpr int kNvrtcSuccess = 0;
inline constexpr int kNvrtcErrorInvalidInput = 3;
inline constexpr int kNvrtcErrorInternalError = 11;

// Entry indices: kNvrtc_nvrtcVersion, ... (generated).
enum NvrtcEntryIndex : int {
#define CUDYN_NVRTC_ENTRY(index, ret, symbol, params, args) kNvrtc_##symbol = index,
#include "version_tables/generated_nvrtc/nvrtc_entries.inc"
#undef CUDYN_NVRTC_ENTRY
};

}  // namespace cudyn

CUDYN_DECLARE_TOOLKIT(Nvrtc, nvrtc, kNvrtcEntryCount)

#endif  // CUDYN_LOADER_NVRTC_H_
