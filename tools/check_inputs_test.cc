// `cudyn-check binary` on whole installs: --deps, directories and wheels, end to end through the
// real CLI on programs the real CUDA 13.0 nvcc built (//tools/fatbin:nvcc_programs):
//   app_kern          host-only program; DT_NEEDED libkern_sm90.so; RUNPATH $ORIGIN/../lib
//   libkern_sm90.so   sm_90 SASS only; DT_NEEDED libcudart.so.13;
//                     RUNPATH $ORIGIN/../../nvidia/cu13/lib (a wheel's layout)
// and the toolkit's libcudart.so.13. Expected answers follow from those facts and the rules: a
// runtime of family 13 needs a 13.0 driver (35 below); sm_90 SASS runs on sm_90 only among
// {sm_80, sm_90} (209 on sm_80, on every driver); a host-only program runs on any driver.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/runfiles.h"
#include "tools/testing/run_tool.h"
#include "tools/zip/testing/zip_bombs.h"

namespace cudyn {
namespace check {
namespace {

using testing::Describe;
using testing::Json;
using testing::RunTool;
using testing::ToolRun;

std::string Nvcc(const std::string& name) {
  return ::cudyn::testing::Runfile("tools/fatbin/nvcc/" + name);
}
std::string CudaLibDir() {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64";
}

void Copy(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  ASSERT_TRUE(in) << from;
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
  ASSERT_TRUE(out) << to;
  chmod(to.c_str(), 0755);
}

std::string Real(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

// An installed application: app/bin/app_kern, app/lib/libkern_sm90.so, a README, and a
// symbolic link back to app/ (a loop the directory walk must not follow).
class InstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::cudyn::testing::MakeTempDir("install");
    app_ = root_ + "/app";
    mkdir(app_.c_str(), 0755);
    mkdir((app_ + "/bin").c_str(), 0755);
    mkdir((app_ + "/lib").c_str(), 0755);
    Copy(Nvcc("app_kern"), app_ + "/bin/app_kern");
    Copy(Nvcc("libkern_sm90.so"), app_ + "/lib/libkern_sm90.so");
    std::ofstream(app_ + "/README.txt") << "not a binary\n";
    ASSERT_EQ(symlink("..", (app_ + "/bin/loop").c_str()), 0);
  }

  ToolRun Binary(std::vector<std::string> args, const std::string& version,
                 const std::string& gpu, const std::vector<std::string>& env = {}) {
    std::vector<std::string> full = {"binary", "--json", "--target-version", version, "--gpu",
                                     gpu};
    full.insert(full.end(), args.begin(), args.end());
    ToolRun run = RunTool(full, env);
    EXPECT_TRUE(run.json_ok) << Describe(run);
    return run;
  }

  // The files[] entry whose path ends with `suffix`; null when none.
  static const Json* File(const ToolRun& run, const std::string& suffix) {
    for (const Json& f : run.json["files"]) {
      const std::string p = f["path"].get<std::string>();
      if (p.size() >= suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(),
                                                 suffix) == 0) {
        return &f;
      }
    }
    return nullptr;
  }

  std::string LdPath() const { return "LD_LIBRARY_PATH=" + CudaLibDir(); }

