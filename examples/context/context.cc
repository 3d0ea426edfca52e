// context: cuCtxCreate with the CUDA 13.0 signature, cuCtxSynchronize and cuCtxGetDevice.
//
// cuCtxCreate(&ctx, NULL, flags, dev) is cuCtxCreate_v4 under the CUDA 13.0 headers (CUDA 12.5); on
// an older driver cudyn calls cuCtxCreate_v3 (11.4) or cuCtxCreate_v2 with the same flags and
// device. cuCtxSynchronize_v2(ctx) and cuCtxGetDevice_v2(&dev, ctx) (CUDA 13.0) take an explicit
// context; before 13.0 cudyn pushes that context, calls the old variant and pops it again, so the
// calling thread's current context must come out unchanged - which this example checks.
#include <cuda.h>

#include <vector>

#include "common/example.h"

namespace {

CUcontext Current() {
  CUcontext ctx = nullptr;
  CU_CHECK(cuCtxGetCurrent(&ctx));
  return ctx;
}

void ExpectCurrent(const char* when, CUcontext want) {
  CUcontext got = Current();
  if (got != want) {
    example::Fail("current context %s is %p, expected %p", when, static_cast<void*>(got),
                  static_cast<void*>(want));
  }
}

void ExpectDevice(const char* what, CUdevice got, CUdevice want) {
  if (got != want) example::Fail("%s: device %d, expected %d", what, got, want);
}

// The vector-add workload in the current context; returns c.
std::vector<float> VectorAdd(std::vector<float>* a, std::vector<float>* b) {
  CUmodule module = example::LoadKernels();
  CUfunction vector_add = example::GetKernel(module, "vector_add");
  int n = example::kVectorAddN;
  example::VectorAddInputs(n, a, b);
  std::vector<float> c(n, -1.0f);
  size_t bytes = sizeof(float) * n;
  CUdeviceptr da = 0, db = 0, dc = 0;
  CU_CHECK(cuMemAlloc(&da, bytes));
  CU_CHECK(cuMemAlloc(&db, bytes));
  CU_CHECK(cuMemAlloc(&dc, bytes));
  CU_CHECK(cuMemcpyHtoD(da, a->data(), bytes));
  CU_CHECK(cuMemcpyHtoD(db, b->data(), bytes));
  void* params[] = {&da, &db, &dc, &n};
  CU_CHECK(cuLaunchKernel(vector_add, example::BlocksFor(n), 1, 1, example::kThreadsPerBlock, 1, 1,
                          0, nullptr, params, nullptr));
  CU_CHECK(cuCtxSynchronize());
  CU_CHECK(cuMemcpyDtoH(c.data(), dc, bytes));
  CU_CHECK(cuMemFree(da));
  CU_CHECK(cuMemFree(db));
  CU_CHECK(cuMemFree(dc));
  CU_CHECK(cuModuleUnload(module));
  return c;
}

}  // namespace

int main() {
  CUdevice device = 0;
  if (int code = example::Start("context", &device)) return code;

  // cuCtxCreate_v4 (13.0 headers): no create params, default flags. It becomes current.
  CUcontext ctx = nullptr;
  CU_CHECK(cuCtxCreate(&ctx, nullptr, 0, device));
  if (ctx == nullptr) example::Fail("cuCtxCreate returned a NULL context");
  ExpectCurrent("after cuCtxCreate", ctx);
  CUdevice got = -1;
  CU_CHECK(cuCtxGetDevice(&got));
  ExpectDevice("cuCtxGetDevice", got, device);
  example::PartRan("ctx_create");

  std::vector<float> a, b;
  std::vector<float> c = VectorAdd(&a, &b);
  long bad = example::FirstVectorAddMismatch(a, b, c);
  if (bad >= 0) example::Fail("vector_add in the created context: c[%ld] = %g", bad, c[bad]);
  CU_CHECK(cuCtxSynchronize_v2(ctx));
  example::PartRan("ctx_vector_add");
  example::PrintChecksum("ctx_vector_add", c.data(), sizeof(float) * c.size());

  // A second context with explicit flags (they must reach the driver through any adapter).
  CUcontext blocking = nullptr;
  CU_CHECK(cuCtxCreate(&blocking, nullptr, CU_CTX_SCHED_BLOCKING_SYNC, device));
  ExpectCurrent("after the second cuCtxCreate", blocking);
  unsigned int flags = 0;
  CU_CHECK(cuCtxGetFlags(&flags));
  if ((flags & CU_CTX_SCHED_MASK) != CU_CTX_SCHED_BLOCKING_SYNC) {
    example::Fail("cuCtxGetFlags: 0x%x, expected CU_CTX_SCHED_BLOCKING_SYNC (0x%x) in the mask", flags,
                  static_cast<unsigned>(CU_CTX_SCHED_BLOCKING_SYNC));
  }
  // Explicit-context variants on the first context while the second one is current...
  got = -1;
  CU_CHECK(cuCtxGetDevice_v2(&got, ctx));
  ExpectDevice("cuCtxGetDevice_v2(ctx)", got, device);
  CU_CHECK(cuCtxSynchronize_v2(ctx));
  ExpectCurrent("after cuCtxGetDevice_v2/cuCtxSynchronize_v2 on another context", blocking);
  // ... and with no context current at all.
  CUcontext popped = nullptr;
  CU_CHECK(cuCtxPopCurrent(&popped));
  if (popped != blocking) example::Fail("cuCtxPopCurrent returned %p", static_cast<void*>(popped));
  CU_CHECK(cuCtxPopCurrent(&popped));
  if (popped != ctx) example::Fail("cuCtxPopCurrent returned %p", static_cast<void*>(popped));
  ExpectCurrent("after popping both contexts", nullptr);
  got = -1;
  CU_CHECK(cuCtxGetDevice_v2(&got, blocking));
  ExpectDevice("cuCtxGetDevice_v2(blocking) with no current context", got, device);
  CU_CHECK(cuCtxSynchronize_v2(blocking));
  ExpectCurrent("after cuCtxGetDevice_v2/cuCtxSynchronize_v2 with no current context", nullptr);
  example::PartRan("ctx_explicit");

  CU_CHECK(cuCtxDestroy(blocking));
  CU_CHECK(cuCtxDestroy(ctx));
  return example::Finish();
}
