// Driver emulation on a GPU (tests/gpu/run_emulate.sh): loads each image given through
// cuModuleLoadData, cuModuleLoad and cuLibraryLoadData and runs its kernel fill(int*) once,
// printing the results; the script compares them across clamps with and without emulation.
#include <cuda.h>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
int main(int argc, char** argv) {
  int v = 0;
  cuDriverGetVersion(&v);
  CUresult rc = cuInit(0);
  int n = -7;
  CUresult rcn = cuDeviceGetCount(&n);
  printf("version=%d cuInit=%d cuDeviceGetCount=%d count=%d\n", v, rc, rcn, n);
  if (rc != CUDA_SUCCESS) return 0;
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    data.push_back('\0');
    CUmodule m = nullptr;
    CUresult l1 = cuModuleLoadData(&m, data.data());
    std::string run = "-";
    if (l1 == CUDA_SUCCESS) {
      CUfunction f;
      CUdeviceptr d;
      cuMemAlloc(&d, 64);
      cuMemsetD8(d, 0, 64);
      CUresult g = cuModuleGetFunction(&f, m, "_Z4fillPi");
      void* args[] = {&d};
      CUresult k = g ? g : cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, args, nullptr);
      CUresult s = cuCtxSynchronize();
      int h[4] = {-1, -1, -1, -1};
      cuMemcpyDtoH(h, d, sizeof h);
      run = "get=" + std::to_string(g) + " launch=" + std::to_string(k) + " sync=" + std::to_string(s) +
            " out=" + std::to_string(h[0]) + std::to_string(h[1]) + std::to_string(h[2]) + std::to_string(h[3]);
      cuMemFree(d);
      cuModuleUnload(m);
    }
    CUmodule m2 = nullptr;
    CUresult l2 = cuModuleLoad(&m2, argv[i]);
    if (l2 == CUDA_SUCCESS) cuModuleUnload(m2);
    CUlibrary lib = nullptr;
    CUresult l3 = cuLibraryLoadData(&lib, data.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (l3 == CUDA_SUCCESS) cuLibraryUnload(lib);
    std::string base = argv[i];
    base = base.substr(base.rfind('/') + 1);
    printf("%-12s cuModuleLoadData=%d [%s] cuModuleLoad=%d cuLibraryLoadData=%d\n", base.c_str(), l1,
           run.c_str(), l2, l3);
  }
  return 0;
}
