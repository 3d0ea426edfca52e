#include "common/example.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "loader/cudyn_c.h"  // cudyn's C introspection API: which driver, which version, strategy

namespace example {
namespace {

int g_driver_version = 0;
int g_parts_ran = 0;
int g_parts_unavailable = 0;

void Line(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Line(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

const char* ResultString(CUresult rc) {
  const char* text = nullptr;
  if (cuGetErrorString(rc, &text) != CUDA_SUCCESS || text == nullptr) return "unknown error";
  return text;
}

bool IsNoDriver(CUresult rc) {
  return rc == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED || rc == CUDA_ERROR_STUB_LIBRARY;
}

int NoDriver(const char* call, CUresult rc) {
  char last[2048];
  cudynLastError(last, sizeof(last));
  Line("%s", last);  // cudyn's last error: every path it tried and why it was rejected
  Line("result: NO DRIVER (%s returned %d %s: %s)", call, static_cast<int>(rc), ResultName(rc),
       ResultString(rc));
  return kExitNoDriver;
}

}  // namespace

const char* ResultName(CUresult rc) {
  const char* name = nullptr;
  if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == nullptr) return "CUDA_ERROR_UNKNOWN_CODE";
  return name;
}

int DriverVersion() { return g_driver_version; }

void Fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::printf("FAIL: ");
  std::vprintf(format, args);
  va_end(args);
  std::fputc('\n', stdout);
  Line("result: FAIL");
  std::exit(kExitFail);
}

void Check(CUresult rc, const char* call, const char* file, int line) {
  if (rc == CUDA_SUCCESS) return;
  Fail("%s returned %d %s (%s) at %s:%d", call, static_cast<int>(rc), ResultName(rc),
       ResultString(rc), file, line);
}

int Start(const char* name, CUdevice* device) {
  Line("example: %s", name);
  CUresult rc = cuDriverGetVersion(&g_driver_version);
  if (rc != CUDA_SUCCESS) {
    if (IsNoDriver(rc)) return NoDriver("cuDriverGetVersion", rc);
    Fail("cuDriverGetVersion returned %d %s", static_cast<int>(rc), ResultName(rc));
  }
  Line("driver: CUDA %s (%d)", CudaVersionText(g_driver_version).c_str(), g_driver_version);
  Line("cudyn: %s, CUDA %d, effective %d, strategy %s", cudynDriverPath(), cudynDriverCudaVersion(),
       cudynEffectiveCudaVersion(), cudynStrategy());
  rc = cuInit(0);
  Line("init: cuInit(0) = %d %s", static_cast<int>(rc), ResultName(rc));
  if (rc == CUDA_ERROR_NO_DEVICE) {
    Line("result: NO DEVICE (cuInit(0) returned 100 CUDA_ERROR_NO_DEVICE: %s)", ResultString(rc));
    return kExitNoDevice;
  }
  if (IsNoDriver(rc)) return NoDriver("cuInit(0)", rc);
  CU_CHECK(rc);
  CU_CHECK(cuDeviceGet(device, 0));
  char device_name[256] = {0};
  CU_CHECK(cuDeviceGetName(device_name, sizeof(device_name) - 1, *device));
  int major = 0, minor = 0;
  CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *device));
  CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *device));
  size_t total = 0;
  CU_CHECK(cuDeviceTotalMem(&total, *device));
  Line("device: %d %s (compute capability %d.%d, %zu MiB)", static_cast<int>(*device), device_name,
       major, minor, total >> 20);
  return kExitPass;
}

bool NotAvailable(const char* part, const char* call, CUresult rc, int needs_version,
                  const char* fallback) {
  if (rc == CUDA_SUCCESS) return false;
  bool expected = (rc == CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND || rc == CUDA_ERROR_NOT_SUPPORTED) &&
                  g_driver_version < needs_version;
  if (!expected) {
    Fail("%s returned %d %s on a CUDA %s driver (it needs %s)", call, static_cast<int>(rc),
         ResultName(rc), CudaVersionText(g_driver_version).c_str(),
         CudaVersionText(needs_version).c_str());
  }
  ++g_parts_unavailable;
  Line("part %s: not available at this driver version (%s returned %d %s; needs CUDA %s, driver "
       "is %s)%s%s",
       part, call, static_cast<int>(rc), ResultName(rc), CudaVersionText(needs_version).c_str(),
       CudaVersionText(g_driver_version).c_str(), fallback ? "; fallback: " : "",
       fallback ? fallback : "");
  return true;
}

void PartRan(const char* part) {
  ++g_parts_ran;
  Line("part %s: ran", part);
}

int Finish() {
  Line("result: PASS (%d part%s ran, %d not available)", g_parts_ran, g_parts_ran == 1 ? "" : "s",
       g_parts_unavailable);
  return kExitPass;
}

CUmodule LoadKernels() {
  CUmodule module = nullptr;
  CU_CHECK(cuModuleLoadData(&module, kVectorAddPtx));
  return module;
}

CUfunction GetKernel(CUmodule module, const char* name) {
  CUfunction function = nullptr;
  CU_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

}  // namespace example
