/* Minimal stand-in so cudaGL.h compiles without an OpenGL SDK (type names only). */
#ifndef CUDYN_EXTRACT_SHIM_GL_H
#define CUDYN_EXTRACT_SHIM_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
#endif
