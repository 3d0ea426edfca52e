/* Control API of the generated fake CUDA runtimes (tests/fake_runtime): every fake exports these
 * beside exactly the cuda* / __cuda* symbols of the runtime version it stands for. Tests find
 * them with dlsym on the fake's handle. Thread-safe.
 *
 * Device properties: cudaGetDeviceProperties(_v2) fills every field F of the fake's own
 * cudaDeviceProp layout with byte k = low byte of (fnv1a32(F) + k) (FNV-1a over the field name,
 * offset basis 2166136261, prime 16777619), except name = "cudyn fake runtime <version>",
 * major = 9, minor = 0, multiProcessorCount = 132, totalGlobalMem = 85899345920. */
#ifndef CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_
#define CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Forgets every call, result, out-injection and driver version. */
void fake_cudart_reset(void);
/* What later calls of `symbol` return (cudaError_t; default 0). */
void fake_cudart_set_result(const char* symbol, int result);
/* What cudaDriverGetVersion reports (default: the fake's own runtime version). */
void fake_cudart_set_driver_version(int version);
int fake_cudart_call_count(const char* symbol);
/* Copies the last call's argument `arg_index` (its bytes as passed) into out; returns the
 * argument's size, or -1 when there was no such call or argument. */
int fake_cudart_last_arg(const char* symbol, int arg_index, void* out, size_t size);
/* Makes later calls of `symbol` write `bytes` through pointer argument `arg_index`. */
void fake_cudart_set_out(const char* symbol, int arg_index, const void* bytes, size_t size);
/* Field `field_name` of the cudaDeviceProp the last cudaChooseDevice received, in the fake's own
 * layout: copies it and returns its size, or -1 when the layout has no such field / no call. */
int fake_cudart_chosen_field(const char* field_name, void* out, size_t size);
/* "fake libcudart <version>". */
const char* fake_cudart_identity(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_TESTS_FAKE_RUNTIME_FAKE_RUNTIME_CONTROL_H_ */
