// The libraries chosen by the driver on the toolkit template (cuRAND, cuFFT, nvJitLink, cuSPARSE,
// cuSOLVER, cuBLASLt) against the real libraries: each case in its own process (tests/util
// choose_child.h).
//  * Every real release (11.8, 12.4, 12.5, 13.0) opened by its path: its own version call's number
//    and release are the facts', and every entry of the 13.0 header binds to a function inside that
//    very file (dladdr), or is missing exactly where the release does not export it.
//  * All releases at once on every real driver (and under a clamp): the one taken is the newest
//    whose CUDA major the driver runs (a library of CUDA M needs a CUDA M.0 driver: the runtime it
//    carries, or for cuFFT 12.4+ and nvJitLink, which carry none, their release), none where no
//    release qualifies, and the process maps no release newer than the one taken... except those
//    loaded to be refused (recorded as such).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "loader/toolkit_libraries.h"
#include "tests/util/choose_child.h"
#include "tests/util/runfiles.h"

namespace {

struct RealDriver {
  const char* major;
  int cuda;
};
constexpr RealDriver kDrivers[] = {
#include "tests/util/real_drivers.inc"
};

struct RealLibrary {
  const char* library;  // "curand"
  const char* release;  // "12.4"
  const char* path;     // runfiles path, or an absolute one (13.0, the toolkit's)
  const char* cublas;   // the release's cuBLAS (a cuSOLVER needs it), runfiles path; "" for 13.0
};
constexpr RealLibrary kLibraries[] = {
#include "tests/real_toolkit/real_libraries.inc"
};

const cudyn::ToolkitTraits* TraitsOf(const std::string& library) {
  for (const cudyn::ToolkitTraits* t : cudyn::ToolkitLibraries()) {
    if (library == t->library) return t;
  }
  return nullptr;
}

int ReleaseNumber(const std::string& release) {
  return std::stoi(release.substr(0, release.find('.'))) * 1000 +
         std::stoi(release.substr(release.find('.') + 1)) * 10;
}

std::string FileOf(const RealLibrary& r) {
  return r.path[0] == '/' ? std::string(r.path) : cudyn::testing::Runfile(r.path);
}

std::string DirOf(const std::string& file) { return file.substr(0, file.rfind('/')); }

std::string RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

// The directories a release's libraries need on LD_LIBRARY_PATH (cuSOLVER's cuBLAS lives apart).
std::vector<std::string> ReleaseDirs(const RealLibrary& r) {
  std::vector<std::string> dirs = {DirOf(FileOf(r))};
  if (r.cublas[0] != '\0') dirs.push_back(DirOf(cudyn::testing::Runfile(r.cublas)));
  return dirs;
}

// --- Children ---------------------------------------------------------------------------------

// --bind LIB FILE: opened by its path for a 13.0 driver (every release acceptable).
int BindChild(const std::string& library, const std::string& file) {
  const cudyn::ToolkitTraits& traits = *TraitsOf(library);
  cudyn::ToolkitOptions options;
  options.path = file;
  options.driver_version = 13000;
  std::unique_ptr<cudyn::Toolkit> t = cudyn::Toolkit::Open(traits, options);
  std::printf("ok=%d\nversion=%d\nrelease=%d\nruntime=%d\n", t->ok(), t->version(), t->release(),
              t->runtime_version());
  std::printf("missing=%d\n", t->BindAll());
  const std::string own = RealPath(t->path());
  void* self = dlopen(own.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  int native = 0, elsewhere = 0, exported_unbound = 0;
  std::string missing_list, exported_unbound_list;
  for (int i = 0; i < traits.entry_count; ++i) {
    if (t->status(i) != cudyn::EntryStatus::kNative) {
      missing_list += std::string(traits.symbols[i]) + ",";
      // A function the file itself exports under the entry's name, left unserved: the release
      // has it, so only a changed ABI (which needs an adapter) may keep it from the program.
      Dl_info info;
      void* exported = self != nullptr ? dlsym(self, std::string(traits.symbols[i]).c_str()) : nullptr;
      if (exported != nullptr && dladdr(exported, &info) != 0 && info.dli_fname != nullptr &&
          RealPath(info.dli_fname) == own) {
        ++exported_unbound;
        exported_unbound_list += std::string(traits.symbols[i]) + ",";
      }
      continue;
    }
    ++native;
    Dl_info info;
    void* fn = t->Resolve(i);
    if (dladdr(fn, &info) == 0 || info.dli_fname == nullptr || RealPath(info.dli_fname) != own) {
      ++elsewhere;
    }
  }
  std::printf("native=%d\nelsewhere=%d\nmissing_list=%s\n", native, elsewhere,
              missing_list.c_str());
  std::printf("self=%d\nexported_unbound=%d\nexported_unbound_list=%s\n", self != nullptr,
              exported_unbound, exported_unbound_list.c_str());
  if (self != nullptr) dlclose(self);
  return 0;
}

// --choose LIB DIR...: the search over these directories, for the driver of the environment.
int ChooseChild(const std::string& library, const std::vector<std::string>& dirs) {
  const cudyn::ToolkitTraits& traits = *TraitsOf(library);
  cudyn::ToolkitOptions options;
  options.use_environment = true;
  options.search_paths = dirs;
  std::unique_ptr<cudyn::Toolkit> t = cudyn::Toolkit::Open(traits, options);
  std::printf("ok=%d\nrelease=%d\ndriver=%d\npath=%s\n", t->ok(), t->release(),
              t->driver_version(), t->path().c_str());
  int refused_loaded = 0;
  for (const cudyn::ToolkitCandidate& c : t->candidates()) {
    if (!c.accepted() && c.version > 0) ++refused_loaded;
  }
  std::printf("refused_loaded=%d\nmapped=%s\n", refused_loaded,
              cudyn::testing::MappedFiles((std::string(traits.file) + ".so.").c_str()).c_str());
  return 0;
}

// --siblings LIB FILE [FIRST]: FILE opened by its path for a 13.0 driver after FIRST (a sibling of
// another release, loaded by its path first, or nothing).
int SiblingsChild(const std::string& library, const std::string& file, const char* first) {
  if (first != nullptr && dlopen(first, RTLD_LAZY | RTLD_LOCAL) == nullptr) {
    std::printf("first_failed=%s\n", dlerror());
  }
  cudyn::ToolkitOptions options;
  options.path = file;
  options.driver_version = 13000;
  std::unique_ptr<cudyn::Toolkit> t = cudyn::Toolkit::Open(*TraitsOf(library), options);
  std::string warnings;
  for (const std::string& w : t->warnings()) warnings += w + "|";
  std::printf("ok=%d\ncompanion=%s\nwarnings=%s\n", t->ok(), t->companion().c_str(),
              warnings.c_str());
  return 0;
}

// The release's exports as the table says: how many entries the release has no function for.
int TableMissing(const cudyn::ToolkitTraits& traits, int release) {
  int missing = 0;
  for (int i = 0; i < traits.rule_count; ++i) {
    missing += traits.rules[i].release == release && traits.rules[i].candidates[0] == '\0';
  }
  return missing;
}

int LibraryVersionFact(const cudyn::ToolkitTraits& traits, int release) {
  const cudyn::ToolkitReleaseRow* row = cudyn::FindToolkitRelease(traits, release);
  return row != nullptr ? row->library_version : -1;
}

// --- Tests -----------------------------------------------------------------------------------

TEST(RealToolkit, EveryReleaseBindsEveryEntryIntoItself) {
  int cases = 0;
  for (const RealLibrary& r : kLibraries) {
    SCOPED_TRACE(std::string(r.library) + " " + r.release);
    const cudyn::ToolkitTraits* traits = TraitsOf(r.library);
    ASSERT_NE(traits, nullptr);
    const std::string file = FileOf(r);
    ASSERT_FALSE(file.empty()) << r.path;
    cudyn::testing::ChildEnvironment env;
    env.ld_library_path = ReleaseDirs(r);
    env.foreign_leak = true;  // the real libraries' own libstdc++ pools
    auto a = cudyn::testing::RunChild({"--bind", r.library, file}, env);
    const int release = ReleaseNumber(r.release);
    ASSERT_EQ(a["ok"], "1");
    EXPECT_EQ(a["release"], std::to_string(release));
    EXPECT_EQ(a["version"], std::to_string(LibraryVersionFact(*traits, release)));
    EXPECT_EQ(a["missing"], std::to_string(TableMissing(*traits, release))) << a["missing_list"];
    EXPECT_EQ(a["elsewhere"], "0");  // every native entry is a function of the file opened
    // Every entry the release exports is served: cuSPARSE 11.8's SpMV, SpMM, ... (its header says
    // cusparseSpMatDescr_t where 12.1+ says cusparseConstSpMatDescr_t: the same ABI) answered
    // NOT_SUPPORTED through cudyn on an H200 while the library itself computed (tests/gpu/RESULTS.md).
    EXPECT_EQ(a["self"], "1");
    EXPECT_EQ(a["exported_unbound"], "0") << a["exported_unbound_list"];
    EXPECT_EQ(std::stoi(a["native"]) + std::stoi(a["missing"]), traits->entry_count);
    // 13.0 serves every entry of its own header.
    if (release == 13000) {
      EXPECT_EQ(a["missing"], "0");
    }
    ++cases;
  }
  EXPECT_EQ(cases, 23);  // 6 libraries x 4 releases, nvJitLink without 11.8
}

// The newest of `releases` whose CUDA major a driver of `driver` runs (0: none).
int ExpectedRelease(const std::vector<int>& releases, int driver) {
  int best = 0;
  for (int r : releases) {
    if (r / 1000 * 1000 <= driver && r > best) best = r;
  }
  return best;
}

TEST(RealToolkit, EachDriverGetsTheNewestReleaseItRuns) {
  for (const cudyn::ToolkitTraits* traits : cudyn::ToolkitLibraries()) {
    std::vector<std::string> dirs, ld_path;
    std::vector<int> releases;
    for (const RealLibrary& r : kLibraries) {
      if (std::string(r.library) != traits->library) continue;
      releases.push_back(ReleaseNumber(r.release));
      for (const std::string& d : ReleaseDirs(r)) ld_path.push_back(d);
    }
    if (releases.empty()) continue;  // NVRTC and cuBLAS: tests/real_nvrtc, tests/real_cublas
    // Newest first, as the loader's own search would meet them.
    for (auto it = kLibraries + std::size(kLibraries); it-- != kLibraries;) {
      if (std::string(it->library) == traits->library) dirs.push_back(DirOf(FileOf(*it)));
    }
    struct Case {
      const RealDriver* driver;
      std::string clamp;
    };
    std::vector<Case> cases;
    for (const RealDriver& d : kDrivers) cases.push_back({&d, ""});
    cases.push_back({&kDrivers[std::size(kDrivers) - 1], "11.4"});
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(traits->library) + " on " + c.driver->major + " clamp " + c.clamp);
      cudyn::testing::ChildEnvironment env;
      env.driver = cudyn::testing::Runfile(std::string("nvidia_drivers/") + c.driver->major +
                                           "/libcuda.so.1");
      env.clamp = c.clamp;
      env.foreign_leak = true;
      // Only the newest release's directories on the linker's path: a release taken from
      // another directory finds its siblings beside it ($ORIGIN) or, for cuSOLVER, here.
      env.ld_library_path = ld_path;
      std::vector<std::string> args = {"--choose", traits->library};
      args.insert(args.end(), dirs.begin(), dirs.end());
      auto a = cudyn::testing::RunChild(args, env);
      const int driver = c.clamp.empty() ? c.driver->cuda : 11040;
      const int want = ExpectedRelease(releases, driver);
      EXPECT_EQ(a["driver"], std::to_string(driver));
      EXPECT_EQ(a["ok"], want != 0 ? "1" : "0");
      if (want != 0) {
        EXPECT_EQ(a["release"], std::to_string(want)) << a["path"];
      }
      // Every release refused was refused unloaded: by its SONAME, or where several releases
      // share one (libcurand.so.10, libcusolver.so.11, libcusparse.so.12) by the runtime its file
      // carries. A refused cuSOLVER loaded to be judged kept itself and its cuBLAS, cuBLASLt and
      // nvJitLink mapped (measured on an H200: tests/gpu/RESULTS.md).
      EXPECT_EQ(a["refused_loaded"], "0") << a["mapped"];
    }
  }
}

}  // namespace

