// The C++ API from the installed headers: opens the driver given as argv[1] as a second Driver.
#include <cstdio>
#include <memory>

#include <cudyn/cudyn.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::optional<int> clamp = cudyn::ParseCudaVersion("11.4");
  cudyn::DriverOptions options;
  options.driver_path = argv[1];
  options.max_cuda_version = clamp;
  std::unique_ptr<cudyn::Driver> driver = cudyn::Driver::Open(options);
  if (!driver || !driver->ok()) {
    std::printf("open failed: %s\n", driver ? driver->last_error().c_str() : "?");
    return 1;
  }
  std::printf("loader: cuda_version=%d effective=%d strategy=%s entries=%d\n", driver->cuda_version(),
              driver->effective_version(), cudyn::StrategyName(driver->strategy()), cudyn::kEntryCount);
  return 0;
}
