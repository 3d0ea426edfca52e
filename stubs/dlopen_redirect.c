// The path redirect of a library's drop-in directory, preloaded by `cudyn run --<library>` only
// (never linked by a program): a program that dlopen()s the library by an absolute path
// ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", as some monitoring tools do) or by its
// unversioned name gets cudyn's drop-in beside this file instead, as a bare SONAME already does
// (the drop-in is preloaded under it). Built once per library that asks for it (TOOLKIT_LIBRARIES'
// `redirect_paths`), with CUDYN_REDIRECT_PREFIX ("libnvidia-ml.so") and CUDYN_REDIRECT_DROPIN
// ("libnvidia-ml.so.1", the drop-in's file name).
//
// dlopen itself stays glibc's: this `dlopen` (x86-64) asks cudyn_dlopen_target whether to swap the
// file name and then jumps to the real one with the caller's return address still on the stack, so
// glibc sees the program's own caller (whose RUNPATH resolves its bare names) as without cudyn.
// The drop-in itself opening the real library (by its absolute path) is never redirected.
// (C: a drop-in directory's files need only glibc.)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// realpath(3) into `out` (PATH_MAX), or false.
static bool Real(const char* path, char* out) { return realpath(path, out) != NULL; }

// This file's directory + "/" + CUDYN_REDIRECT_DROPIN, resolved once; "" when it cannot be.
static const char* DropinPath(void) {
  static char path[PATH_MAX] = {};
  static bool done = false;
  if (!done) {
    done = true;
    Dl_info info;
    char self[PATH_MAX];
    if (dladdr((void*)&DropinPath, &info) != 0 && info.dli_fname != NULL &&
        Real(info.dli_fname, self)) {
      char* slash = strrchr(self, '/');
      if (slash != NULL && (size_t)(slash - self) + 2 + sizeof CUDYN_REDIRECT_DROPIN < sizeof path) {
        *slash = '\0';
        char candidate[PATH_MAX];
        strcpy(candidate, self);
        strcat(candidate, "/" CUDYN_REDIRECT_DROPIN);
        if (!Real(candidate, path)) path[0] = '\0';
      }
    }
  }
  return path;
}

__attribute__((visibility("hidden"))) void* cudyn_real_dlopen = NULL;

// The file name dlopen should open instead of `file` (the drop-in's path), or null to open `file`.
// `caller`: the return address of the dlopen call.
__attribute__((visibility("hidden"))) const char* cudyn_dlopen_target(const char* file, int mode,
                                                                      void* caller) {
  (void)mode;
  if (cudyn_real_dlopen == NULL) cudyn_real_dlopen = dlsym(RTLD_NEXT, "dlopen");
  if (file == NULL) return NULL;
  const char* base = strrchr(file, '/');
  base = base != NULL ? base + 1 : file;
  if (strncmp(base, CUDYN_REDIRECT_PREFIX, sizeof CUDYN_REDIRECT_PREFIX - 1) != 0) return NULL;
  const bool absolute = file[0] == '/';
  // A bare name is the dynamic linker's to find unless it is the unversioned one (no SONAME has it).
  if (!absolute && strcmp(base, CUDYN_REDIRECT_PREFIX) != 0) return NULL;
  const char* dropin = DropinPath();
  if (dropin[0] == '\0') return NULL;
  // The drop-in (or anything in its directory: cudyn) opening the real library.
  Dl_info info;
  char from[PATH_MAX];
  if (dladdr(caller, &info) != 0 && info.dli_fname != NULL && Real(info.dli_fname, from)) {
    const char* slash = strrchr(dropin, '/');
    const size_t dir = (size_t)(slash - dropin);
    if (strncmp(from, dropin, dir + 1) == 0 && strchr(from + dir + 1, '/') == NULL) {
      return NULL;
    }
  }
  char target[PATH_MAX];
  if (absolute && Real(file, target) && strcmp(target, dropin) == 0) return NULL;
  return dropin;
}

#if defined(__x86_64__) && defined(__ELF__)
// dlopen(file, mode): rdi, esi. The caller's return address (at (%rsp) on entry) goes to the
// decision as its third argument; the stack is 16-byte aligned for that call (8 at entry, two
// pushes, 8 more).
__asm__(
    ".text\n"
    ".globl dlopen\n"
    ".type dlopen, @function\n"
    "dlopen:\n"
    "  movq (%rsp), %rdx\n"
    "  pushq %rdi\n"
    "  pushq %rsi\n"
    "  subq $8, %rsp\n"
    "  call cudyn_dlopen_target\n"
    "  addq $8, %rsp\n"
    "  popq %rsi\n"
    "  popq %rdi\n"
    "  testq %rax, %rax\n"
    "  cmovnzq %rax, %rdi\n"
    "  jmp *cudyn_real_dlopen(%rip)\n"
    ".size dlopen, . - dlopen\n");
#else
#error "the dlopen redirect is written for x86-64 ELF"
#endif