  std::string root_, app_;
};

TEST_F(InstallTest, WithoutDepsOnlyTheProgramIsJudged) {
  ToolRun run = Binary({app_ + "/bin/app_kern"}, "12.8", "sm_90", {LdPath()});
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  ASSERT_EQ(run.json["files"].size(), 1u) << Describe(run);
  EXPECT_EQ(run.json["files"][0]["minimum_driver"]["version"], 0);
}

TEST_F(InstallTest, DepsFollowRunpathAndLdLibraryPath) {
  const std::string app = app_ + "/bin/app_kern";
  ToolRun run = Binary({"--deps", app}, "12.8", "sm_90", {LdPath()});
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  const Json* kern = File(run, "/libkern_sm90.so");
  ASSERT_NE(kern, nullptr) << Describe(run);
  EXPECT_EQ((*kern)["origin"], "dependency");
  EXPECT_EQ((*kern)["needed_by"], app);
  EXPECT_EQ((*kern)["needed_as"], "libkern_sm90.so");
  EXPECT_EQ((*kern)["found_by"], "RUNPATH");
  EXPECT_EQ((*kern)["deciding_layer"], "runtime") << kern->dump();
  EXPECT_EQ((*kern)["cuda_error"], 35);
  const Json* cudart = File(run, "/libcudart.so.13");
  ASSERT_NE(cudart, nullptr) << Describe(run);
  EXPECT_EQ((*cudart)["found_by"], "LD_LIBRARY_PATH");
  EXPECT_EQ((*cudart)["needed_as"], "libcudart.so.13");
  EXPECT_EQ((*cudart)["minimum_driver"]["version"], 13000);
  // Layer 4: the program itself fails through the library it needs (loader/DESIGN.md), named.
  const Json* prog = File(run, "/bin/app_kern");
  ASSERT_NE(prog, nullptr);
  EXPECT_EQ((*prog)["verdict"], "incompatible");
  EXPECT_EQ((*prog)["deciding_layer"], "dependencies");
  EXPECT_EQ((*prog)["cuda_error"], 35);
  EXPECT_NE((*prog)["reason"].get<std::string>().find((*kern)["path"].get<std::string>()),
            std::string::npos)
      << (*prog)["reason"];
  EXPECT_EQ((*prog)["minimum_driver"]["version"], 13000);
  EXPECT_EQ((*prog)["minimum_driver"]["layer"], "dependencies");
  const Json* libc = File(run, "/libc.so.6");
  ASSERT_NE(libc, nullptr) << Describe(run);
  EXPECT_FALSE((*libc)["cuda_content"].get<bool>());
  // The set: 13.0, set by the first file that needs it (the library, before the runtime).
  const Json& set = run.json["set"];
  EXPECT_EQ(set["minimum_driver"]["version"], 13000) << set.dump();
  EXPECT_EQ(set["minimum_driver"]["file"], (*kern)["path"]);
  EXPECT_EQ(set["minimum_driver"]["layer"], "runtime");
  EXPECT_EQ(set["by_origin"]["argument"], 1);
  EXPECT_GE(set["by_origin"]["dependency"].get<int>(), 4);  // libkern, cudart, libc, libstdc++
  EXPECT_TRUE(set["unresolved"].empty()) << set.dump();

  // On a 13.0 driver the whole set runs on sm_90, and no driver runs it on sm_80.
  run = Binary({"--deps", app}, "13.0", "sm_90", {LdPath()});
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  run = Binary({"--deps", app}, "13.0", "sm_80", {LdPath()});
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  kern = File(run, "/libkern_sm90.so");
  ASSERT_NE(kern, nullptr);
  EXPECT_EQ((*kern)["cuda_error"], 209);
  EXPECT_EQ(run.json["set"]["minimum_driver"]["version"], -1);
  EXPECT_TRUE(run.json["set"]["minimum_driver"]["runs_on_no_driver"].get<bool>());
  EXPECT_EQ(run.json["set"]["minimum_driver"]["layer"], "kernels");
}

TEST_F(InstallTest, HumanSummaryNamesTheFileThatSetsTheMinimum) {
  ToolRun run = RunTool({"binary", "--deps", "--target-version", "12.8", "--gpu", "sm_90",
                         app_ + "/bin/app_kern"},
                        {LdPath()});
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  EXPECT_NE(run.out.find("minimum driver for all "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(": CUDA 13.0, set by " + Real(app_ + "/lib/libkern_sm90.so")),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("needed by " + app_ + "/bin/app_kern as libkern_sm90.so (found by "
                         "RUNPATH)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("without CUDA content"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  minimum driver: CUDA 13.0 (runtime: links libcudart.so.13"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  minimum driver: CUDA 13.0 (dependencies: " +
                         Real(app_ + "/lib/libkern_sm90.so")),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("verdict: incompatible: dependencies: " +
                         Real(app_ + "/lib/libkern_sm90.so") + ": runtime: "),
            std::string::npos)
      << run.out;
}

TEST_F(InstallTest, MissingDependencyIsReported) {
  ASSERT_EQ(unlink((app_ + "/lib/libkern_sm90.so").c_str()), 0);
  ToolRun run = Binary({"--deps", app_ + "/bin/app_kern"}, "12.8", "sm_90", {LdPath()});
  ASSERT_EQ(run.json["set"]["unresolved"].size(), 1u) << Describe(run);
  EXPECT_EQ(run.json["set"]["unresolved"][0]["name"], "libkern_sm90.so");
  EXPECT_EQ(run.json["set"]["unresolved"][0]["needed_by"], app_ + "/bin/app_kern");
  run = RunTool({"binary", "--deps", "--target-version", "12.8", app_ + "/bin/app_kern"}, {});
  EXPECT_NE(run.out.find("not found on this machine: libkern_sm90.so"), std::string::npos)
      << run.out;
}

TEST_F(InstallTest, DirectoryIsScannedRecursivelyOnce) {
  ToolRun run = Binary({app_}, "12.8", "sm_90");
  EXPECT_EQ(run.exit_code, 1) << Describe(run);  // libkern needs 13.0
  ASSERT_EQ(run.json["files"].size(), 2u) << Describe(run);  // the loop adds nothing
  EXPECT_EQ(run.json["files"][0]["origin"], "directory");
  EXPECT_NE(File(run, "/bin/app_kern"), nullptr);
  EXPECT_NE(File(run, "/lib/libkern_sm90.so"), nullptr);
  EXPECT_EQ(run.json["set"]["skipped_files"], 1);  // README.txt
  EXPECT_EQ(run.json["set"]["minimum_driver"]["version"], 13000);
}

// A wheel with the library under pkg/lib and the runtime where its RUNPATH points
// (nvidia/cu13/lib), written by Python's zipfile (deflated), read without unpacking.
TEST_F(InstallTest, WheelMembersAndTheirRunpathInsideTheWheel) {
  const std::string wheel = root_ + "/pkg-1.0-py3-none-linux_x86_64.whl";
  const std::string cmd =
      "python3 -c 'import sys, zipfile\n"
      "with zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_DEFLATED) as z:\n"
      "  z.write(sys.argv[2], \"pkg/lib/libkern_sm90.so\")\n"
      "  z.write(sys.argv[3], \"nvidia/cu13/lib/libcudart.so.13\")\n"
      "  z.writestr(\"pkg/__init__.py\", \"\")\n' " +
      wheel + " " + app_ + "/lib/libkern_sm90.so " + CudaLibDir() + "/libcudart.so.13";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  ToolRun run = Binary({"--deps", wheel}, "12.8", "sm_90");  // no LD_LIBRARY_PATH
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  const Json* kern = File(run, "!/pkg/lib/libkern_sm90.so");
  ASSERT_NE(kern, nullptr) << Describe(run);
  EXPECT_EQ((*kern)["path"], wheel + "!/pkg/lib/libkern_sm90.so");
  EXPECT_EQ((*kern)["origin"], "wheel");
  EXPECT_EQ((*kern)["cuda_error"], 35);
  const Json* cudart = File(run, "!/nvidia/cu13/lib/libcudart.so.13");
  ASSERT_NE(cudart, nullptr) << Describe(run);
  EXPECT_EQ((*cudart)["runtime"]["library"], "libcudart.so.13");
  // libkern's libcudart.so.13 resolved inside the wheel: no runtime from this machine.
  for (const Json& f : run.json["files"]) {
    const std::string p = f["path"].get<std::string>();
    if (p.find("libcudart") != std::string::npos) {
      EXPECT_EQ(p.compare(0, wheel.size() + 2, wheel + "!/"), 0) << p;
    }
  }
  EXPECT_TRUE(run.json["set"]["unresolved"].empty()) << run.json["set"].dump();
  EXPECT_EQ(run.json["set"]["skipped_files"], 1);  // pkg/__init__.py
  EXPECT_EQ(run.json["set"]["minimum_driver"]["version"], 13000);

  // A truncated wheel: a clear error, exit 2.
  const std::string bad = root_ + "/bad.whl";
  ASSERT_EQ(truncate(wheel.c_str(), 200), 0);
  ASSERT_EQ(rename(wheel.c_str(), bad.c_str()), 0);
  run = Binary({bad}, "12.8", "sm_90");
  EXPECT_EQ(run.exit_code, 2) << Describe(run);
  ASSERT_EQ(run.json["files"].size(), 1u);
  EXPECT_NE(run.json["files"][0]["error"].get<std::string>().find(bad + ": "),
            std::string::npos);
  EXPECT_NE(run.err.find(bad), std::string::npos) << run.err;
}

// Zip bombs (tools/zip/testdata/make_bombs.py's, full size, built here): each wheel is answered
// with a typed error (error_kind, zip_error; exit 2) at once, the process stays within 64 MiB of
// its footprint on the program alone (before the bounds: 2 GiB of zeros took 2.1 GB and
// seconds), and everything else in the same command is still judged: another file, and the good
// member of a wheel that also holds a bomb.
TEST_F(InstallTest, ZipBombsAreClearErrorsAndLoseNothingElse) {
  namespace bombs = ::cudyn::zip::testing;
  using bombs::kGiB;
  using bombs::kMiB;
  auto write = [&](const std::string& name, const bombs::Bytes& bytes) {
    const std::string path = root_ + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
    return path;
  };
  // Declares 4 bytes, holds 2 GiB of zeros: not ELF from its first bytes, nothing else to judge.
  bombs::Member lying = bombs::ZerosMember("lib/libzeros.so", {}, 2 * kGiB);
  lying.uncompressed_size = 4;
  bombs::ZipWriter lying_zip;
  lying_zip.AddEntry(lying);
  // A bomb beside a real library in one wheel.
  bombs::ZipWriter mixed;
  mixed.AddEntry(bombs::ZerosMember("lib/libbomb.so", bombs::ElfMagic(), kGiB));
  const std::string kern = ::cudyn::check::testing::ReadFile(app_ + "/lib/libkern_sm90.so");
  mixed.AddEntry(
      bombs::DeflatedMember("lib/libkern_sm90.so", bombs::Bytes(kern.begin(), kern.end())));
  struct Case {
    std::string wheel;
    size_t errors;           // files[] entries of the wheel with verdict "error"
    std::string error_kind;  // theirs
    Json zip_error;          // theirs (null: not the zip reader's)
  };
  const Case cases[] = {
      {write("zeros.whl", bombs::ZerosBomb(2 * kGiB)), 1, "archive", "compression_ratio"},
      {write("elf_zeros.whl", bombs::ElfZerosBomb(kGiB)), 1, "archive", "compression_ratio"},
      {write("many.whl", bombs::ManyZerosBomb(64, 64 * kMiB)), 64, "archive",
       "compression_ratio"},
      {write("overlap.whl", bombs::OverlapBomb(64, 64 * kMiB)), 1, "archive",
       "overlapping_entries"},
      {write("overlap_quoted.whl", bombs::QuotedOverlapBomb(64 * kMiB)), 1, "archive",
       "overlapping_entries"},
      {write("lying.whl", lying_zip.Finish()), 1, "nothing_to_judge", Json()},
      {write("mixed.whl", mixed.Finish()), 1, "archive", "compression_ratio"},
  };
  const std::string program = app_ + "/bin/app_kern";
  // The tool's own footprint (larger under the sanitizers), judging the program alone.
  const ToolRun alone = Binary({program}, "13.0", "sm_90");
  ASSERT_EQ(alone.exit_code, 0) << Describe(alone);
  ASSERT_GT(alone.max_rss_kib, 0);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.wheel);
    ToolRun run = Binary({c.wheel, program}, "13.0", "sm_90");
    EXPECT_EQ(run.exit_code, 2) << Describe(run);
    EXPECT_EQ(run.json["exit_code"], 2);
    EXPECT_LT(run.max_rss_kib, alone.max_rss_kib + 64 * 1024) << "KiB";
    size_t errors = 0;
    for (const Json& f : run.json["files"]) {
      const std::string path = f["path"].get<std::string>();
      if (path.compare(0, c.wheel.size(), c.wheel) != 0) continue;
      if (f["verdict"] != "error") continue;
      ++errors;
      EXPECT_EQ(f["exit_code"], 2);
      EXPECT_EQ(f["error_kind"], c.error_kind) << f.dump();
      EXPECT_EQ(f["zip_error"], c.zip_error) << f.dump();
      EXPECT_NE(run.err.find(path + ": "), std::string::npos) << run.err;
    }
    EXPECT_EQ(errors, c.errors) << Describe(run);
    const Json* judged = File(run, "/bin/app_kern");
    ASSERT_NE(judged, nullptr) << Describe(run);
    EXPECT_EQ((*judged)["verdict"], "compatible");
    EXPECT_EQ((*judged)["error_kind"], Json());
  }
  ToolRun run = Binary({root_ + "/mixed.whl"}, "13.0", "sm_90");
  const Json* member = File(run, "mixed.whl!/lib/libkern_sm90.so");
  ASSERT_NE(member, nullptr) << Describe(run);
  EXPECT_EQ((*member)["verdict"], "compatible") << member->dump();
}

TEST(DepsOption, TakesNoValueAndOnlyAppliesToBinary) {
  ToolRun run = RunTool({"binary", "--deps=yes", "x"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("option --deps takes no value"), std::string::npos) << run.err;
  run = RunTool({"report", "--deps"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--deps does not apply to 'report'"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace check
}  // namespace cudyn
