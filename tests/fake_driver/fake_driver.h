/* Fake NVIDIA drivers for tests: the call-log and fault-injection API every fake exports.
 *
 * //tests/fake_driver:cuda_<V>/libcuda.so.1 (V in 10000 10010 10020 11000 11020 11040 11080 12000
 * 12020 12040 12080 13000) exports exactly the cu* symbols of a CUDA V driver (see
 * gen_fake_driver.py), reports V from cuDriverGetVersion, implements cuGetProcAddress(_v2) with the
 * behaviour of that driver generation, and otherwise does nothing but record the call and return
 * CUDA_SUCCESS (cuInit: 100 CUDA_ERROR_NO_DEVICE, or $CUDYN_FAKE_INIT_RESULT). Every call to an
 * exported cu* function is recorded, cuDriverGetVersion and cuGetProcAddress(_v2) included.
 *
 * Reach the API of a loaded fake with dlsym on its handle (cudynFakeBind does that), e.g.
 * Driver::handle() of a cudyn::Driver opened on a fake. Nothing here is thread-unsafe: the log
 * is guarded by a mutex. Out-parameters of recorded functions are never written, except with a
 * fake GPU: $CUDYN_FAKE_GPU set to a compute capability number (90 for sm_90) makes cuInit
 * succeed (unless $CUDYN_FAKE_INIT_RESULT says otherwise), cuDeviceGetCount write 1,
 * cuCtxGetDevice write device 0 and cuDeviceGetAttribute write the capability's major / minor
 * for attributes 75 / 76 of device 0.
 */
#ifndef CUDYN_TESTS_FAKE_DRIVER_FAKE_DRIVER_H_
#define CUDYN_TESTS_FAKE_DRIVER_FAKE_DRIVER_H_

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUDYN_FAKE_MAX_WORDS 32 /* raw argument words one record keeps */
#define CUDYN_FAKE_MAX_CALLS 8192 /* records kept after a reset (later calls are counted only) */
#define CUDYN_FAKE_MAX_CAPTURE 256 /* bytes a record can copy from a pointer argument */

/* One recorded call. Each argument takes one 64-bit word: pointers as their address, integers
 * and enums converted to int64 (so a CUdevice of -1 reads back as (long long)-1, and
 * (int)args[i] recovers any 32-bit value), floating-point values bitwise. A struct passed by
 * value (CUmemLocation, ...) is copied bytewise into ceil(size / 8) words (zero padded); the
 * word index of argument i is arg_word[i]. */
typedef struct CudynFakeCall {
  const char* symbol;  /* exported name of the function that ran, e.g. "cuMemAdvise" */
  int num_args;        /* C parameters of that function */
  int num_words;       /* words used in args[] */
  unsigned long long args[CUDYN_FAKE_MAX_WORDS];
  int arg_word[CUDYN_FAKE_MAX_WORDS]; /* first word of argument i in args[] */
  int result;          /* the CUresult the call returned */
  char requested[128]; /* cuGetProcAddress(_v2): the symbol name asked for (copied, truncated);
                          "" for other functions */
  int captured_size;   /* bytes in captured[] (see cudynFakeSetCapture), else 0 */
  unsigned char captured[CUDYN_FAKE_MAX_CAPTURE]; /* copied at call time, while the caller's
                          object (e.g. an adapter's local) still exists */
} CudynFakeCall;

/* Calls recorded since load or the last cudynFakeReset() (may exceed CUDYN_FAKE_MAX_CALLS). */
int cudynFakeCallCount(void);
/* Record i (0-based, oldest first), or NULL when out of range. Valid until the next reset. */
const CudynFakeCall* cudynFakeCall(int i);
/* Clears the log and every result set by cudynFakeSetResult. */
void cudynFakeReset(void);
/* Fault injection: from now on `symbol` (an exported cu* name of this fake) returns `result`
 * without doing anything else (the call is still recorded). Returns 0, or -1 when this fake
 * does not export `symbol`. cuInit returns $CUDYN_FAKE_INIT_RESULT (an integer), else 100,
 * unless set here. */
int cudynFakeSetResult(const char* symbol, int result);
/* From now on, each call of `symbol` also copies `size` bytes (at most CUDYN_FAKE_MAX_CAPTURE)
 * from the pointer passed as its argument `arg` (0-based) into the record's captured[]; a NULL
 * pointer copies nothing. Returns 0, or -1 when this fake does not export `symbol` or the size is
 * out of range. Cleared by cudynFakeReset(). */
int cudynFakeSetCapture(const char* symbol, int arg, int size);
/* The CUDA version this fake reports (what cuDriverGetVersion writes). */
int cudynFakeCudaVersion(void);

/* Function-pointer bundle for a fake loaded with dlopen. */
typedef struct CudynFakeApi {
  int (*call_count)(void);
  const CudynFakeCall* (*call)(int);
  void (*reset)(void);
  int (*set_result)(const char*, int);
  int (*cuda_version)(void);
  int (*set_capture)(const char*, int, int);
} CudynFakeApi;

/* Fills *api from a dlopen handle of a fake. Returns 1 on success, 0 when `handle` is not a fake. */
static inline int cudynFakeBind(void* handle, CudynFakeApi* api) {
  api->call_count = (int (*)(void))dlsym(handle, "cudynFakeCallCount");
  api->call = (const CudynFakeCall* (*)(int))dlsym(handle, "cudynFakeCall");
  api->reset = (void (*)(void))dlsym(handle, "cudynFakeReset");
  api->set_result = (int (*)(const char*, int))dlsym(handle, "cudynFakeSetResult");
  api->cuda_version = (int (*)(void))dlsym(handle, "cudynFakeCudaVersion");
  api->set_capture = (int (*)(const char*, int, int))dlsym(handle, "cudynFakeSetCapture");
  return api->call_count && api->call && api->reset && api->set_result && api->cuda_version &&
         api->set_capture;
}

#ifdef __cplusplus
}
#endif

#endif /* CUDYN_TESTS_FAKE_DRIVER_FAKE_DRIVER_H_ */
