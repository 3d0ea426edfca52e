#include "tools/subcommands.h"

#include <algorithm>
#include <deque>
#include <string>

#include "loader/toolkit_libraries.h"
#include "tools/commands.h"

namespace cudyn {
namespace check {
namespace {

constexpr char kReportHelp[] = R"HELP(usage: cudyn-check [report] [--driver PATH] [--max-cuda-version V] [--search-root DIR] [--json]
       cudyn-check report --nfd [--output FILE] [--driver PATH] [--max-cuda-version V]

Finds the NVIDIA driver the way an application using cudyn does and reports:
the candidates tried (and why each was rejected), the driver path and how it
was found, its CUDA version ("12.2 (12020)"), the effective version after a
clamp, the binding strategy, findings (toolkit stub on the search path or among
the candidates, kernel module vs library version mismatch, a cuda-compat
libcuda, rejected CUDYN_* values), cuInit's result with a remedy, the devices
when cuInit succeeds, and how many table entries bind native / adapter / missing.

options:
  --driver PATH           use this libcuda (like CUDYN_DRIVER_PATH; made absolute)
  --max-cuda-version V    behave as a driver of at most V (11040 or 11.4)
  --search-root DIR       discover the driver under DIR (DIR/etc/ld.so.cache as
                          ld.so reads it, else DIR/etc/ld.so.conf as ldconfig
                          would list it; DIR/usr/lib/...,
                          DIR/proc/driver/nvidia/version)
  --json                  machine-readable output (schema: tools/README.md)
  --nfd                   instead: the node's facts as a Kubernetes node-feature-
                          discovery feature file (driver CUDA version, newest PTX
                          ISA it JITs, GPU compute capabilities, runtime families)
  --output FILE           with --nfd: write FILE atomically (dot file + rename),
                          e.g. /etc/kubernetes/node-feature-discovery/features.d/cudyn

exit: 0 report printed (cuInit 100 "no device" included), 1 cuInit failed with a
driver-compatibility error (34, 35, 803, 804), 2 usage, 3 no usable driver.
)HELP";

constexpr char kApisHelp[] = R"HELP(usage: cudyn-check apis [--driver PATH] [--max-cuda-version V] [--status native|adapter|missing]
                        [--base NAME] [--search-root DIR] [--json]

One row per exported driver ABI variant in cudyn's table: symbol, base name, ABI
version, stream class, status on this driver (native | adapter | missing), the
driver's function actually called (driver_symbol) and how it was bound (via:
cuGetProcAddress_v2 | cuGetProcAddress | dlsym | adapter; empty when missing).

options:
  --driver PATH           use this libcuda (made absolute)
  --max-cuda-version V    behave as a driver of at most V (11040 or 11.4)
  --status S              only rows with this status
  --base NAME             only the variants of this base name (e.g. cuMemAdvise)
  --search-root DIR       discover the driver under DIR
  --json                  {"driver": {...}, "apis": [...]}

exit: 0 ok, 2 usage, 3 no usable driver.
)HELP";

constexpr char kBinaryHelp[] = R"HELP(usage: cudyn-check binary FILE|DIR|WHEEL... [--deps] [--target-version V] [--gpu sm_XY]...
                          [--driver PATH] [--max-cuda-version V] [--search-root DIR] [--json]

For each ELF file, every layer that decides whether it runs on a driver + GPU:
  driver API  each imported driver-API symbol (cu[A-Z]*) with the minimum CUDA
              driver version it needs (symbols the tables do not know can never
              be satisfied); a file linking cudyn is "portable" here
  runtime     the CUDA runtime it links (DT_NEEDED libcudart.so.N) or embeds
              (static runtime): too old a driver -> 35 cudaErrorInsufficientDriver
  kernels     its fatbins' SASS and PTX: no image for the GPU -> 209
              cudaErrorNoKernelImageForDevice, PTX ISA too new for the driver ->
              222 cudaErrorUnsupportedPtxVersion
