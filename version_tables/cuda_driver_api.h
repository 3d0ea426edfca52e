// Includes every driver-API header the tables cover (cuda.h, cudaProfiler.h and the GL, EGL and
// VDPAU interop headers) so that every ABI variant the compiling toolkit knows is declared under
// its own name: __CUDA_API_VERSION_INTERNAL exposes the old prototypes and types newer headers
// hide. The interop headers' GL/EGL/VDPAU types come from interop_shim/ (ABI-identical
// stand-ins), so no graphics SDK is needed. Only cudyn's own translation units include this.
#ifndef CUDYN_VERSION_TABLES_CUDA_DRIVER_API_H_
#define CUDYN_VERSION_TABLES_CUDA_DRIVER_API_H_

#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include <cuda.h>
#include <cudaEGL.h>
#include <cudaGL.h>
#include <cudaProfiler.h>
#include <vdpau/vdpau.h>  // cudaVDPAU.h expects its includer to provide the VDPAU types
#include <cudaVDPAU.h>

#endif  // CUDYN_VERSION_TABLES_CUDA_DRIVER_API_H_
