/* The graphics-interop functions through cudyn's untyped forwarding, against the real runtimes:
 *   forward_probe direct LIBCUDART   calls the runtime's own functions (dlopen, dlsym)
 *   forward_probe linked             calls the ones this program links (libcudart.so.13: the real
 *                                    one, or cudyn's drop-in under `cudyn run --runtime`)
 * Prints each function's result; both ways must print the same lines for the same runtime. Built
 * here with gcc against the 13.0 toolkit's libcudart.so.13 (see tests/gpu/run_cudart.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int cudaError_t;
cudaError_t cudaGLSetGLDevice(int device);
cudaError_t cudaGLGetDevices(unsigned int* count, int* devices, unsigned int size, int list);
cudaError_t cudaVDPAUGetDevice(int* device, unsigned int vdp_device, void* get_proc_address);
cudaError_t cudaGraphicsGLRegisterBuffer(void** resource, unsigned int buffer, unsigned int flags);

int main(int argc, char** argv) {
  cudaError_t (*set_gl_device)(int) = cudaGLSetGLDevice;
  cudaError_t (*gl_get_devices)(unsigned int*, int*, unsigned int, int) = cudaGLGetDevices;
  cudaError_t (*vdpau_get_device)(int*, unsigned int, void*) = cudaVDPAUGetDevice;
  cudaError_t (*register_buffer)(void**, unsigned int, unsigned int) = cudaGraphicsGLRegisterBuffer;
  if (argc == 3 && strcmp(argv[1], "direct") == 0) {
    void* h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return 2;
    set_gl_device = (cudaError_t(*)(int))dlsym(h, "cudaGLSetGLDevice");
    gl_get_devices = (cudaError_t(*)(unsigned int*, int*, unsigned int, int))dlsym(h, "cudaGLGetDevices");
    vdpau_get_device = (cudaError_t(*)(int*, unsigned int, void*))dlsym(h, "cudaVDPAUGetDevice");
    register_buffer = (cudaError_t(*)(void**, unsigned int, unsigned int))dlsym(h, "cudaGraphicsGLRegisterBuffer");
    if (!set_gl_device || !gl_get_devices || !vdpau_get_device || !register_buffer) return 3;
  } else if (argc != 2 || strcmp(argv[1], "linked") != 0) {
    return 2;
  }
  unsigned int count = 77;
  int devices[4] = {-1, -1, -1, -1};
  int device = -1;
  void* resource = NULL;
  printf("cudaGLGetDevices=%d count=%u\n", gl_get_devices(&count, devices, 4, 1), count);
  printf("cudaVDPAUGetDevice=%d\n", vdpau_get_device(&device, 0, NULL));
  printf("cudaGraphicsGLRegisterBuffer=%d\n", register_buffer(&resource, 0, 0));
  printf("cudaGLSetGLDevice=%d\n", set_gl_device(0));
  return 0;
}