The first failing layer decides (exit 1). Driver entry points the file names as
strings (dlsym / cuGetProcAddress) are listed as information only. The target is
--target-version (no driver needed), else the effective version of the driver
cudyn finds. The GPU is --gpu, else the devices of a usable driver (cuInit),
else none: the kernel layer is then "unknown" unless the file's only device code
is PTX too new for every GPU.

Whole installs: a directory is scanned recursively for ELF files and wheels; a
Python wheel (.whl) is read in memory, each shared object inside judged as
"WHEEL!/member". --deps follows each file's DT_NEEDED as the dynamic linker
would (RPATH/RUNPATH with $ORIGIN, also inside a wheel, LD_LIBRARY_PATH,
/etc/ld.so.cache, the system directories); libcuda.so.1 is the target, never
followed. The summary names the minimum driver for the whole set and the file
and layer that set it.

options:
  --deps                  also judge what the files need (DT_NEEDED), transitively
  --target-version V      judge against CUDA V (12020 or 12.2); no driver needed
  --gpu sm_XY[,sm_XY]     judge the kernels for these GPUs (repeatable; sm_90, 90, 9.0);
                          --gpu none: no GPU (do not ask the driver)
  --driver PATH           judge against this driver's version
  --max-cuda-version V    clamp the driver's version
  --search-root DIR       discover the driver under DIR
  --json                  machine-readable output
  --                      end of options (for file names starting with '-')

exit (worst file wins, in this order): 2 a file is unreadable, not ELF or
malformed, or a wheel is refused (malformed, or a zip bomb over the zip reader's
bounds) (the others are still checked), 3 no target (no driver and no
--target-version) for a file that imports driver API or needs a runtime, 1 a file is
incompatible (any layer), 0 all compatible / portable.
)HELP";

constexpr char kDriversHelp[] = R"HELP(usage: cudyn-check drivers [--search-root DIR] [--json]

Lists every libcuda.so* in LD_LIBRARY_PATH, /usr/lib/wsl/lib, the directories
of the /etc/ld.so.cache libcuda.so.1 entries and of /etc/ld.so.conf (and its
includes), the system and well-known driver directories
(/usr/lib/x86_64-linux-gnu and nvidia/*, /usr/lib64, /usr/local/nvidia/lib64
and lib), /usr/local/cuda*/compat and the toolkit stub
directories (/usr/local/cuda*/lib64/stubs), one entry per real file, with its
CUDA version (each opened in its own child process) or why it cannot be used,
and the one cudyn picks (Driver::Open with the environment) and why.

options:
  --search-root DIR       prefix every system path with DIR (LD_LIBRARY_PATH and
                          CUDYN_DRIVER_PATH are used as they are); the pick's
                          default search reads DIR/etc/ld.so.cache as ld.so
                          does, else (none, or unreadable: a note says so)
                          the directories of DIR/etc/ld.so.conf
  --json                  machine-readable output

exit: 0 a driver is picked, 2 usage, 3 none usable.
)HELP";

constexpr char kRuntimesHelp[] = R"HELP(usage: cudyn-check runtimes [--driver PATH] [--max-cuda-version V]
                          [--search-root DIR]... [--root DIR] [--json]

