/* Control API of the generated fake CUDA runtimes (tests/fake_runtime). Each fake exports exactly
 * the cuda* / __cuda* symbols of the real runtime it stands for (name@@SONAME) plus these
 * functions, nothing else. Find them with dlsym on the fake's handle. Thread-safe.
 *
 * Every entry point records its call (a count, and the last call's arguments: each argument's
 * bytes as passed, sizeof its type, at most 64 bytes; a struct passed by value such as dim3,
 * cudaExtent or cudaMemLocation included; and for each `const struct X*` argument the whole
 * struct it points to), writes the configured out-injections, and returns the
 * configured result (default 0 = cudaSuccess). Functions returning const char* return the static
 * string "fake:<symbol>"; exported names no header declares are `int NAME(void)`.
 *
 * Behaviour beyond that (when the configured result is 0):
 *   cudaRuntimeGetVersion   writes the fake's version (1000 * major + 10 * minor)
 *   cudaDriverGetVersion    writes fake_cudart_set_driver_version's value, default the same
 *   cudaGetDeviceCount      writes 1
 *   cudaGetDeviceProperties, cudaGetDeviceProperties_v2 (where the header declares them)
 *                           fill every field F of the fake's own struct cudaDeviceProp with
 *                           byte k = low byte of (fnv1a32(F) + k), where fnv1a32 is 32-bit FNV-1a
 *                           over the field name (offset basis 2166136261, prime 16777619) and k
 *                           counts from 0 at the field's first byte; except
 *                           name = "cudyn fake runtime <version>" NUL padded, major = 9,
 *                           minor = 0, multiProcessorCount = 132, totalGlobalMem = 85899345920.
 *                           Padding between fields is left as it was.
 *   cudaChooseDevice        keeps a copy of *prop (see fake_cudart_chosen_field), writes 0
 *   __cudaRegisterFatBinary returns a non-null handle (always)
 *   __cudaInitModule        returns 1 (0 when a non-zero result is configured)
 *   __cudaPushCallConfiguration / __cudaPopCallConfiguration
 *                           a per-thread stack of (grid, block, shared, stream); pop writes the
 *                           top through its pointers, or returns 52 (missing configuration)
 *   __cudaGetKernel         writes the host function's address as the kernel handle
 *   cudaCreateChannelDesc   returns {x, y, z, w, f}
 *   cudaGetLastError, cudaPeekAtLastError
 *                           return the configured result when it is not 0, else the calling
 *                           thread's last error: the last non-zero result any other cudaError_t
 *                           entry returned on this thread (Get clears it, Peek does not), as a
 *                           real runtime keeps it
 */
#ifndef CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_
#define CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Forgets every call, result, out-injection, the driver version, the chosen prop and the calling
 * thread's last error. */
void fake_cudart_reset(void);
/* What later calls of `symbol` return (a cudaError_t, or the int of an undeclared export). */
void fake_cudart_set_result(const char* symbol, int result);
/* What cudaDriverGetVersion reports; 0 = the fake's own runtime version. */
void fake_cudart_set_driver_version(int version);
/* Calls of `symbol` since the last reset. */
int fake_cudart_call_count(const char* symbol);
/* Copies the bytes recorded for argument `arg_index` (from 0) of the last call of `symbol` into
 * out (at most `size`); returns the recorded byte count, or -1 when there was no such call or
 * argument. */
int fake_cudart_last_arg(const char* symbol, int arg_index, void* out, size_t size);
/* Copies the struct a `const struct X*` argument `arg_index` of the last call of `symbol` pointed
 * to, as it was at the call, in the fake's own layout (sizeof X of the fake's headers), into out
 * (at most `size`); returns its byte count: 0 when the pointer was NULL, -1 when there was no such
 * call or the argument is no `const struct X*` of a complete type. */
int fake_cudart_last_pointee(const char* symbol, int arg_index, void* out, size_t size);
/* Makes every later call of `symbol` (until reset) write `bytes` through its pointer argument
 * `arg_index` when that pointer is not NULL, after the fake's own behaviour above. */
void fake_cudart_set_out(const char* symbol, int arg_index, const void* bytes, size_t size);
/* Field `field_name` of the cudaDeviceProp the last cudaChooseDevice received, in the fake's own
 * layout: copies it (at most `size` bytes) and returns its size, or -1 when that layout has no
 * such field or cudaChooseDevice was not called. */
int fake_cudart_chosen_field(const char* field_name, void* out, size_t size);
/* "fake libcudart <version>", e.g. "fake libcudart 11.8". */
const char* fake_cudart_identity(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_ */
