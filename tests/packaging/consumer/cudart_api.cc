// The runtime loader's C++ API from the installed headers: opens the runtime given as argv[1].
#include <cstdio>
#include <memory>

#include <cudyn/cudart.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  cudyn::RuntimeOptions options;
  options.runtime_path = argv[1];
  std::unique_ptr<cudyn::Runtime> runtime = cudyn::Runtime::Open(options);
  if (!runtime || !runtime->ok()) {
    std::printf("open failed: %s\n", runtime ? runtime->last_error().c_str() : "?");
    return 1;
  }
  int missing = runtime->BindAll();
  std::printf("runtime: family=%d version=%d entries=%d missing=%d\n", runtime->family(),
              runtime->version(), cudyn::kCudartEntryCount, missing);
  return 0;
}
