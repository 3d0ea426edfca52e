// cudyn run: runs an unmodified program with cudyn as its libcuda.so.1 (and, with --cudart or
// --runtime, as its libcudart.so.13).
//
//   cudyn run [--max-cuda-version V] [--emulate-driver] [--driver PATH]
//             [--per-thread-default-stream] [--cudart] [--runtime PATH] [--libraries]
//             [--nvrtc] [--cublas] [--cufft] ... (every library of TOOLKIT_LIBRARIES)
//             -- PROGRAM ARGS...
//
// The drop-in directory (a directory holding cudyn's shared drop-in as libcuda.so.1) goes first on
// LD_LIBRARY_PATH; the options become CUDYN_MAX_CUDA_VERSION / CUDYN_CLAMP_MODE / CUDYN_DRIVER_PATH /
// CUDYN_PER_THREAD_DEFAULT_STREAM; then PROGRAM replaces this process (execvp), so its exit status
// and signals are the program's own.
//
// The real driver stays reachable: inside the program, dlopen("libcuda.so.1") finds cudyn itself
// (the loader rejects it as "is cudyn itself" and goes on to the well-known directories). A driver
// that only LD_LIBRARY_PATH or ld.so.cache made reachable would then be lost, so without --driver
// this process looks for the driver first, with the loader's own search (where cudyn is not
// libcuda.so.1), and hands its absolute path on as CUDYN_DRIVER_PATH. The runtime likewise: with
// --cudart the runtime drop-in directory (DROPIN/cudart, libcudart.so.13) goes first as well, and
// the runtime cudyn's loader picks here for that driver (or --runtime) is handed on as
// CUDYN_CUDART_PATH. LD_LIBRARY_PATH alone does not reach a library whose DT_RPATH names its own
// libcudart.so.13 (searched first), nor one that dlopens a runtime by absolute path (PyTorch does
// both), so the runtime drop-in (SONAME libcudart.so.13) is also preloaded, ahead of the user's
// LD_PRELOAD: the dynamic linker then answers every later request for libcudart.so.13 with it, and
// its mapped name contains "libcudart.so" (torch/__init__.py preloads its own runtime only when no
// mapped file name does). With it (and with any library option) the driver drop-in under SONAME
// libcuda.so.1 is preloaded first: the library drop-ins open the real driver by its path, and
// only a libcuda.so.1 loaded before that keeps the real runtime's own driver calls on cudyn.
//
// --<library> does the same for each library on the toolkit template (loader/toolkit_libraries.h:
// nvrtc, cublas, cublaslt, cufft, curand, cusparse, cusolver, nvjitlink): its drop-in directory
// (DROPIN/<library>, cudyn's drop-in under the 13.0 release's SONAME, libnvrtc.so.13,
// libcufft.so.12, ...) goes first on LD_LIBRARY_PATH and the drop-in is preloaded, so a program
// linked against the 13.0 library gets the release cudyn picks inside the program for the driver
// (CUDYN_DRIVER_PATH, handed on as above, and the clamp). --libraries: all of them. Where the
// drop-in directory also holds libcudyn_<library>_paths.so (NVML), it is preloaded too: a dlopen of
// the library by an absolute path then gets the drop-in as well (stubs/dlopen_redirect.c).
//
// Exit status of cudyn itself: 125 (usage, bad option, unusable --driver, setuid), 126 (PROGRAM
// cannot be executed), 127 (PROGRAM not found) -- as env(1), timeout(1) and docker run do.
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loader/cudart.h"
#include "loader/toolkit_libraries.h"
#include "loader/cudyn.h"
#include "tools/version/cudyn_version.h"

