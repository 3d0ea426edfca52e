/* Minimal stand-in (see egl.h). */
#include <EGL/egl.h>
