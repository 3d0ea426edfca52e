/* Minimal stand-in so cudaVDPAU.h compiles without the VDPAU SDK (type names only). */
#ifndef CUDYN_EXTRACT_SHIM_VDPAU_H
#define CUDYN_EXTRACT_SHIM_VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef void VdpGetProcAddress;
#endif
