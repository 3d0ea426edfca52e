// Pieces shared by the cudyn-check subcommands: exit codes, version and CUresult texts, opening
// a driver the way the CLI does, the system's library directories, the NVIDIA kernel module
// version, and probing a libcuda candidate in a child process.
#ifndef CUDYN_TOOLS_CHECK_COMMON_H_
#define CUDYN_TOOLS_CHECK_COMMON_H_

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "loader/cudyn.h"
#include "nlohmann/json_fwd.hpp"
#include "tools/layers/kernel_layer.h"

namespace cudyn {
namespace check {

// The --json documents. Objects keep insertion order, so the output is stable. Declared only: a
// subcommand that builds a document includes nlohmann/json.hpp itself (the full header is most of
// a tools file's compile time, and half of them never touch a document).
using Json = nlohmann::ordered_json;

// Two-space indented with a trailing newline when pretty, else one line. Invalid UTF-8 (from a
// file name, say) becomes U+FFFD instead of an exception.
std::string JsonText(const Json& json, bool pretty = true);
// Parses one JSON document; on failure returns false and sets *error.
bool ParseJson(const std::string& text, Json* out, std::string* error);

enum ExitCode : int {
  kExitOk = 0,            // compatible / report printed
  kExitIncompatible = 1,  // a binary needs more than the target, or cuInit failed with a
                          // driver-compatibility error (34, 35, 803, 804)
  kExitUsage = 2,         // bad command line, or an unreadable / malformed input file
  kExitNoDriver = 3,      // no usable driver (and no --target-version for `binary`)
};

// "12.2" for 12020, "10.1" for 10010; "" for 0.
std::string ShortVersion(int version);
// "12.2 (12020)".
std::string VersionText(int version);
// Parses a --target-version / --max-cuda-version value ("11040" or "11.4"); nullopt when bad.
std::optional<int> ParseVersionOption(const std::string& text);

// "CUDA_ERROR_NO_DEVICE", or "CUresult <n>" for a code cuda.h does not name.
std::string ResultNameText(int result);
// cuda.h's description of the code, or "".
std::string ResultDescriptionText(int result);
// What to do about a cuInit result, in plain language ("" for success).
std::string CuInitRemedy(int result);
// cuInit results that mean this driver cannot run CUDA here (34, 35, 803, 804): exit 1.
bool IsDriverCompatibilityError(int result);

// The realpath of `path`, or `path` when it cannot be resolved.
std::string RealPath(const std::string& path);
bool IsDirectory(const std::string& path);
// Every path matching the shell pattern, sorted.
std::vector<std::string> Glob(const std::string& pattern);
// The items separated by `sep`.
std::string Join(const std::vector<std::string>& items, const std::string& sep);
// Appends `item` unless `list` holds it already.
void AddUnique(std::vector<std::string>* list, const std::string& item);
// `name` is `base` ("libcudart.so") or `base` + "." + anything ("libcudart.so.13"; not
// "libcudart_static.a", not "libcudart.so_bak").
bool IsLibraryName(const std::string& name, const std::string& base);
// The names in `dir` IsLibraryName accepts, sorted; at most ~1000 of them.
std::vector<std::string> ListLibraryNames(const std::string& dir, const std::string& base);
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
// "535.261.03" for a file (after resolving symlinks) named libcuda.so.535.261.03, else "".
std::string LibcudaFileVersion(const std::string& path);
// Compares dotted numeric versions ("535.54.03" < "535.261.03") with strverscmp: -1, 0, 1.
int CompareDottedVersions(const std::string& a, const std::string& b);

// ---- Opening a driver -------------------------------------------------------------------------

struct OpenRequest {
  std::string driver_path;              // --driver (made absolute), or ""
  std::optional<int> max_cuda_version;  // --max-cuda-version
  std::string search_root;              // --search-root: discover under this prefix
};

struct OpenedDriver {
  std::unique_ptr<Driver> driver;  // never null after OpenDriverForCheck
  // Libraries preloaded so the driver can load (418's libnvidia-fatbinaryloader).
  std::vector<std::string> preloaded;
  // Under --search-root: the simulated search order that was handed to the loader, with the
  // source of each path ("default search (ld.so.cache)", ...).
  std::vector<std::pair<std::string, std::string>> simulated_search;
  // Under --search-root: why the default search was modelled from ld.so.conf (the root has no
  // ld.so.cache, or an unreadable one); "" when the root's ld.so.cache was read.
  std::string search_note;
  // The human explanation of found_by ("the --driver option", ...).
  std::string found_by_text;
};

// Opens the driver as an application using cudyn would get it (use_environment = true, so
// CUDYN_DRIVER_PATH / CUDYN_MAX_CUDA_VERSION apply unless overridden). Preloads the DT_NEEDED
// libnvidia-* companions found next to an explicit driver path.
OpenedDriver OpenDriverForCheck(const OpenRequest& request);

// Keeps a driver loaded for the rest of the process: libcuda is never unloaded once it has been
// used (after cuInit it runs its own threads; unloading it also turns its live allocations into
// leaks under LeakSanitizer). The Driver stays reachable from a global; a second one over the same
// loaded libcuda is destroyed instead (it would hold one more adapter slot). Thread-safe.
void KeepDriverLoaded(std::unique_ptr<Driver> driver);

// dlopen()s, RTLD_GLOBAL, each DT_NEEDED "libnvidia-*" library of `driver_path` that sits next
// to it (or next to its real file) and is not loaded yet. Returns the paths loaded.
std::vector<std::string> PreloadDriverCompanions(const std::string& driver_path);

// {"path", "realpath", "library_version", "found_by", "found_by_text", "cuda_version", ...}
Json DriverJson(const OpenedDriver& opened);
// [{"path", "source", "accepted", "rejection", "cuda_version", "reason"}, ...]
Json CandidatesJson(const std::vector<DriverCandidate>& candidates);
// {"result", "name", "message"} for a driver that did not open.
Json DriverErrorJson(const Driver& driver);
// Human lines for the candidates, each prefixed by `indent`.
void PrintCandidates(std::ostream& out, const std::vector<DriverCandidate>& candidates,
                     const std::string& indent);
// Human text for a driver that did not open (what was tried), for exit 3.
void PrintNoDriver(std::ostream& out, const OpenedDriver& opened);
// "the --driver option", "the CUDYN_DRIVER_PATH environment variable", ...
std::string FoundByText(CandidateSource found_by);

// The compute capabilities of the driver's devices (deduplicated), empty when cuInit fails or
// there are none; *note says why, for people; *device_count (optional): cuDeviceGetCount's answer.
std::vector<layers::GpuArch> DriverGpus(Driver& d, std::string* note, int* device_count = nullptr);

// ---- System library directories ---------------------------------------------------------------

struct SearchDir {
  std::string path;  // including the search root
  // Every way this directory is reached, for people: "LD_LIBRARY_PATH",
  // "ld.so.conf (/etc/ld.so.conf.d/x.conf)", ... (DriverScanDirs merges directories).
  std::vector<std::string> sources;
  // The sources joined with ", ".
  std::string SourcesText() const;
};

// One library file found under one or more names in the scanned directories.
struct FoundLibrary {
  std::string path;                  // the first name found (callers may prefer another alias)
  std::string realpath;              // the file the names resolve to (a dangling link: itself)
  std::vector<std::string> aliases;  // every name found for this file
  std::vector<std::string> sources;  // every way the directories holding those names are reached
};
// The files named `base` or `base`.* (ListLibraryNames) in `dirs`, names of one file merged by
// realpath, in the order first found; directories are skipped.
std::vector<FoundLibrary> FindLibraryFiles(const std::vector<SearchDir>& dirs,
                                           const std::string& base);

// ROOT/etc/ld.so.cache: what the dynamic linker reads for its default search (ldconfig writes it
// from ld.so.conf; ld.so itself never reads ld.so.conf).
struct RootLdCache {
  std::string path;      // ROOT/etc/ld.so.cache
  bool present = false;  // the file exists
  std::string error;     // why a present file could not be read ("" when it was)
  // Its entries named libcuda.so.1 for x86-64 (ELF64, EM_X86_64), in cache order, each prefixed
  // with ROOT (the paths in a root's cache are as seen inside the root).
  std::vector<std::string> drivers;
  bool read() const { return present && error.empty(); }
};
RootLdCache ReadRootLdCache(const std::string& root);
// For people: why the default search under `root` is not the cache's ("" when the cache was read,
// or when there is none and no root: the host's dynamic linker is not simulated).
std::string LdCacheNote(const RootLdCache& cache, const std::string& root);

// Directories named by ROOT/etc/ld.so.conf and its includes (globs, relative patterns resolved
// against the including file's directory, cycles and depth bounded), prefixed with `root`; each
// with the file that named it.
std::vector<SearchDir> LdSoConfDirs(const std::string& root);
// LD_LIBRARY_PATH's directories (not prefixed: they are the user's own paths).
std::vector<SearchDir> LdLibraryPathDirs();
// Every directory `drivers` scans for libcuda.so*, in order, deduplicated by realpath: the
// directories of ROOT's ld.so.cache libcuda.so.1 entries and of its ld.so.conf among them.
// *note (optional): LdCacheNote.
std::vector<SearchDir> DriverScanDirs(const std::string& root, std::string* note = nullptr);
// The loader's discovery order re-created under `root`: existing ROOT/.../libcuda.so.1 files from
// WSL, the default search as ld.so does it (LD_LIBRARY_PATH; ROOT/etc/ld.so.cache's libcuda.so.1
// entries; without a readable cache, ld.so.conf's directories as ldconfig would list them; the
// trusted dirs) and the loader's well-known directories, deduplicated; each with its source.
// *note (optional): LdCacheNote.
std::vector<std::pair<std::string, std::string>> SimulatedSearchOrder(const std::string& root,
                                                                      std::string* note = nullptr);

// ---- Kernel module ----------------------------------------------------------------------------

struct KernelModule {
  std::string source;   // ROOT/proc/driver/nvidia/version
  bool present = false;
  std::string version;  // "580.159.04", "" when present but unparsable
  std::string line;     // the NVRM version line
};
KernelModule ReadKernelModule(const std::string& root);

// ---- Child processes --------------------------------------------------------------------------

// Runs `fn` in a forked child (so a crashing or hanging library cannot take the tool down, and
// each probed driver gets a fresh process) and returns its JSON. On failure returns nullopt and
// sets *failure ("crashed with signal 11", "timed out after 20 s", ...).
std::optional<Json> RunInChild(const std::function<Json()>& fn, int timeout_seconds,
                               std::string* failure);

// Opens `path` as a driver (DriverOptions.driver_path) in a child process: {"accepted", "error",
// "cuda_version", "rejection", "reason", "loaded_path", "preloaded"}. `rejection` is
// RejectionName() of the loader's verdict ("accepted", "stub_library", ...; "probe_failed" when
// the child crashed or hung), `reason` its text for people.
Json ProbeDriverFile(const std::string& path);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_COMMON_H_
