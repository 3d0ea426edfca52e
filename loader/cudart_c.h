/* cudyn C introspection API for the runtime side: the process-wide CUDA runtime (the one the
 * runtime drop-in uses) as seen from C or any FFI. Safe with no driver or runtime installed;
 * strings are owned by cudyn and live for the life of the process. Entry indices run from 0 to
 * cudynCudartEntryCount()-1 (one per runtime-API function of the CUDA 13.0 headers). */
#ifndef CUDYN_LOADER_CUDART_C_H_
#define CUDYN_LOADER_CUDART_C_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the default runtime if not yet open. Returns 0 or 303 (no usable runtime). */
int cudynCudartInit(void);
/* Path of the runtime in use, or "". */
const char* cudynCudartPath(void);
/* Its family (10, 11, 12, 13; 0 when none) and version (1000*major + 10*minor). */
int cudynCudartFamily(void);
int cudynCudartVersion(void);
int cudynCudartEntryCount(void);
const char* cudynCudartEntrySymbol(int index);
int cudynCudartFindEntry(const char* symbol);
/* Binds the entry if needed; "native", "adapter" or "missing" (NULL for a bad index). */
const char* cudynCudartEntryStatus(int index);
/* Copies the runtime's symbol that serves a native entry; returns its length, -1 if none. */
int cudynCudartEntryRuntimeSymbol(int index, char* buffer, size_t size);
/* Binds every entry; returns the number missing, or -1 with no runtime. */
int cudynCudartBindAll(void);
/* Copies the last error text; returns its full length. */
int cudynCudartLastError(char* buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_LOADER_CUDART_C_H_ */
