// Driver-API helpers shared by the examples (all linked with @cudyn//stubs:cudyn_cuda, never -lcuda).
//
// Every example prints the same line-oriented report on stdout (examples/README.md documents it):
//   example: <name>
//   driver: CUDA 13.0 (13000)                    cuDriverGetVersion (cudyn reports the clamped version)
//   cudyn: <path>, CUDA 13000, effective 13000, strategy cuGetProcAddress_v2
//   init: cuInit(0) = 0 CUDA_SUCCESS
//   device: 0 <name> (compute capability 9.0, 81079 MiB)
//   part <part>: ran                             or: not available at this driver version (...)
//   checksum <part> <hex>                        only for parts whose numeric checks passed
//   result: PASS (N parts ran, M not available)  or FAIL / NO DEVICE / NO DRIVER
// and exits with example::ExitCode.
#ifndef CUDYN_EXAMPLES_COMMON_EXAMPLE_H_
#define CUDYN_EXAMPLES_COMMON_EXAMPLE_H_

#include <cuda.h>

#include "common/host.h"

#if CUDA_VERSION < 13000
#error "the cudyn examples are written against the CUDA 13.0 headers: point CUDA_PATH at a 13.x toolkit"
#endif

namespace example {

// Prints the header lines, checks the driver and cuInit(0), and gets device 0. Returns kExitPass
// when the example can go on; otherwise the exit code to return (the "result:" line is printed).
int Start(const char* name, CUdevice* device);

// The CUDA version cuDriverGetVersion reported in Start (the effective one under a clamp).
int DriverVersion();

// "CUDA_ERROR_..." for a CUresult (cuGetErrorName works without a driver).
const char* ResultName(CUresult rc);

// Prints "FAIL: <message>" and "result: FAIL", then exits with kExitFail.
[[noreturn]] void Fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Fails unless rc is CUDA_SUCCESS.
void Check(CUresult rc, const char* call, const char* file, int line);
#define CU_CHECK(call) ::example::Check((call), #call, __FILE__, __LINE__)

// For a call that needs CUDA `needs_version`: false when rc is CUDA_SUCCESS. True (and the
// "not available at this driver version" line for `part` is printed) only when the driver is
// older than `needs_version` and cudyn answered 302 CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND or
// 801 CUDA_ERROR_NOT_SUPPORTED: the documented, expected outcome on an old driver. Anything else
// fails the example. `fallback`, when not null, says what the example does instead.
bool NotAvailable(const char* part, const char* call, CUresult rc, int needs_version,
                  const char* fallback = nullptr);

// "part <part>: ran" (counted for the result line).
void PartRan(const char* part);

// Prints "result: PASS (...)" and returns kExitPass.
int Finish();

// Loads the embedded PTX module (cuModuleLoadData) and gets a kernel from it.
CUmodule LoadKernels();
CUfunction GetKernel(CUmodule module, const char* name);

}  // namespace example

#endif  // CUDYN_EXAMPLES_COMMON_EXAMPLE_H_
