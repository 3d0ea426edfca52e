// A program whose libcuda.so.1 is cudyn's drop-in, loaded first (as a program linked with -lcuda
// gets it), then a CUDA runtime: the real one given, or cudyn's runtime drop-in. Prints what each
// layer reports, for clamp_consistency_test.sh:
//   program_driver=<cuDriverGetVersion as the program sees it>
//   runtime_driver=<cudaDriverGetVersion of the runtime>   runtime_version=<cudaRuntimeGetVersion>
//   device_count_rc=<cudaGetDeviceCount's result>          libcuda_files=<real libcuda files mapped>
//   dropin_mapped=<1 when the drop-in is the process's libcuda.so.1>
//   embedded_driver=<cuDriverGetVersion as code of EMBEDDED_LIBRARY sees it> <EMBEDDED_LIBRARY>
//     (embedded_runtime_lib.cc: a library with a runtime compiled in; called before the program's
//     own first cuDriverGetVersion, so the first one takes the drop-in's first-call path)
// Usage: clamp_consistency_probe RUNTIME_LIBRARY [EMBEDDED_LIBRARY...]   (exit 2: a library did
// not load)
//        clamp_consistency_probe --cublas CUBLAS_LIBRARY: cublasCreate_v2's result
//     (cublas_create_rc=): the real cuBLAS's runtime calls the drop-in from inside cuBLAS.
//        clamp_consistency_probe --init EMBEDDED_LIBRARY: cuInit's result as that library's runtime
//     reaches it through cuGetProcAddress (init_rc=), then the program's own (program_init_rc=).
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

namespace {

using VersionFn = int (*)(int*);

int Version(void* handle, const char* name, int* rc) {
  auto fn = reinterpret_cast<VersionFn>(dlsym(handle, name));
  int value = 0;
  *rc = fn != nullptr ? fn(&value) : -1;
  return value;
}

// Distinct mapped files named libcuda.so.<something> other than the drop-in's name.
int RealDriverFilesMapped() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> files;
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.rfind('/');
    if (slash == std::string::npos) continue;
    const std::string name = line.substr(slash + 1);
    if (name.rfind("libcuda.so.", 0) == 0) files.insert(line.substr(line.find('/')));
  }
  return static_cast<int>(files.size());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc < 2 || ((mode == "--cublas" || mode == "--init") && argc != 3)) {
    std::fprintf(stderr,
                 "usage: %s RUNTIME_LIBRARY [EMBEDDED_LIBRARY...] | --cublas LIBRARY | --init "
                 "LIBRARY\n",
                 argv[0]);
    return 2;
  }
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (driver == nullptr) {
    std::fprintf(stderr, "libcuda.so.1: %s\n", dlerror());
    return 2;
  }
  std::printf("dropin_mapped=%d\n", dlsym(driver, "cudynEntryCount") != nullptr ? 1 : 0);
  if (std::string(argv[1]) == "--cublas") {
    void* cublas = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    auto create = cublas != nullptr ? reinterpret_cast<int (*)(void**)>(
                                          dlsym(cublas, "cublasCreate_v2"))
                                    : nullptr;
    if (create == nullptr) {
      std::fprintf(stderr, "%s: %s\n", argv[2], dlerror());
      return 2;
    }
    void* handle = nullptr;
    std::printf("cublas_create_rc=%d\n", create(&handle));  // no GPU here: not 0
    return 0;
  }
  if (mode == "--init") {
    void* library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    auto init = library != nullptr
                    ? reinterpret_cast<int (*)()>(dlsym(library, "embedded_runtime_init"))
                    : nullptr;
    auto program_init = reinterpret_cast<int (*)(unsigned)>(dlsym(driver, "cuInit"));
    if (init == nullptr || program_init == nullptr) {
      std::fprintf(stderr, "%s: %s\n", argv[2], dlerror());
      return 2;
    }
    std::printf("init_rc=%d\n", init());
    std::printf("program_init_rc=%d\n", program_init(0));
    return 0;
  }
  for (int i = 2; i < argc; ++i) {
    void* library = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    auto fn = library != nullptr ? reinterpret_cast<int (*)()>(
                                       dlsym(library, "embedded_runtime_driver_version"))
                                 : nullptr;
    if (fn == nullptr) {
      std::fprintf(stderr, "%s: %s\n", argv[i], dlerror());
      return 2;
    }
    std::printf("embedded_driver=%d %s\n", fn(), argv[i]);
  }
  int rc = 0;
  const int program_driver = Version(driver, "cuDriverGetVersion", &rc);
  std::printf("program_driver=%d (rc %d)\n", program_driver, rc);
  void* runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (runtime == nullptr) {
    std::fprintf(stderr, "%s: %s\n", argv[1], dlerror());
    return 2;
  }
  const int runtime_driver = Version(runtime, "cudaDriverGetVersion", &rc);
  std::printf("runtime_driver=%d (rc %d)\n", runtime_driver, rc);
  const int runtime_version = Version(runtime, "cudaRuntimeGetVersion", &rc);
  std::printf("runtime_version=%d (rc %d)\n", runtime_version, rc);
  Version(runtime, "cudaGetDeviceCount", &rc);  // the count itself: no GPU here
  std::printf("device_count_rc=%d\n", rc);
  std::printf("libcuda_files=%d\n", RealDriverFilesMapped());
  return 0;
}
