/* Minimal stand-in so cudaEGL.h compiles without an EGL SDK (type names only). */
#ifndef CUDYN_EXTRACT_SHIM_EGL_H
#define CUDYN_EXTRACT_SHIM_EGL_H
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
typedef void *EGLDisplay;
typedef int EGLint;
typedef unsigned int EGLenum;
#endif