namespace {

constexpr int kExitError = 125;
constexpr int kExitCannotExecute = 126;
constexpr int kExitNotFound = 127;
constexpr const char* kDropinName = "libcuda.so.1";
// The runtime drop-in: in DROPIN/cudart, under the 13.0 runtime's name (the API it serves).
constexpr const char* kCudartDropinSubdir = "/cudart";
constexpr const char* kCudartDropinName = "libcudart.so.13";

void Usage(FILE* out) {
  fprintf(out,
          "usage: cudyn run [OPTIONS] [--] PROGRAM [ARGS...]\n"
          "       cudyn --version | --help\n"
          "\n"
          "Runs PROGRAM with cudyn as its libcuda.so.1 (the drop-in directory first on\n"
          "LD_LIBRARY_PATH), so an unmodified program linked with -lcuda (or one that dlopens\n"
          "libcuda.so.1) runs through cudyn's version-aware binding.\n"
          "\n"
          "options:\n"
          "  --max-cuda-version V          behave as a driver of at most CUDA V (11.4 or 11040)\n"
          "                                (CUDYN_MAX_CUDA_VERSION)\n"
          "  --emulate-driver              with a clamp, also load device code as that older\n"
          "                                driver would: only the image it would choose, or its\n"
          "                                error (209/222); a GPU it does not know is not offered\n"
          "                                (CUDYN_CLAMP_MODE=emulate)\n"
          "  --driver PATH                 the real driver to use (CUDYN_DRIVER_PATH); default:\n"
          "                                the one the loader finds without cudyn in the way\n"
          "  --per-thread-default-stream   serve legacy-stream calls with their _ptds/_ptsz\n"
          "                                variants (CUDYN_PER_THREAD_DEFAULT_STREAM=1)\n"
          "  --dropin-dir DIR              the directory holding cudyn's libcuda.so.1 (default:\n"
          "                                $CUDYN_DROPIN_DIR, else ../lib/cudyn beside this binary)\n"
          "  --cudart                      also be the program's libcudart.so.13 (a program built\n"
          "                                with the CUDA 13 toolkit and -cudart shared, or a\n"
          "                                library with an RPATH to its own copy): the runtime\n"
          "                                this driver can run (13, 12 or 11.x) serves it;\n"
          "                                cudyn's runtime drop-in is preloaded (LD_PRELOAD)\n"
          "  --runtime PATH                the real CUDA runtime to use (CUDYN_CUDART_PATH); implies\n"
          "                                --cudart; default: the one cudyn's loader picks\n"
          "  --libraries                   every library option below\n");
  for (const cudyn::ToolkitTraits* t : cudyn::ToolkitLibraries()) {
    fprintf(out, "  --%-27s also be the program's %s: the %s release\n"
                 "                                this driver (and clamp) runs serves it (preloaded)\n",
            t->library, t->dropin_soname, t->name);
  }
  fprintf(out,
          "\n"
          "exit status: PROGRAM's own; 125 for an error of cudyn run, 126 if PROGRAM cannot be\n"
          "executed, 127 if it is not found.\n");
}

// The library of a --<library> option ("--cufft"), or null.
const cudyn::ToolkitTraits* LibraryOption(const std::string& arg) {
  for (const cudyn::ToolkitTraits* t : cudyn::ToolkitLibraries()) {
    if (arg == std::string("--") + t->library) return t;
  }
  return nullptr;
}

[[noreturn]] void Fail(const std::string& message) {
  fprintf(stderr, "cudyn run: %s\n", message.c_str());
  exit(kExitError);
}

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Relative to the current directory, without resolving symlinks (the path the user gave stays
// recognisable in the program's CUDYN_DRIVER_PATH and in cudyn's reports).
std::string AbsolutePath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// The drop-in directory: --dropin-dir, $CUDYN_DROPIN_DIR, then relative to this executable:
// ../lib/cudyn (the install tree and the .deb's /usr/bin -> /usr/lib/cudyn),
// ../lib/x86_64-linux-gnu/cudyn (a multiarch layout), and the Bazel runfiles of //tools/run:cudyn
// (next to the binary, or $RUNFILES_DIR of a test that runs it).
std::string FindDropinDir(const std::string& option, std::vector<std::string>* looked) {
  std::vector<std::string> candidates;
  if (!option.empty()) {
    candidates.push_back(option);
  } else {
    const char* env = getenv("CUDYN_DROPIN_DIR");
    if (env != nullptr && *env != '\0') {
      candidates.push_back(env);
    } else {
      char exe[PATH_MAX];
      ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
      if (n > 0) {
        exe[n] = '\0';
        std::string self(exe);
        std::string prefix = Dirname(Dirname(self));  // the kernel's path: no symlinks, no ..
        if (prefix == "/") prefix.clear();
        candidates.push_back(prefix + "/lib/cudyn");
        candidates.push_back(prefix + "/lib/x86_64-linux-gnu/cudyn");
        candidates.push_back(self + ".runfiles/cudyn/tools/run/dropin");
      }
      // Under `bazel test` the binary's own runfiles tree may not exist yet (it is made for a top-level
      // build target, in parallel with the tests); the test's tree, which carries it as data, does.
      const char* runfiles = getenv("RUNFILES_DIR");
      if (runfiles != nullptr && *runfiles != '\0') {
        candidates.push_back(std::string(runfiles) + "/cudyn/tools/run/dropin");
      }
    }
  }
  for (const std::string& dir : candidates) {
    looked->push_back(dir);
    if (IsFile(dir + "/" + kDropinName)) return AbsolutePath(dir);  // LD_LIBRARY_PATH: absolute
  }
  return std::string();
}

void SetEnv(const char* name, const std::string& value) {
  if (setenv(name, value.c_str(), 1) != 0) Fail(std::string("setenv ") + name + ": " + strerror(errno));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)) {
    printf("cudyn %s\n", CUDYN_VERSION_STRING);
    return 0;
  }
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                    strcmp(argv[1], "help") == 0)) {
    Usage(stdout);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "run") != 0) {
    Usage(stderr);
    return kExitError;
  }
  // Under AT_SECURE the dynamic linker ignores LD_LIBRARY_PATH and cudyn ignores
  // CUDYN_DRIVER_PATH: nothing this command promises would happen.
  if (getauxval(AT_SECURE) != 0) {
    Fail("refusing to run setuid/setgid or with file capabilities (AT_SECURE): the dynamic linker "
         "would ignore LD_LIBRARY_PATH and cudyn would ignore CUDYN_DRIVER_PATH");
  }

  std::optional<int> max_version;
  std::string driver;
  bool per_thread = false;
  bool emulate = false;
  bool cudart = false;
  std::vector<const cudyn::ToolkitTraits*> libraries;  // --<library>, --libraries
  auto want = [&](const cudyn::ToolkitTraits* t) {
    if (std::find(libraries.begin(), libraries.end(), t) == libraries.end()) libraries.push_back(t);
  };
  std::string runtime;
  std::string dropin_option;
  int i = 2;
  auto value_of = [&](const std::string& arg, const std::string& name, std::string* value) {
    if (arg == name) {
      if (i + 1 >= argc) Fail(name + " needs a value");
      *value = argv[++i];
      return true;
    }
    if (arg.compare(0, name.size() + 1, name + "=") == 0) {
      *value = arg.substr(name.size() + 1);
      return true;
    }
    return false;
  };
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (arg == "--") {
      ++i;
      break;
    }
    if (value_of(arg, "--max-cuda-version", &value)) {
      max_version = cudyn::ParseCudaVersion(value);
      if (!max_version) {
        Fail("--max-cuda-version '" + value + "' is not a CUDA version (write 11.4 or 11040)");
      }
    } else if (value_of(arg, "--driver", &value)) {
      if (value.empty()) Fail("--driver needs a path");
      driver = value;
    } else if (value_of(arg, "--dropin-dir", &value)) {
      dropin_option = value;
    } else if (value_of(arg, "--runtime", &value)) {
      if (value.empty()) Fail("--runtime needs a path");
      runtime = value;
      cudart = true;
    } else if (arg == "--cudart") {
      cudart = true;
    } else if (arg == "--libraries") {
      for (const cudyn::ToolkitTraits* t : cudyn::ToolkitLibraries()) want(t);
    } else if (const cudyn::ToolkitTraits* t = LibraryOption(arg)) {
      want(t);
    } else if (arg == "--per-thread-default-stream") {
      per_thread = true;
    } else if (arg == "--emulate-driver") {
      emulate = true;
    } else if (arg == "--help" || arg == "-h") {
      Usage(stdout);
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      fprintf(stderr, "cudyn run: unknown option '%s'\n\n", arg.c_str());
      Usage(stderr);
      return kExitError;
    } else {
      break;  // PROGRAM
    }
  }
  if (i >= argc) {
    fprintf(stderr, "cudyn run: no PROGRAM given\n\n");
    Usage(stderr);
    return kExitError;
  }

  std::vector<std::string> looked;
  std::string dropin = FindDropinDir(dropin_option, &looked);
  if (dropin.empty()) {
    std::string where;
    for (const std::string& d : looked) where += "\n  " + d + "/" + kDropinName;
    Fail("cudyn's drop-in directory was not found; looked for:" + where +
         "\n(use --dropin-dir DIR or CUDYN_DROPIN_DIR)");
  }

  // The driver: the one given (checked now, so a wrong path is an error here and not a CUDA
  // error deep inside the program), else the one the loader finds in this process. The loader's
  // own log stays quiet here (this process reports for itself); the program gets CUDYN_LOG back.
  const char* log_env = getenv("CUDYN_LOG");
  const std::optional<std::string> user_log =
      log_env != nullptr ? std::optional<std::string>(log_env) : std::nullopt;
  SetEnv("CUDYN_LOG", "off");
  int driver_version = 0;  // the driver's CUDA version (0: none found), for the runtime's family
  if (!driver.empty()) {
    if (!IsFile(driver)) Fail("--driver " + driver + ": no such file");
    driver = AbsolutePath(driver);
    cudyn::DriverOptions options;
    options.driver_path = driver;
    options.use_environment = true;  // for CUDYN_LOG=off only: driver_path wins over the rest
    std::unique_ptr<cudyn::Driver> d = cudyn::Driver::Open(options);
    if (!d || !d->ok()) {
      Fail("--driver " + driver + " is not a usable NVIDIA driver: " +
           (d ? d->last_error() : std::string("out of memory")));
    }
    driver_version = d->cuda_version();
  } else {
    const char* env = getenv("CUDYN_DRIVER_PATH");
    if (env == nullptr || *env == '\0') {
      cudyn::DriverOptions options;
      options.use_environment = true;  // CUDYN_DRIVER_PATH is unset; CUDYN_LOG is off
      std::unique_ptr<cudyn::Driver> d = cudyn::Driver::Open(options);
      if (d && d->ok()) {
        driver = AbsolutePath(d->path());
        driver_version = d->cuda_version();
      } else {
        fprintf(stderr,
                "cudyn run: warning: no NVIDIA driver found (%s); the program will see "
                "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (303)\n",
                d ? d->last_error().c_str() : "out of memory");
      }
    }
  }

  // The runtime (--cudart): the one given, checked now; else the one cudyn's loader picks for this
  // driver (and clamp) here, where libcudart.so.13 is not yet cudyn.
  std::string cudart_dir;
  if (cudart) {
    cudart_dir = dropin + kCudartDropinSubdir;
    if (!IsFile(cudart_dir + "/" + kCudartDropinName)) {
      Fail("cudyn's runtime drop-in " + cudart_dir + "/" + kCudartDropinName +
           " was not found (--cudart and --runtime need the install tree's lib/cudyn/cudart)");
    }
    const char* env = getenv("CUDYN_CUDART_PATH");
    if (!runtime.empty() || env == nullptr || *env == '\0') {
      cudyn::RuntimeOptions options;
      options.use_environment = true;  // CUDYN_LOG is off; CUDYN_CUDART_PATH is unset or overridden
      options.max_cuda_version = max_version;
      const char* env_driver = getenv("CUDYN_DRIVER_PATH");
      if (driver_version > 0 || env_driver == nullptr || *env_driver == '\0') {
        options.driver_version = driver_version;
      }
      if (!runtime.empty()) {
        if (!IsFile(runtime)) Fail("--runtime " + runtime + ": no such file");
        options.runtime_path = runtime = AbsolutePath(runtime);
      }
      std::unique_ptr<cudyn::Runtime> rt = cudyn::Runtime::Open(options);
      if (rt && rt->ok()) {
        runtime = rt->path();
      } else if (!runtime.empty()) {
        Fail("--runtime " + runtime + " is not a usable CUDA runtime: " +
             (rt ? rt->last_error() : std::string("out of memory")));
      } else {
        fprintf(stderr,
                "cudyn run: warning: no CUDA runtime this driver can run was found (%s); the "
                "program's runtime calls will answer cudaErrorSharedObjectInitFailed (303)\n",
                rt ? rt->last_error().c_str() : "out of memory");
      }
    }
  }

  // Each library (--<library>): chosen inside the program by cudyn's loader for the driver handed
  // on, through its drop-in under the 13.0 release's SONAME.
  std::vector<std::pair<const cudyn::ToolkitTraits*, std::string>> library_dirs;
  for (const cudyn::ToolkitTraits* t : libraries) {
    const std::string dir = dropin + "/" + t->library;
    if (!IsFile(dir + "/" + t->dropin_soname)) {
      Fail(std::string("cudyn's ") + t->name + " drop-in " + dir + "/" + t->dropin_soname +
           " was not found (--" + t->library + " needs the install tree's lib/cudyn/" +
           t->library + ")");
    }
    library_dirs.emplace_back(t, dir);
  }

  if (user_log) {
    SetEnv("CUDYN_LOG", *user_log);
  } else {
    unsetenv("CUDYN_LOG");
  }

  const char* old_path = getenv("LD_LIBRARY_PATH");
  std::string first = cudart ? cudart_dir + ":" + dropin : dropin;
  for (const auto& [t, dir] : library_dirs) first = dir + ":" + first;
  SetEnv("LD_LIBRARY_PATH", (old_path != nullptr && *old_path != '\0')
                                ? first + ":" + old_path
                                : first);
  // What is preloaded, in this order, ahead of the user's LD_PRELOAD. The library drop-ins open
  // the real driver by its path (CUDYN_DRIVER_PATH) to choose and bind their library; were that
  // object the process's first libcuda.so.1, a real runtime's dlopen("libcuda.so.1") (its own or
  // one compiled into cuBLAS) would match it by SONAME and escape the clamp. So with any of them
  // the driver drop-in is preloaded first, as -lcuda would load it: every libcuda.so.1 request of
  // the process is then answered by cudyn.
  std::vector<std::pair<std::string, std::string>> preloads;  // (what, path)
  if (cudart || !library_dirs.empty()) {
    preloads.emplace_back("driver", dropin + "/" + kDropinName);
  }
  if (cudart) preloads.emplace_back("runtime", cudart_dir + "/" + kCudartDropinName);
  for (const auto& [t, dir] : library_dirs) {
    preloads.emplace_back(t->name, dir + "/" + t->dropin_soname);
    // Its path redirect, where it has one (stubs/dlopen_redirect.c: NVML, which monitoring tools
    // dlopen by absolute path).
    const std::string redirect = dir + "/libcudyn_" + t->library + "_paths.so";
    if (IsFile(redirect)) preloads.emplace_back(std::string(t->name) + " path redirect", redirect);
  }
  if (!preloads.empty()) {
    std::string preload;
    for (const auto& [what, path] : preloads) {
      // LD_PRELOAD separates entries by ':' and ' '; a drop-in path holding one cannot be preloaded.
      if (path.find_first_of(": ") != std::string::npos) {
        Fail("cannot preload cudyn's " + what + " drop-in " + path +
             ": LD_PRELOAD cannot hold a path with ':' or ' ' (install cudyn elsewhere)");
      }
      preload += (preload.empty() ? "" : ":") + path;
    }
    const char* old_preload = getenv("LD_PRELOAD");
    SetEnv("LD_PRELOAD", (old_preload != nullptr && *old_preload != '\0')
                             ? preload + ":" + old_preload
                             : preload);
  }
  if (!runtime.empty()) SetEnv("CUDYN_CUDART_PATH", runtime);
  if (!driver.empty()) SetEnv("CUDYN_DRIVER_PATH", driver);
  if (max_version) SetEnv("CUDYN_MAX_CUDA_VERSION", std::to_string(*max_version));
  if (per_thread) SetEnv("CUDYN_PER_THREAD_DEFAULT_STREAM", "1");
  if (emulate) SetEnv("CUDYN_CLAMP_MODE", "emulate");

  execvp(argv[i], argv + i);
  int err = errno;
  fprintf(stderr, "cudyn run: cannot execute '%s': %s\n", argv[i], strerror(err));
  return (err == ENOENT || err == ENOTDIR) ? kExitNotFound : kExitCannotExecute;
}
