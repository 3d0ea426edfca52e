// `cudyn-check runtimes` end to end: each test runs the real CLI as its own process over a
// --search-root tree of copies of the real CUDA runtimes (Debian's libcudart 11.2.152, 11.8.89,
// 12.4.127, 12.5.39 and the CUDA 13.0 toolkit's libcudart.so.13, one in a Python wheel layout)
// plus a truncated and a garbage libcudart.so.12, judged against the real drivers 418 (CUDA
// 10.1), 450 (11.0), 460 (11.2), 470 (11.4) and 535 (12.2). Expected answers come from facts
// about those files (their package versions, SONAMEs) and the family rule of loader/DESIGN.md (13 needs
// a 13.0 driver, 12 a 12.0, 11.x an 11.0), never from the tool's own texts.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/driver_entries.h"
#include "tests/util/runfiles.h"
#include "tools/testing/run_tool.h"

namespace cudyn {
namespace check {
namespace {

using testing::Describe;
using testing::Json;
using testing::ReadFile;
using testing::RunTool;
using testing::ToolRun;

struct RealRuntime {
  const char* version;  // "11.2"
  const char* path;     // runfiles path
};
constexpr RealRuntime kRealRuntimes[] = {
#include "tools/layers/real_runtimes.inc"
};

std::string DriverPath(int major) {
  return ::cudyn::testing::Runfile("nvidia_drivers/" + std::to_string(major) + "/libcuda.so.1");
}

std::string RealRuntimePath(const std::string& version) {
  for (const RealRuntime& r : kRealRuntimes) {
    if (version == r.version) return ::cudyn::testing::Runfile(r.path);
  }
  return "";
}

std::string Cuda13Runtime() {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/libcudart.so.13";
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  ASSERT_TRUE(out) << path;
}

void MakeDirs(const std::string& dir) {
  ASSERT_EQ(system(("mkdir -p '" + dir + "'").c_str()), 0) << dir;
}

// One runtime placed in the tree: where, and the facts about the file.
struct Placed {
  std::string path;
  int family;
  int version;     // 1000 * major + 10 * minor of the package (Debian / toolkit version)
  int min_driver;  // the family's first driver
};

struct Tree {
  std::string root;
  std::vector<Placed> runtimes;  // the five real ones
  std::string truncated;         // a libcudart.so.12 cut after 4 KiB
  std::string garbage;           // a libcudart.so.12 that is text
  const Placed* Find(int version) const {
    for (const Placed& p : runtimes) {
      if (p.version == version) return &p;
    }
    return nullptr;
  }
};

// root/0bad/libcudart.so.12      first 4096 bytes of 12.5 (sorted first: the loader meets it first)
// root/0junk/libcudart.so.12     text
// root/a/libcudart.so.12         12.5.39   (+ root/a/libcudart.so -> libcudart.so.12)
// root/a2/libcudart.so.12        12.4.127
// root/b/libcudart.so.11.0       11.8.89
// root/b2/libcudart.so.11.0      11.2.152
// root/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13   13.0 (toolkit)
Tree MakeTree() {
  Tree t;
  t.root = ::cudyn::testing::MakeTempDir("runtimes_root");
  struct Source {
    std::string from, dir, name;
    int family, version, min_driver;
  };
  const std::vector<Source> sources = {
      {RealRuntimePath("12.5"), "/a", "libcudart.so.12", 12, 12050, 12000},
      {RealRuntimePath("12.4"), "/a2", "libcudart.so.12", 12, 12040, 12000},
      {RealRuntimePath("11.8"), "/b", "libcudart.so.11.0", 11, 11080, 11000},
      {RealRuntimePath("11.2"), "/b2", "libcudart.so.11.0", 11, 11020, 11000},
      {Cuda13Runtime(), "/venv/lib/python3.11/site-packages/nvidia/cu13/lib", "libcudart.so.13",
       13, 13000, 13000},
  };
  for (const Source& s : sources) {
    EXPECT_FALSE(s.from.empty()) << s.dir;
    const std::string bytes = ReadFile(s.from);
    EXPECT_GT(bytes.size(), 100000u) << s.from;
    MakeDirs(t.root + s.dir);
    const std::string path = t.root + s.dir + "/" + s.name;
    WriteFile(path, bytes);
    chmod(path.c_str(), 0755);
    t.runtimes.push_back({path, s.family, s.version, s.min_driver});
  }
  EXPECT_EQ(symlink("libcudart.so.12", (t.root + "/a/libcudart.so").c_str()), 0);
  MakeDirs(t.root + "/0bad");
  t.truncated = t.root + "/0bad/libcudart.so.12";
  WriteFile(t.truncated, ReadFile(RealRuntimePath("12.5")).substr(0, 4096));
  MakeDirs(t.root + "/0junk");
  t.garbage = t.root + "/0junk/libcudart.so.12";
  WriteFile(t.garbage, "this is not a shared library\n");
  return t;
}

const Json* Entry(const Json& j, const std::string& path) {
  for (const Json& r : j["runtimes"]) {
    if (r["path"].get<std::string>() == path) return &r;
  }
  return nullptr;
}

const Json* PickCandidate(const Json& j, const std::string& path) {
  for (const Json& c : j["pick"]["candidates"]) {
    if (c["path"].get<std::string>() == path) return &c;
  }
  return nullptr;
}

ToolRun Runtimes(const Tree& t, int driver, std::vector<std::string> extra = {},
                 const std::vector<std::string>& env = {}) {
  std::vector<std::string> args = {"runtimes", "--driver", DriverPath(driver), "--search-root",
                                   t.root, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunTool(args, env);
}

// The fields every `runtimes[]` entry and the pick carry.
void ExpectSchema(const Json& j) {
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["command"].get<std::string>(), "runtimes");
  ASSERT_TRUE(j.contains("driver"));
  ASSERT_TRUE(j["runtimes"].is_array());
  for (const Json& r : j["runtimes"]) {
    for (const char* field :
         {"path", "soname", "family", "version", "min_driver", "runnable", "picked"}) {
      EXPECT_TRUE(r.contains(field)) << field << " in " << r.dump();
    }
  }
  if (!j["pick"].is_null()) {
    for (const char* field : {"ok", "path", "family", "version", "version_source", "found_by",
                              "candidates", "message"}) {
      EXPECT_TRUE(j["pick"].contains(field)) << field;
    }
    for (const Json& c : j["pick"]["candidates"]) {
      for (const char* field : {"path", "source", "rejection", "family", "version", "reason"}) {
        EXPECT_TRUE(c.contains(field)) << field << " in " << c.dump();
      }
    }
  }
  EXPECT_TRUE(j["exit_code"].is_number_integer());
}

// The real drivers' majors (REAL_DRIVER_MAJORS of third_party/nvidia_drivers.bzl, through the BUILD).
constexpr int kRealDriverMajors[] = {CUDYN_TEST_REAL_DRIVER_MAJORS};

TEST(CheckRuntimes, InputsArePresent) {
  for (int major : kRealDriverMajors) EXPECT_FALSE(DriverPath(major).empty()) << major;
  for (const RealRuntime& r : kRealRuntimes) {
    struct stat st;
    EXPECT_EQ(stat(RealRuntimePath(r.version).c_str(), &st), 0)
        << r.version << ": run third_party/fetch_runtimes.sh";
  }
  struct stat st;
  EXPECT_EQ(stat(Cuda13Runtime().c_str(), &st), 0) << Cuda13Runtime();
}

// Driver 535 (CUDA 12.2, from the table): every file listed with the version read from it, 13 not
// runnable, the loader picks a 12.x runtime after refusing the broken libcudart.so.12 it meets
// first.
TEST(CheckRuntimes, Driver535PicksTheTwelve) {
  const int cuda535 = ::cudyn::testing::RealDriverCuda(535);
  ASSERT_GT(cuda535, 0);
  const Tree t = MakeTree();
  ToolRun run = Runtimes(t, 535);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& j = run.json;
  ExpectSchema(j);
  EXPECT_EQ(j["exit_code"].get<int>(), 0);
  EXPECT_EQ(j["driver"]["cuda_version"].get<int>(), cuda535);
  EXPECT_EQ(j["driver"]["effective_version"].get<int>(), cuda535);
  // Five real files and two broken ones; the libcudart.so symlink is an alias, not an entry.
  EXPECT_EQ(j["runtimes"].size(), 7u) << run.out;

  for (const Placed& p : t.runtimes) {
    SCOPED_TRACE(p.path);
    const Json* e = Entry(j, p.path);
    ASSERT_NE(e, nullptr) << run.out;
    EXPECT_EQ((*e)["family"].get<int>(), p.family);
    EXPECT_EQ((*e)["version"].get<int>(), p.version);
    EXPECT_EQ((*e)["min_driver"].get<int>(), p.min_driver);
    EXPECT_EQ((*e)["runnable"].get<bool>(), p.min_driver <= cuda535);
    EXPECT_EQ((*e)["soname"].get<std::string>(), p.path.substr(p.path.rfind('/') + 1));
  }
  const Json* thirteen = Entry(j, t.Find(13000)->path);
  ASSERT_NE(thirteen, nullptr);
  EXPECT_FALSE((*thirteen)["runnable"].get<bool>());
  EXPECT_EQ((*thirteen)["min_driver"].get<int>(), 13000);
  EXPECT_FALSE((*thirteen)["picked"].get<bool>());
  // The alias is recorded with the 12.5 entry.
  const Json* twelve5 = Entry(j, t.Find(12050)->path);
  ASSERT_NE(twelve5, nullptr);
  bool alias_seen = false;
  for (const Json& a : (*twelve5)["aliases"]) alias_seen |= a.get<std::string>() == t.root + "/a/libcudart.so";
  EXPECT_TRUE(alias_seen) << twelve5->dump(2);

  // The broken files: listed, unusable, with a reason; they do not stop the rest.
  for (const std::string& bad : {t.truncated, t.garbage}) {
    SCOPED_TRACE(bad);
    const Json* e = Entry(j, bad);
    ASSERT_NE(e, nullptr) << run.out;
    EXPECT_EQ((*e)["kind"].get<std::string>(), "invalid");
    EXPECT_FALSE((*e)["runnable"].get<bool>());
    EXPECT_FALSE((*e)["picked"].get<bool>());
    EXPECT_TRUE((*e)["family"].is_null());
    ASSERT_TRUE((*e)["error"].is_string());
    EXPECT_FALSE((*e)["error"].get<std::string>().empty());
  }

  // The pick: a 12.x runtime of the tree, marked in the list, after the broken ones.
  const Json& pick = j["pick"];
  ASSERT_TRUE(pick["ok"].get<bool>()) << pick.dump(2);
  EXPECT_EQ(pick["family"].get<int>(), 12);
  EXPECT_EQ(pick["version"].get<int>() / 1000, 12);
  const std::string picked = pick["path"].get<std::string>();
  EXPECT_TRUE(picked == t.Find(12050)->path || picked == t.Find(12040)->path) << picked;
  int picked_entries = 0;
  for (const Json& r : j["runtimes"]) {
    if (!r["picked"].get<bool>()) continue;
    ++picked_entries;
    EXPECT_EQ(r["path"].get<std::string>(), picked);
    if (pick["version_source"].get<std::string>() == "cudaRuntimeGetVersion") {
      EXPECT_EQ(r["version"].get<int>(), pick["version"].get<int>());
    }
  }
  EXPECT_EQ(picked_entries, 1);
  EXPECT_EQ(pick["found_by"].get<std::string>(), "search path");
  ASSERT_FALSE(pick["candidates"].empty());
  const Json& last = pick["candidates"].back();
  EXPECT_EQ(last["path"].get<std::string>(), picked);
  EXPECT_EQ(last["rejection"].get<std::string>(), "accepted");
  for (const std::string& bad : {t.truncated, t.garbage}) {
    const Json* c = PickCandidate(j, bad);
    ASSERT_NE(c, nullptr) << bad << "\n" << pick.dump(2);
    EXPECT_NE((*c)["rejection"].get<std::string>(), "accepted");
    EXPECT_FALSE((*c)["reason"].get<std::string>().empty());
  }
  // Family 13 was refused because of the driver, without being opened.
  bool thirteen_refused = false;
  for (const Json& c : pick["candidates"]) {
    if (c["family"].get<int>() == 13) {
      EXPECT_NE(c["rejection"].get<std::string>(), "accepted");
      thirteen_refused = true;
    }
  }
  EXPECT_TRUE(thirteen_refused) << pick.dump(2);
}

// The clamp makes 535 behave as 11.4: the pick is family 11, and 12 / 13 are not runnable; the
// environment variable does the same as the option.
TEST(CheckRuntimes, ClampPicksFamilyEleven) {
  const Tree t = MakeTree();
  for (const bool via_env : {false, true}) {
    SCOPED_TRACE(via_env ? "CUDYN_MAX_CUDA_VERSION" : "--max-cuda-version");
    ToolRun run = via_env ? Runtimes(t, 535, {}, {"CUDYN_MAX_CUDA_VERSION=11040"})
                          : Runtimes(t, 535, {"--max-cuda-version", "11.4"});
    ASSERT_EQ(run.exit_code, 0) << Describe(run);
    ASSERT_TRUE(run.json_ok);
    const Json& j = run.json;
    ExpectSchema(j);
    EXPECT_EQ(j["driver"]["cuda_version"].get<int>(), 12020);
    EXPECT_EQ(j["driver"]["effective_version"].get<int>(), 11040);
    ASSERT_TRUE(j["pick"]["ok"].get<bool>()) << j["pick"].dump(2);
    EXPECT_EQ(j["pick"]["family"].get<int>(), 11);
    const std::string picked = j["pick"]["path"].get<std::string>();
    EXPECT_TRUE(picked == t.Find(11080)->path || picked == t.Find(11020)->path) << picked;
    for (const Placed& p : t.runtimes) {
      const Json* e = Entry(j, p.path);
      ASSERT_NE(e, nullptr) << p.path;
      EXPECT_EQ((*e)["runnable"].get<bool>(), p.family == 11) << p.path;
      EXPECT_EQ((*e)["picked"].get<bool>(), p.path == picked) << p.path;
    }
  }
}

// Each real driver against the same tree: the newest family it runs is picked (none for 10.1).
TEST(CheckRuntimes, EveryRealDriver) {
  const Tree t = MakeTree();
  struct Case {
    int driver;
    int cuda_version;
    int family;  // 0: nothing runnable
  };
  // version facts: checked against kRealDriverMajors
  const Case cases[] = {Case{418, 10010, 0}, Case{450, 11000, 11}, Case{460, 11020, 11},
                        Case{470, 11040, 11}, Case{535, 12020, 12}};
  ASSERT_EQ(std::size(cases), std::size(kRealDriverMajors));
  for (size_t k = 0; k < std::size(cases); ++k) {
    const Case& c = cases[k];
    EXPECT_EQ(c.driver, kRealDriverMajors[k]);
    SCOPED_TRACE(c.driver);
    ToolRun run = Runtimes(t, c.driver);
    ASSERT_TRUE(run.json_ok) << Describe(run);
    const Json& j = run.json;
    ExpectSchema(j);
    EXPECT_EQ(j["driver"]["cuda_version"].get<int>(), c.cuda_version);
    EXPECT_EQ(run.exit_code, c.family == 0 ? 1 : 0) << Describe(run);
    EXPECT_EQ(j["exit_code"].get<int>(), run.exit_code);
    for (const Placed& p : t.runtimes) {
      const Json* e = Entry(j, p.path);
      ASSERT_NE(e, nullptr) << p.path;
      EXPECT_EQ((*e)["runnable"].get<bool>(), p.min_driver <= c.cuda_version) << p.path;
      EXPECT_EQ((*e)["version"].get<int>(), p.version) << p.path;
    }
    EXPECT_EQ(j["pick"]["ok"].get<bool>(), c.family != 0) << j["pick"].dump(2);
    if (c.family != 0) {
      EXPECT_EQ(j["pick"]["family"].get<int>(), c.family);
    } else {
      // CUDA 10.1: nothing here runs; the loader says why, and nothing is marked picked.
      for (const Json& r : j["runtimes"]) {
        EXPECT_FALSE(r["runnable"].get<bool>()) << r.dump();
        EXPECT_FALSE(r["picked"].get<bool>()) << r.dump();
      }
      EXPECT_TRUE(j["pick"]["path"].is_null());
      ASSERT_TRUE(j["pick"]["message"].is_string());
      EXPECT_FALSE(j["pick"]["message"].get<std::string>().empty());
      EXPECT_FALSE(j["pick"]["candidates"].empty());
    }
  }
}

// ---- The search plan: what the CLI lists is what the loader tries ------------------------------

// A tree with a decoy (text, so the loader rejects it and goes on) under every runtime SONAME in
// every directory the plan names, and in two it must not (cuda/lib, a cu12 wheel directory). The
// plan's order, written out here from its documented rule (loader/cudart.h), must be the CLI's
// search_plan and exactly the loader's own candidate list, in the child the CLI opens it in.
TEST(CheckRuntimes, SearchPlanIsWhatTheLoaderTries) {
  const std::string t = ::cudyn::testing::MakeTempDir("runtimes_plan");
  const std::string root = t + "/root";
  const std::string venv_site = t + "/venv/lib/python3.11/site-packages";
  const std::string conda_site = t + "/conda/lib/python3.12/site-packages";
  const std::string user_site = t + "/user/.local/lib/python3.11/site-packages";
  const std::string local_dist = root + "/usr/local/lib/python3.11/dist-packages";
  const std::string system_dist = root + "/usr/lib/python3/dist-packages";
  const std::vector<std::string> env = {"CUDA_HOME=" + t + "/cudahome", "CUDA_PATH=" + t + "/cudapath",
                                        "VIRTUAL_ENV=" + t + "/venv", "CONDA_PREFIX=" + t + "/conda",
                                        "HOME=" + t + "/user"};
  const std::string target = "/targets/x86_64-linux/lib";
  // Directories per wheel generation: 13 has its own, 11 and 12 share nvidia/cuda_runtime/lib.
  auto dirs_for = [&](int family) {
    const std::string wheel = family >= 13 ? "/nvidia/cu13/lib" : "/nvidia/cuda_runtime/lib";
    std::vector<std::string> dirs = {t + "/cudahome/lib64", t + "/cudahome/lib", t + "/cudapath/lib64"};
    for (const std::string& site : {venv_site, conda_site, user_site, local_dist, system_dist}) {
      dirs.push_back(site + wheel);
    }
    for (const std::string& d :
         {t + "/conda/lib", root + "/usr/local/cuda/lib64", root + "/usr/local/cuda" + target,
          root + "/usr/local/cuda-12.10/lib64", root + "/usr/local/cuda-12.4/lib64",
          root + "/usr/local/cuda-11.8" + target, root + "/usr/lib/x86_64-linux-gnu",
          root + "/usr/lib64", root + "/opt/cuda/lib64"}) {
      dirs.push_back(d);
    }
    return dirs;
  };
  const std::vector<std::pair<std::string, int>> sonames = {
      {"libcudart.so.13", 13},   {"libcudart.so.12", 12},   {"libcudart.so.11.0", 11},
      {"libcudart.so.10.2", 10}, {"libcudart.so.10.1", 10}, {"libcudart.so.10.0", 10}};
  std::vector<std::string> off_plan = {root + "/usr/local/cuda/lib", venv_site + "/nvidia/cu12/lib"};
  for (const auto& [soname, family] : sonames) {
    for (const std::string& dir : dirs_for(family)) {
      MakeDirs(dir);
      WriteFile(dir + "/" + soname, "a decoy, not a shared library\n");
    }
    for (const std::string& dir : off_plan) {
      MakeDirs(dir);
      WriteFile(dir + "/" + soname, "a decoy off the plan\n");
    }
  }
  // The cu13 directories hold only 13's decoy in the expected order; put 12's there too, as a
  // wrong-family file the loader must not try.
  WriteFile(venv_site + "/nvidia/cu13/lib/libcudart.so.12", "wrong family\n");

  // Driver 535 is CUDA 12.2: families 12, 11 and 10.x; the 13.0 fake adds 13.
  const std::string fake13 = ::cudyn::testing::Runfile("tests/fake_driver/cuda_13000/libcuda.so.1");
  for (const std::string& driver : {DriverPath(535), fake13}) {
    SCOPED_TRACE(driver);
    ToolRun run = RunTool({"runtimes", "--driver", driver, "--root", root, "--json"}, env);
    ASSERT_TRUE(run.json_ok) << Describe(run);
    EXPECT_EQ(run.exit_code, 1) << "only decoys: nothing to pick";
    std::vector<std::string> expected;
    for (const auto& [soname, family] : sonames) {
      if (family == 13 && driver != fake13) continue;
      for (const std::string& dir : dirs_for(family)) expected.push_back(dir + "/" + soname);
    }
    std::vector<std::string> listed, tried;
    for (const Json& e : run.json["search_plan"]) {
      EXPECT_FALSE(e["source"].get<std::string>() == "default search") << "no default search under --root";
      if (e["exists"].is_boolean() && e["exists"].get<bool>()) listed.push_back(e["path"].get<std::string>());
    }
    for (const Json& c : run.json["pick"]["candidates"]) {
      if (c["source"].get<std::string>() == "family policy") continue;
      tried.push_back(c["path"].get<std::string>());
      EXPECT_EQ(c["rejection"].get<std::string>(), "dlopen_failed") << c.dump();
    }
    EXPECT_EQ(listed, expected);
    EXPECT_EQ(tried, expected);
    for (const Json& d : run.json["directories"]) {
      for (const std::string& off : off_plan) EXPECT_NE(d["path"].get<std::string>(), off);
    }
  }
}

// Several roots: both walked, each file listed once.
TEST(CheckRuntimes, SeveralSearchRoots) {
  const Tree t = MakeTree();
  ToolRun run = RunTool({"runtimes", "--driver", DriverPath(535), "--search-root", t.root + "/a",
                         "--search-root", t.root + "/venv", "--json"});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(run.json["runtimes"].size(), 2u) << run.out;
  EXPECT_NE(Entry(run.json, t.Find(12050)->path), nullptr) << run.out;
  EXPECT_NE(Entry(run.json, t.Find(13000)->path), nullptr) << run.out;
  EXPECT_EQ(run.json["pick"]["path"].get<std::string>(), t.Find(12050)->path);
  EXPECT_EQ(run.json["search_roots"].size(), 2u);
}

// Only a family the driver cannot run: runtimes exist, none runnable -> exit 1.
TEST(CheckRuntimes, OnlyTooNewRuntimeExits1) {
  const Tree t = MakeTree();
  ToolRun run = RunTool({"runtimes", "--driver", DriverPath(470), "--search-root",
                         t.root + "/venv", "--json"});
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  ASSERT_TRUE(run.json_ok);
  ASSERT_EQ(run.json["runtimes"].size(), 1u);
  EXPECT_FALSE(run.json["runtimes"][0]["runnable"].get<bool>());
  EXPECT_FALSE(run.json["pick"]["ok"].get<bool>());
}

// Human output: the same facts for people; exit codes as with --json.
TEST(CheckRuntimes, HumanOutput) {
  const Tree t = MakeTree();
  ToolRun json = Runtimes(t, 535);
  ASSERT_TRUE(json.json_ok) << Describe(json);
  ToolRun run = RunTool({"runtimes", "--driver", DriverPath(535), "--search-root", t.root});
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_FALSE(run.json_ok);
  EXPECT_TRUE(run.err.empty()) << run.err;
  for (const Placed& p : t.runtimes) EXPECT_NE(run.out.find(p.path), std::string::npos) << p.path;
  EXPECT_NE(run.out.find(t.truncated), std::string::npos);
  EXPECT_NE(run.out.find(json.json["pick"]["path"].get<std::string>()), std::string::npos);
  ToolRun none = RunTool({"runtimes", "--driver", DriverPath(418), "--search-root", t.root});
  EXPECT_EQ(none.exit_code, 1) << Describe(none);
  EXPECT_FALSE(none.out.empty());
}

// No usable driver: exit 3, the runtimes still listed (none runnable), no pick.
TEST(CheckRuntimes, NoDriverExits3) {
  const Tree t = MakeTree();
  const std::string missing = t.root + "/no/such/libcuda.so.1";
  ToolRun run = RunTool({"runtimes", "--driver", missing, "--search-root", t.root, "--json"});
  EXPECT_EQ(run.exit_code, 3) << Describe(run);
  ASSERT_TRUE(run.json_ok) << Describe(run);
  EXPECT_TRUE(run.json["driver"].is_null());
  EXPECT_TRUE(run.json["pick"].is_null());
  EXPECT_EQ(run.json["runtimes"].size(), 7u);
  for (const Json& r : run.json["runtimes"]) EXPECT_FALSE(r["runnable"].get<bool>());
  ToolRun human = RunTool({"runtimes", "--driver", missing, "--search-root", t.root});
  EXPECT_EQ(human.exit_code, 3) << Describe(human);
}

TEST(CheckRuntimes, Usage) {
  const Tree t = MakeTree();
  ToolRun help = RunTool({"runtimes", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--search-root"), std::string::npos);
  EXPECT_EQ(RunTool({"help", "runtimes"}).exit_code, 0);
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"runtimes", "--search-root", t.root + "/does-not-exist"},
           {"runtimes", "--search-root", t.truncated},
           {"runtimes", "--deps"},
           {"runtimes", "--gpu", "sm_90"},
           {"runtimes", "extra"},
           {"runtimes", "--max-cuda-version", "banana"},
           {"runtimes", "--driver"}}) {
    ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 2) << args.back() << "\n" << Describe(run);
    EXPECT_FALSE(run.err.empty());
  }
}

}  // namespace
}  // namespace check
}  // namespace cudyn