// cuSOLVER needs cuBLAS, cuBLASLt, cuSPARSE and nvJitLink of its own release: opened by its path,
// the ones beside it are loaded first and named; when another release's cuSPARSE was loaded first
// (the dynamic linker matches it by SONAME) the mix is named and warned about.
TEST(RealToolkit, CusolverSiblingsAreItsOwnReleaseOrWarned) {
  const RealLibrary* solver = nullptr;
  const RealLibrary* sparse124 = nullptr;
  for (const RealLibrary& r : kLibraries) {
    if (std::string(r.library) == "cusolver" && std::string(r.release) == "12.5") solver = &r;
    if (std::string(r.library) == "cusparse" && std::string(r.release) == "12.4") sparse124 = &r;
  }
  ASSERT_NE(solver, nullptr);
  ASSERT_NE(sparse124, nullptr);
  const std::string file = FileOf(*solver), dir = DirOf(RealPath(file));
  cudyn::testing::ChildEnvironment env;
  env.ld_library_path = ReleaseDirs(*solver);
  env.foreign_leak = true;
  auto own = cudyn::testing::RunChild({"--siblings", "cusolver", file}, env);
  ASSERT_EQ(own["ok"], "1");
  EXPECT_NE(own["companion"].find("libcusparse.so.12: " + dir + "/libcusparse.so.12"),
            std::string::npos)
      << own["companion"];
  EXPECT_NE(own["companion"].find("libnvJitLink.so.12: " + dir + "/libnvJitLink.so.12"),
            std::string::npos)
      << own["companion"];
  EXPECT_EQ(own["warnings"].find("releases mixed"), std::string::npos) << own["warnings"];
  const std::string other = RealPath(FileOf(*sparse124));
  auto mixed = cudyn::testing::RunChild({"--siblings", "cusolver", file, other}, env);
  ASSERT_EQ(mixed["ok"], "1");
  EXPECT_NE(mixed["companion"].find("libcusparse.so.12: " + other), std::string::npos)
      << mixed["companion"];
  EXPECT_NE(mixed["warnings"].find("releases mixed"), std::string::npos) << mixed["warnings"];
}

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--siblings") == 0) {
    return SiblingsChild(argv[2], argv[3], argc >= 5 ? argv[4] : nullptr);
  }
  if (argc >= 4 && std::strcmp(argv[1], "--bind") == 0) return BindChild(argv[2], argv[3]);
  if (argc >= 3 && std::strcmp(argv[1], "--choose") == 0) {
    return ChooseChild(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