Lists every CUDA runtime (libcudart.so*) where cudyn's runtime loader looks, in
the loader's own order (one search plan serves both): the dynamic linker's
default search (LD_LIBRARY_PATH, the ld.so.cache entries named libcudart.so.*,
the system directories), $CUDA_HOME / $CUDA_PATH lib64 and lib, the family's
Python wheel layout (site-packages/nvidia/cu13/lib, nvidia/cuda_runtime/lib
before 13) under $VIRTUAL_ENV, $CONDA_PREFIX, loaded frameworks, the user and
system site-packages, $CONDA_PREFIX/lib, /usr/local/cuda and cuda-X.Y (lib64,
targets/<arch>/lib), /usr/lib/<multiarch>, /usr/lib64, /opt/cuda/lib64. One
entry per real file: its SONAME family (10, 11, 12, 13), its version read from
the file without running it (the runtime's versioned entry-point table), the
oldest driver its family needs and whether the driver in front runs it. Then the
runtime cudyn picks for that driver (cudyn::Runtime, opened in a child process):
path, family, version and how it was learnt, and every candidate with why it was
rejected.

options:
  --driver PATH           judge against this libcuda (made absolute)
  --max-cuda-version V    clamp the driver's version (11040 or 11.4)
  --search-root DIR       look only under DIR (repeatable; a bounded recursive
                          walk) and let the loader search only the directories
                          found there
  --root DIR              the system directories of the plan under DIR (a
                          mounted image or container), as the loader would
                          search them there; no default search
  --json                  machine-readable output

exit: 0 a runtime this driver runs is picked, 1 none (no runtime found, or none
this driver runs), 2 usage, 3 no usable driver.
)HELP";

// The help of `cudyn-check <library>` for a library on the toolkit template.
std::string ToolkitHelp(const ToolkitTraits& t) {
  std::string sonames;
  for (const std::string& soname : ToolkitSonames(t)) {
    sonames += (sonames.empty() ? "" : ", ") + soname;
  }
  return std::string("usage: cudyn-check ") + t.library +
         " [--driver PATH] [--max-cuda-version V] [--json]\n\nLists the " + t.name +
         " libraries (" + sonames + ") where cudyn's loader\nlooks, in its order " +
         (t.driver_library
              ? std::string("(where the driver is: the default search,\nLD_LIBRARY_PATH, the "
                            "driver's directories), and what the loader made of each:\nits "
                            "version and driver branch, and the one it takes: the first found (")
              : std::string("(the runtime's places; wheel layouts nvidia/cu13/lib and\n") +
                    (t.wheel_before_13 + 1) +
                    "), and what the loader made of each for the driver in front: its\nversion, "
                    "its CUDA release, the oldest driver that runs it, and the one it\ntakes: "
                    "the newest release the driver runs (") +
         t.env_name + ", when set, is\ntaken as it is).\n\noptions:\n"
         "  --driver PATH           judge against this libcuda (made absolute)\n"
         "  --max-cuda-version V    clamp the driver's version (11040 or 11.4)\n"
         "  --json                  machine-readable output\n\nexit: 0 one this driver runs is "
         "picked, 1 none, 2 usage, 3 no usable driver.\n";
}

constexpr char kLibrariesHelp[] = R"HELP(usage: cudyn-check libraries [--driver PATH] [--max-cuda-version V] [--json]

Every library cudyn chooses by the driver (NVRTC, cuBLAS, ...: the subcommands
of the same names), each with the files its loader tries, their releases and
verdicts, and the one it takes for the driver in front.

options:
  --driver PATH           judge against this libcuda (made absolute)
  --max-cuda-version V    clamp the driver's version (11040 or 11.4)
  --json                  machine-readable output

exit: 0 listed, 2 usage, 3 no usable driver.
)HELP";

constexpr char kHelpHelp[] = "usage: cudyn-check help [SUBCOMMAND]\n";

// The overview help around the list of subcommands (OverviewHelp).
constexpr char kOverviewHead[] = R"HELP(usage: cudyn-check [SUBCOMMAND] [OPTIONS] [--json]

Checks which NVIDIA driver cudyn finds and what it can run.

subcommands:
)HELP";

constexpr char kOverviewTail[] = R"HELP(
global options:
  --json    machine-readable output (schema: tools/README.md)
  --help    help for the subcommand
  --version cudyn-check's version (alone)

exit codes: 0 ok, 1 incompatible, 2 usage or bad input, 3 no driver.
Environment: CUDYN_DRIVER_PATH, CUDYN_MAX_CUDA_VERSION, CUDYN_PER_THREAD_DEFAULT_STREAM
apply as in applications; the loader's own log stays off unless CUDYN_LOG is set.
)HELP";

}  // namespace

