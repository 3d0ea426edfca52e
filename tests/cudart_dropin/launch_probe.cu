// nvcc's host-stub ABI through cudyn's runtime drop-in, on a fake runtime (no GPU): registering
// the fat binary and launching `<<<...>>>` must reach the chosen runtime with the right
// configuration. The program asks the fake (the runtime cudyn loaded from CUDYN_CUDART_PATH)
// what it received and prints it; tests/cudart_dropin/dropin_test.sh checks the lines.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fake_runtime/fake_runtime_control.h"

__global__ void Probe(int* out, int value) {
  if (out != nullptr) *out = value;
}

int main() {
  const char* path = std::getenv("CUDYN_CUDART_PATH");
  void* fake = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  int version = 0;
  cudaError_t rc = cudaRuntimeGetVersion(&version);
  std::printf("runtime_rc=%d runtime=%d fake_loaded=%d\n", rc, version, fake != nullptr);
  if (fake == nullptr) return 1;
  auto calls = reinterpret_cast<int (*)(const char*)>(dlsym(fake, "fake_cudart_call_count"));
  auto arg = reinterpret_cast<int (*)(const char*, int, void*, size_t)>(
      dlsym(fake, "fake_cudart_last_arg"));
  std::printf("register_fatbin=%d register_function=%d\n", calls("__cudaRegisterFatBinary"),
              calls("__cudaRegisterFunction"));

  Probe<<<dim3(3, 2, 1), dim3(64, 1, 1), 128>>>(nullptr, 5);
  rc = cudaGetLastError();
  const char* via = calls("__cudaLaunchKernel") > 0 ? "__cudaLaunchKernel"
                    : calls("cudaLaunchKernel") > 0 ? "cudaLaunchKernel"
                                                    : "none";
  std::printf("launch_via=%s\n", via);
  if (std::string_view(via) == "none") return 1;
  dim3 grid, block;
  size_t shared = 0;
  arg(via, 1, &grid, sizeof(grid));
  arg(via, 2, &block, sizeof(block));
  arg(via, 4, &shared, sizeof(shared));
  std::printf("grid=%u,%u,%u block=%u,%u,%u shared=%zu\n", grid.x, grid.y, grid.z, block.x,
              block.y, block.z, shared);
  if (std::string_view(via) == "cudaLaunchKernel") {
    // Before 12.x the kernel handle is the host stub itself, as cudaLaunchKernel takes it.
    const void* func = nullptr;
    arg(via, 0, &func, sizeof(func));
    std::printf("func_is_host_stub=%d\n", func == reinterpret_cast<const void*>(&Probe));
    // Runtimes before 12.3 lack cudaFuncGetName: cudyn answers with the device name nvcc's
    // registration code passed through the drop-in.
    const char* name = nullptr;
    rc = cudaFuncGetName(&name, reinterpret_cast<const void*>(&Probe));
    std::printf("func_name_rc=%d func_name=%s\n", rc, name != nullptr ? name : "(null)");
  }
  return 0;
}
