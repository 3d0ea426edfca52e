/* cudyn C introspection API: the process-wide driver (the one the drop-in stubs use) as seen
 * from C or any FFI. Every function is safe to call with no driver installed; none aborts.
 * Strings returned are owned by cudyn and live for the life of the process. Entry indices run
 * from 0 to cudynEntryCount()-1 (one per exported driver ABI variant). */
#ifndef CUDYN_LOADER_CUDYN_C_H_
#define CUDYN_LOADER_CUDYN_C_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the default driver if not yet open. Returns 0, 303 (no driver) or 34 (stub only). */
int cudynInit(void);
/* Path of the driver in use, or "" when none. */
const char* cudynDriverPath(void);
/* cuDriverGetVersion of the driver, and the effective version after CUDYN_MAX_CUDA_VERSION. */
int cudynDriverCudaVersion(void);
int cudynEffectiveCudaVersion(void);
/* "cuGetProcAddress_v2", "cuGetProcAddress", "dlsym" or "none". */
const char* cudynStrategy(void);
int cudynEntryCount(void);
/* Exact exported symbol of an entry, or NULL for a bad index. */
const char* cudynEntrySymbol(int index);
/* Index of an exported symbol name, or -1. */
int cudynFindEntry(const char* symbol);
/* Binds the entry if needed; "native", "adapter" or "missing" (NULL for a bad index). Asking
 * is not calling: a missing entry is not logged (a later call of it is, once). */
const char* cudynEntryStatus(int index);
/* "cuGetProcAddress_v2", "cuGetProcAddress", "dlsym", "adapter" or "none". */
const char* cudynEntryVia(int index);
/* Copies the driver's exported name of the function that runs for the entry (NUL-terminated,
 * truncated to size). Returns its full length, or -1 when the entry is not bound. */
int cudynEntryDriverSymbol(int index, char* buffer, size_t size);
/* Binds every entry; returns the number missing, or -1 with no driver. */
int cudynBindAll(void);
/* Copies the last error text (symbol, versions, path); returns its full length. */
int cudynLastError(char* buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_LOADER_CUDYN_C_H_ */