const std::vector<Subcommand>& Subcommands() {
  // Leaked on purpose: used until exit, never destroyed (no order-of-destruction questions).
  static std::vector<Subcommand>* const kSubcommands = new std::vector<Subcommand>{
      {"report", "(default) the driver found, its version, strategy, cuInit, devices, findings",
       {"--driver", "--max-cuda-version", "--search-root", "--output"},
       {"--nfd"}, Positionals::kNone, RunReport, kReportHelp},
      {"apis", "every driver-API entry and how this driver serves it",
       {"--driver", "--max-cuda-version", "--search-root", "--status", "--base"},
       {}, Positionals::kNone, RunApis, kApisHelp},
      {"binary",
       "whether an ELF file runs on a driver version + GPU (driver API, runtime, kernels)",
       {"--target-version", "--gpu", "--driver", "--max-cuda-version", "--search-root"},
       {"--deps"}, Positionals::kFiles, RunBinary, kBinaryHelp},
      {"drivers", "every libcuda on the system and which one cudyn picks",
       {"--search-root"},
       {}, Positionals::kNone, RunDrivers, kDriversHelp},
      {"runtimes",
       "every libcudart on the system, which this driver runs, which one cudyn picks",
       {"--driver", "--max-cuda-version", "--search-root", "--root"},
       {}, Positionals::kNone, RunRuntimes, kRuntimesHelp},
      {"libraries",
       "every library cudyn chooses by the driver, its candidates and the one it takes",
       {"--driver", "--max-cuda-version"},
       {}, Positionals::kNone, RunLibraries, kLibrariesHelp},
  };
  static const bool kWithLibraries = [] {
    // One subcommand per library on the toolkit template, before `help`; their texts live as
    // long as the rows (leaked, reachable: a deque never moves what it holds).
    static std::deque<std::string>* const texts = new std::deque<std::string>;
    for (const ToolkitTraits* t : ToolkitLibraries()) {
      texts->push_back(std::string("the ") + t->name +
                       " libraries cudyn tries and the one this driver runs");
      const char* summary = texts->back().c_str();
      texts->push_back(ToolkitHelp(*t));
      Subcommand row{t->library, summary, {"--driver", "--max-cuda-version"}, {},
                     Positionals::kNone, nullptr, texts->back().c_str()};
      row.toolkit = t;
      kSubcommands->push_back(std::move(row));
    }
    kSubcommands->push_back({"help", "help for a subcommand (or use SUBCOMMAND --help)", {}, {},
                             Positionals::kTopic, RunHelp, kHelpHelp});
    return true;
  }();
  (void)kWithLibraries;
  return *kSubcommands;
}

const Subcommand* FindSubcommand(const std::string& name) {
  for (const Subcommand& s : Subcommands()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

std::string SubcommandNames() {
  std::string names;
  for (const Subcommand& s : Subcommands()) {
    if (!names.empty()) names += ", ";
    names += s.name;
  }
  return names;
}

std::string OverviewHelp() {
  std::string text = kOverviewHead;
  for (const Subcommand& s : Subcommands()) {
    std::string name = s.name;
    name.resize(std::max<size_t>(name.size() + 2, 10), ' ');
    text += "  " + name + s.summary + "\n";
  }
  return text + kOverviewTail;
}

std::string HelpText(const std::string& command) {
  const Subcommand* subcommand = FindSubcommand(command);
  return subcommand != nullptr ? subcommand->help : OverviewHelp();
}

int RunHelp(const Args& args, std::ostream& out, std::ostream& err) {
  const std::string topic = args.positional.empty() ? "" : args.positional.front();
  if (!topic.empty() && FindSubcommand(topic) == nullptr) {
    err << "cudyn-check: unknown subcommand '" << topic << "'\n";
    return kExitUsage;
  }
  out << HelpText(topic);
  return kExitOk;
}

}  // namespace check
}  // namespace cudyn
