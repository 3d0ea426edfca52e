/* dump_error_strings: prints what a real NVIDIA driver's own cuGetErrorName / cuGetErrorString
 * answer, as the per-driver input version_tables/inputs/error_strings/<major>.tsv.
 *
 * Standalone C (no CUDA headers, no Bazel): it runs where the driver is, the GPU machine included.
 *   gcc -std=c99 -O1 -o dump_error_strings version_tables/dump_error_strings.c -ldl
 *   ./dump_error_strings [LIBCUDA [LABEL]] > version_tables/inputs/error_strings/<major>.tsv
 * LIBCUDA defaults to "libcuda.so.1" (the default search), LABEL (free text for the header, e.g.
 * "535.261.03 (Debian package libcuda1_535.261.03-1)") to "unknown". Neither cuInit nor a GPU is
 * needed: the drivers answer these two calls before cuInit. With --cuinit as the first argument it
 * calls cuInit(0) first (records its result in the header): on a GPU machine this shows the
 * answers do not change once the driver is initialised. The 418 driver needs its
 * libnvidia-fatbinaryloader on the search path (LD_LIBRARY_PATH=<its directory>).
 *
 * Output: '#' header lines (driver, cuDriverGetVersion, what was checked), the column line, then
 * one line per code the driver knows, "code<TAB>name<TAB>string", codes ascending; backslash,
 * tab, newline and carriage return inside a string are written as \\ \t \n \r. No paths.
 *
 * It also proves the behaviour cudyn copies, and exits 2 when a driver deviates (after printing
 * the table, with a DEVIATIONS header line and the details on stderr): for every probed code both
 * calls either succeed with a non-NULL string, or both return 1 (CUDA_ERROR_INVALID_VALUE) and
 * store NULL into the output pointer (418..580 all do: the pointer is NOT left untouched). What a
 * NULL output pointer does (the drivers crash) is probed in a child process and recorded.
 *
 * Regenerate: build as above and run it once per driver, LABEL as in the existing files' first
 * line (Debian drivers: "<version> (Debian package <package>_<version>)", the same text as
 * inputs/exports/<major>.txt; the GPU machine's 580: "<nvidia-smi driver_version> (<GPU name> GPU
 * machine)", run there by copying this binary over). Nothing else to rerun: the Bazel genrule
 * //version_tables:error_strings_inc turns inputs/error_strings/<major>.tsv into the include at
 * build time (gen_error_strings.py), and //tests/error_strings checks the dumps against the live
 * Debian drivers. A new driver: add its <major>.tsv here (and to kDriverMajors in
 * tests/error_strings/error_strings_test.cc).
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*ErrorTextFn)(int, const char**);
typedef int (*VersionFn)(int*);
typedef int (*InitFn)(unsigned);

static const char kSentinel[] = "cudyn-untouched";
static int g_reported = 0;

static void Deviation(const char* what, int code, const char* how) {
  if (++g_reported <= 20) fprintf(stderr, "deviation: %s(%d) %s\n", what, code, how);
}

static void PrintEscaped(const char* s) {
  for (; *s != '\0'; ++s) {
    switch (*s) {
      case '\\': fputs("\\\\", stdout); break;
      case '\t': fputs("\\t", stdout); break;
      case '\n': fputs("\\n", stdout); break;
      case '\r': fputs("\\r", stdout); break;
      default: putchar(*s);
    }
  }
}

/* Calls fn(code, &out) with out preset to a sentinel. Returns the rc; *text is the answer when
 * rc is 0. Returns -1000 (a deviation, reported) when the contract above is broken. */
static int Ask(ErrorTextFn fn, const char* what, int code, const char** text) {
  const char* out = kSentinel;
  int rc = fn(code, &out);
  if (rc == 0) {
    if (out == NULL || out == kSentinel) {
      Deviation(what, code, "returned 0 without setting a string");
      return -1000;
    }
  } else if (rc != 1) {
    Deviation(what, code, "returned neither 0 nor 1");
    return -1000;
  } else if (out != NULL) {
    Deviation(what, code, out == kSentinel ? "returned 1 and left the output pointer untouched"
                                           : "returned 1 and stored a non-NULL pointer");
    return -1000;
  }
  *text = out;
  return rc;
}

/* fn(code, NULL) in a child process: "returns N" or "crashes (signal N)". */
static void NullPointerOutcome(ErrorTextFn fn, int code, char* buf, size_t size) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);
    _exit(fn(code, NULL) & 0x7f);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    snprintf(buf, size, "could not be probed");
  } else if (WIFSIGNALED(status)) {
    snprintf(buf, size, "crashes (signal %d)", WTERMSIG(status));
  } else {
    snprintf(buf, size, "returns %d", WEXITSTATUS(status));
  }
}

int main(int argc, char** argv) {
  int cuinit = argc > 1 && strcmp(argv[1], "--cuinit") == 0;
  if (cuinit) {
    --argc;
    ++argv;
  }
  const char* path = argc > 1 ? argv[1] : "libcuda.so.1";
  const char* label = argc > 2 ? argv[2] : "unknown";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  ErrorTextFn name_fn = (ErrorTextFn)dlsym(lib, "cuGetErrorName");
  ErrorTextFn string_fn = (ErrorTextFn)dlsym(lib, "cuGetErrorString");
  VersionFn version_fn = (VersionFn)dlsym(lib, "cuDriverGetVersion");
  if (name_fn == NULL || string_fn == NULL || version_fn == NULL) {
    fprintf(stderr, "the library lacks cuGetErrorName, cuGetErrorString or cuDriverGetVersion\n");
    return 1;
  }
  int version = 0;
  int version_rc = version_fn(&version);
  if (version_rc != 0) {
    fprintf(stderr, "cuDriverGetVersion returned %d\n", version_rc);
    return 1;
  }

  int init_rc = -1;
  if (cuinit) {
    InitFn init_fn = (InitFn)dlsym(lib, "cuInit");
    if (init_fn == NULL) {
      fprintf(stderr, "the library lacks cuInit\n");
      return 1;
    }
    init_rc = init_fn(0);
  }

  /* Every code from -65536 to 99999 and a few extremes of int, ascending. */
  const int kLow = -65536, kHigh = 99999;
  const int below[] = {INT_MIN, INT_MIN + 1, -1000000};
  const int above[] = {1000000, INT_MAX - 1, INT_MAX};
  const int kCount = 3 + (kHigh - kLow + 1) + 3;
  int deviations = 0, known = 0, known_outside = 0, unknown = 0;
  for (int k = 0; k < kCount; ++k) {
    int code = k < 3 ? below[k] : k < kCount - 3 ? kLow + (k - 3) : above[k - (kCount - 3)];
    const char* name = NULL;
    const char* text = NULL;
    int name_rc = Ask(name_fn, "cuGetErrorName", code, &name);
    int string_rc = Ask(string_fn, "cuGetErrorString", code, &text);
    if (name_rc == -1000 || string_rc == -1000) {
      ++deviations;
    } else if (name_rc != string_rc) {
      Deviation("cuGetErrorName/cuGetErrorString", code, "disagree on the return code");
      ++deviations;
    } else if (name_rc != 0) {
      ++unknown;
    } else {
      ++known;
      if (code < 0 || code > 999) ++known_outside;  /* listed; cudyn's tests cover 0..999 */
    }
  }
  /* A NULL output pointer, for a known and an unknown code. */
  char null_known_name[64], null_known_string[64], null_unknown_name[64], null_unknown_string[64];
  NullPointerOutcome(name_fn, 0, null_known_name, sizeof null_known_name);
  NullPointerOutcome(string_fn, 0, null_known_string, sizeof null_known_string);
  NullPointerOutcome(name_fn, 12345, null_unknown_name, sizeof null_unknown_name);
  NullPointerOutcome(string_fn, 12345, null_unknown_string, sizeof null_unknown_string);

  printf("# driver: %s\n", label);
  printf("# cuDriverGetVersion: %d\n", version);
  if (cuinit) printf("# cuInit(0) was called first and returned %d\n", init_rc);
  printf("# produced by version_tables/dump_error_strings.c (see its header for the command)\n");
  printf("# checked: codes %d..%d and int extremes: %d known (%d outside 0..999), %d unknown; for\n",
         kLow, kHigh, known, known_outside, unknown);
  printf("# every unknown code both calls return 1 and store NULL into the output pointer.\n");
  printf("# A NULL output pointer: cuGetErrorName(0) %s, cuGetErrorString(0) %s,\n",
         null_known_name, null_known_string);
  printf("#   cuGetErrorName(12345) %s, cuGetErrorString(12345) %s.\n", null_unknown_name,
         null_unknown_string);
  if (deviations != 0) printf("# DEVIATIONS from the above: %d (listed on stderr)\n", deviations);
  printf("code\tname\tstring\n");
  for (int k = 0; k < kCount; ++k) {
    int code = k < 3 ? below[k] : k < kCount - 3 ? kLow + (k - 3) : above[k - (kCount - 3)];
    const char* name = kSentinel;
    const char* text = kSentinel;
    if (name_fn(code, &name) != 0 || string_fn(code, &text) != 0) continue;
    if (name == NULL || text == NULL) continue;
    printf("%d\t", code);
    PrintEscaped(name);
    putchar('\t');
    PrintEscaped(text);
    putchar('\n');
  }
  if (deviations != 0) {
    fprintf(stderr, "%d deviations\n", deviations);
    return 2;
  }
  return 0;
}
