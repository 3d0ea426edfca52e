// The pieces of cudyn-check in-process: the JSON text helpers, argument parsing, ld.so.conf
// parsing, version texts, and the ELF analysis of the test programs.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/driver_entries.h"
#include "tests/util/runfiles.h"
#include "tools/check.h"
#include "tools/cli_args.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

// JsonText/ParseJson around nlohmann::ordered_json: the --json layout (insertion order, two-space
// indent, trailing newline), one-line output for the child-process pipe, no exceptions.
TEST(Json, TextKeepsInsertionOrderAndLayout) {
  Json j = Json::object();
  j["b"] = 1;
  j["a"] = "x\"y";
  j["n"] = Json();
  j["list"] = Json::array();
  j["list"].push_back(1);
  EXPECT_EQ(JsonText(j),
            "{\n  \"b\": 1,\n  \"a\": \"x\\\"y\",\n  \"n\": null,\n  \"list\": [\n    1\n  ]\n}\n");
  EXPECT_EQ(JsonText(j, false), "{\"b\":1,\"a\":\"x\\\"y\",\"n\":null,\"list\":[1]}");
  Json back;
  std::string error;
  ASSERT_TRUE(ParseJson(JsonText(j), &back, &error)) << error;
  EXPECT_EQ(back.begin().key(), "b");
  EXPECT_EQ(back, j);
}

TEST(Json, InvalidUtf8IsReplacedAndOutputStaysParsable) {
  Json j(std::string("a\xff\xfe") + "b");
  Json back;
  std::string error;
  ASSERT_TRUE(ParseJson(JsonText(j, false), &back, &error)) << error;
  EXPECT_EQ(back.get<std::string>(), std::string("a\xef\xbf\xbd\xef\xbf\xbd") + "b");
}

TEST(Json, ParseJsonRejectsMalformedDocumentsWithoutThrowing) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"unterminated", "01", "tru", "1 2"}) {
    Json out;
    std::string error;
    EXPECT_FALSE(ParseJson(bad, &out, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(Args, SubcommandOptionsAndPositionals) {
  Args a;
  EXPECT_EQ(ParseArgs({}, &a), "");
  EXPECT_EQ(a.command, "report");
  EXPECT_FALSE(a.command_given);

  EXPECT_EQ(ParseArgs({"--json", "--driver", "/x/libcuda.so.1", "apis", "--status=missing"}, &a),
            "");
  EXPECT_EQ(a.command, "apis");
  EXPECT_TRUE(a.json);
  EXPECT_EQ(a.get("--driver"), "/x/libcuda.so.1");
  EXPECT_EQ(a.get("--status"), "missing");

  EXPECT_EQ(ParseArgs({"binary", "a", "--target-version", "11.4", "--", "--weird-name", "b"}, &a),
            "");
  EXPECT_EQ(a.positional, (std::vector<std::string>{"a", "--weird-name", "b"}));
  EXPECT_EQ(a.get("--target-version"), "11.4");

  EXPECT_NE(ParseArgs({"bogus"}, &a), "");
  EXPECT_NE(ParseArgs({"bogus", "--help"}, &a), "");  // no such subcommand to describe
  EXPECT_NE(ParseArgs({"report", "--nope"}, &a), "");
  EXPECT_EQ(ParseArgs({"report", "--nope", "--help"}, &a), "");  // help wins
  EXPECT_TRUE(a.help);
  EXPECT_NE(ParseArgs({"apis", "--status"}, &a), "");          // missing value
  EXPECT_NE(ParseArgs({"drivers", "--base", "cuInit"}, &a), "");  // not a drivers option
  EXPECT_NE(ParseArgs({"report", "file"}, &a), "");             // no positionals for report
  EXPECT_NE(ParseArgs({"--json=yes"}, &a), "");
}

TEST(Versions, Texts) {
  EXPECT_EQ(VersionText(12020), "12.2 (12020)");
  EXPECT_EQ(VersionText(10010), "10.1 (10010)");
  EXPECT_EQ(VersionText(8000), "8.0 (8000)");
  EXPECT_EQ(ShortVersion(11040), "11.4");
  EXPECT_EQ(ParseVersionOption("11.4"), 11040);
  EXPECT_EQ(ParseVersionOption("12020"), 12020);
  EXPECT_FALSE(ParseVersionOption("banana"));
  EXPECT_EQ(CompareDottedVersions("580.159.04", "535.261.03"), 1);
  EXPECT_EQ(CompareDottedVersions("535.261.03", "535.261.03"), 0);
  EXPECT_EQ(CompareDottedVersions("535.54.03", "535.261.03"), -1);
  EXPECT_EQ(ResultNameText(100), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(ResultNameText(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_EQ(ResultNameText(123456), "CUresult 123456");
  EXPECT_TRUE(IsDriverCompatibilityError(803));
  EXPECT_TRUE(IsDriverCompatibilityError(804));
  EXPECT_TRUE(IsDriverCompatibilityError(35));
  EXPECT_TRUE(IsDriverCompatibilityError(34));
  EXPECT_FALSE(IsDriverCompatibilityError(100));
  EXPECT_NE(CuInitRemedy(804).find("compat"), std::string::npos);
}

TEST(Versions, LibcudaFileVersion) {
  std::string dir = testing::MakeTempDir("names");
  WriteFile(dir + "/libcuda.so.535.261.03", "x");
  ASSERT_EQ(symlink("libcuda.so.535.261.03", (dir + "/libcuda.so.1").c_str()), 0);
  WriteFile(dir + "/libcuda.so.1.1", "x");
  EXPECT_EQ(LibcudaFileVersion(dir + "/libcuda.so.1"), "535.261.03");
  EXPECT_EQ(LibcudaFileVersion(dir + "/libcuda.so.1.1"), "");  // WSL's name carries no version
}

TEST(SystemDirs, LdSoConfIncludesGlobsCyclesAndRoot) {
  std::string root = testing::MakeTempDir("conf");
  ASSERT_EQ(system(("mkdir -p " + root + "/etc/ld.so.conf.d " + root + "/etc/more").c_str()), 0);
  WriteFile(root + "/etc/ld.so.conf",
            "# comment\ninclude /etc/ld.so.conf.d/*.conf\n/opt/first  # trailing comment\n"
            "include more/*.conf\n");
  WriteFile(root + "/etc/ld.so.conf.d/a.conf", "/usr/lib/a:/usr/lib/b,/usr/lib/c\n\n");
  WriteFile(root + "/etc/ld.so.conf.d/b.conf", "hwcap 0 nosegneg\n/usr/lib/d=libc6\n"
                                               "include /etc/ld.so.conf\n");  // a cycle
  WriteFile(root + "/etc/ld.so.conf.d/ignored.txt", "/not/a/conf\n");
  WriteFile(root + "/etc/more/x.conf", "/opt/relative-include/\n");
  std::vector<SearchDir> dirs = LdSoConfDirs(root);
  std::vector<std::string> paths;
  for (const SearchDir& d : dirs) paths.push_back(d.path);
  EXPECT_EQ(paths, (std::vector<std::string>{root + "/usr/lib/a", root + "/usr/lib/b",
                                             root + "/usr/lib/c", root + "/usr/lib/d",
                                             root + "/opt/first",
                                             root + "/opt/relative-include"}));
  EXPECT_EQ(dirs[0].sources, std::vector<std::string>{"ld.so.conf (/etc/ld.so.conf.d/a.conf)"});
  EXPECT_TRUE(LdSoConfDirs(root + "/nowhere").empty());
}

// The simulated default search without a readable ROOT/etc/ld.so.cache: ld.so.conf's directories,
// labelled with why; a malformed cache is an error in the note, never a crash. (With a cache the
// real ldconfig writes: tools/cudyn_check_test.cc, CudynCheckDriversLdCache.)
TEST(SystemDirs, SimulatedSearchWithoutAReadableLdCache) {
  std::string root = testing::MakeTempDir("nocache");
  ASSERT_EQ(system(("mkdir -p " + root + "/etc " + root + "/opt/drv").c_str()), 0);
  WriteFile(root + "/etc/ld.so.conf", "/opt/drv\n");
  WriteFile(root + "/opt/drv/libcuda.so.1", "x");  // only stat()ed here
  const std::string candidate = root + "/opt/drv/libcuda.so.1";

  RootLdCache none = ReadRootLdCache(root);
  EXPECT_EQ(none.path, root + "/etc/ld.so.cache");
  EXPECT_FALSE(none.present);
  EXPECT_FALSE(none.read());
  std::string note;
  auto order = SimulatedSearchOrder(root, &note);
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(order[0].first, candidate);
  EXPECT_EQ(order[0].second, "default search (ld.so.conf (/etc/ld.so.conf); no ld.so.cache in the root)");
  EXPECT_EQ(note.find("no ld.so.cache in " + root + ":"), 0u) << note;
  EXPECT_EQ(LdCacheNote(none, ""), "");  // the host without a cache: nothing simulated

  for (const std::string& data : {std::string("glibc-ld.so.cache1.1"), std::string(100, '\xff'),
                                  std::string("ld.so-1.7.0\0\xff\xff\xff\xff", 16),
                                  std::string()}) {
    WriteFile(root + "/etc/ld.so.cache", data);
    RootLdCache bad = ReadRootLdCache(root);
    EXPECT_TRUE(bad.present);
    EXPECT_FALSE(bad.read());
    EXPECT_FALSE(bad.error.empty());
    EXPECT_TRUE(bad.drivers.empty());
    order = SimulatedSearchOrder(root, &note);
    ASSERT_EQ(order.size(), 1u);
    EXPECT_EQ(order[0].first, candidate);
    EXPECT_EQ(order[0].second, "default search (ld.so.conf (/etc/ld.so.conf); ld.so.cache unreadable)");
    EXPECT_EQ(note.find(root + "/etc/ld.so.cache is unreadable (" + bad.error + "): the default "
                        "search is modelled from " + root + "/etc/ld.so.conf instead"),
              0u)
        << note;
    // The scan names the cache's trouble too, and still scans ld.so.conf's directory.
    std::string scan_note;
    std::vector<SearchDir> dirs = DriverScanDirs(root, &scan_note);
    EXPECT_EQ(scan_note, note);
    ASSERT_FALSE(dirs.empty());
    bool conf_dir = false;
    for (const SearchDir& d : dirs) conf_dir = conf_dir || d.path == root + "/opt/drv";
    EXPECT_TRUE(conf_dir);
  }
}

// The host's own cache (no root) reads; the note is empty.
TEST(SystemDirs, HostLdCacheReads) {
  RootLdCache host = ReadRootLdCache("");
  EXPECT_EQ(host.path, "/etc/ld.so.cache");
  EXPECT_TRUE(host.read()) << host.error;
  EXPECT_EQ(LdCacheNote(host, ""), "");
}

TEST(SystemDirs, KernelModuleVersion) {
  std::string root = testing::MakeTempDir("km");
  EXPECT_FALSE(ReadKernelModule(root).present);
  ASSERT_EQ(system(("mkdir -p " + root + "/proc/driver/nvidia").c_str()), 0);
  WriteFile(root + "/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build "
            "(dvs-builder@U16-I3-B03-4-3)  Thu Oct 16 2025\nGCC version:  gcc version 12\n");
  KernelModule km = ReadKernelModule(root);
  EXPECT_TRUE(km.present);
  EXPECT_EQ(km.version, "580.159.04");
}

TEST(Binary, AnalyzesTheTestPrograms) {
  BinaryAnalysis cuda13 = AnalyzeBinary(testing::Runfile("tools/mem_advise_cuda13"));
  ASSERT_TRUE(cuda13.error.empty()) << cuda13.error;
  // It imports cuMemAdvise_v2 (CUDA 13.0 headers): it needs that entry's ABI version (the table's).
  const int advise_v2 = FindEntry("cuMemAdvise_v2");
  ASSERT_GE(advise_v2, 0);
  const int needs = kEntries[advise_v2].abi_version;
  EXPECT_EQ(cuda13.needs_version(), needs);
  EXPECT_EQ(cuda13.libcuda_needed, std::vector<std::string>{"libcuda.so.1"});
  EXPECT_EQ(Judge(cuda13, needs - 10).verdict, Verdict::kIncompatible);
  EXPECT_EQ(Judge(cuda13, needs).verdict, Verdict::kCompatible);
  EXPECT_EQ(Judge(cuda13, 0).verdict, Verdict::kUndecided);

  BinaryAnalysis cuda118 = AnalyzeBinary(testing::Runfile("tools/mem_advise_cuda11_8"));
  const int advise = FindEntry("cuMemAdvise");  // what the 11.8 headers declare
  ASSERT_GE(advise, 0);
  EXPECT_EQ(cuda118.needs_version(), kEntries[advise].abi_version);
  EXPECT_EQ(Judge(cuda118, 11040).verdict, Verdict::kCompatible);

  BinaryAnalysis shared = AnalyzeBinary(testing::Runfile("tools/mem_advise_cudyn_shared"));
  EXPECT_TRUE(shared.links_cudyn());
  EXPECT_EQ(Judge(shared, 10010).verdict, Verdict::kPortable);

  BinaryAnalysis stat = AnalyzeBinary(testing::Runfile("tools/mem_advise_cudyn_static"));
  EXPECT_TRUE(stat.static_cudyn_marker);
  EXPECT_TRUE(stat.imports.empty());
  EXPECT_EQ(Judge(stat, 10010).verdict, Verdict::kPortable);

  BinaryAnalysis missing = AnalyzeBinary("/nonexistent/file");
  EXPECT_EQ(Judge(missing, 12020).verdict, Verdict::kError);
  EXPECT_EQ(missing.error.rfind("/nonexistent/file: ", 0), 0u) << missing.error;
}

TEST(Binary, UnknownAndWeakImports) {
  BinaryAnalysis a;
  a.path = "x";
  ImportedApi unknown;
  unknown.symbol = "cuFutureThing_v9";
  a.imports.push_back(unknown);
  BinaryVerdict v = Judge(a, 99999);
  EXPECT_EQ(v.verdict, Verdict::kIncompatible);  // no known driver provides it
  EXPECT_NE(v.reason.find("cuFutureThing_v9"), std::string::npos);
  a.imports[0].weak = true;  // the binary loads without it
  EXPECT_EQ(Judge(a, 11040).verdict, Verdict::kCompatible);
}

TEST(Args, RepeatedGpuOptionKeepsEveryValue) {
  Args args;
  ASSERT_EQ(ParseArgs({"binary", "f", "--gpu", "sm_80", "--gpu=sm_90,9.0"}, &args), "");
  EXPECT_EQ(args.get_all("--gpu"), (std::vector<std::string>{"sm_80", "sm_90,9.0"}));
  EXPECT_EQ(args.get("--gpu"), "sm_90,9.0");
  EXPECT_NE(ParseArgs({"report", "--gpu", "sm_80"}, &args), "");  // binary only
}

TEST(Binary, ParseGpuList) {
  std::vector<layers::GpuArch> gpus;
  bool none = true;
  std::string error;
  ASSERT_TRUE(ParseGpuList("sm_80,90,9.0,sm_100a", &gpus, &none, &error)) << error;
  EXPECT_FALSE(none);
  ASSERT_EQ(gpus.size(), 3u);  // 90 and 9.0 are the same GPU
  EXPECT_EQ(gpus[0].major, 8);
  EXPECT_EQ(gpus[0].minor, 0);
  EXPECT_EQ(gpus[1].major, 9);
  EXPECT_EQ(gpus[2].major, 10);
  EXPECT_EQ(gpus[2].variant, '\0');  // a device has no variant
  gpus.clear();
  ASSERT_TRUE(ParseGpuList("none", &gpus, &none, &error));
  EXPECT_TRUE(none);
  EXPECT_TRUE(gpus.empty());
  for (const char* bad : {"", "x", "sm_", "sm_8", "sm_80,", "compute_80", "8.10", "sm 80"}) {
    gpus.clear();
    error.clear();
    EXPECT_FALSE(ParseGpuList(bad, &gpus, &none, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

// JudgeFile orders the layers: the driver API first, then the runtime, then the kernels.
TEST(Binary, JudgeFileOrdersTheLayers) {
  BinaryAnalysis a;
  a.path = "x";
  // A driver entry of an ABI above 11040 and no newer than 12080 (from the table: one the 535
  // driver, CUDA 12.2, is the first to export).
  ImportedApi advise;
  advise.entry = ::cudyn::testing::EntryNewWithDriver(535);
  ASSERT_GE(advise.entry, 0);
  advise.symbol = std::string(EntrySymbol(advise.entry));
  advise.abi_version = kEntries[advise.entry].abi_version;
  ASSERT_GT(advise.abi_version, 11040);
  ASSERT_LE(advise.abi_version, 12080);
  a.imports.push_back(advise);
  a.runtime.linkage = layers::RuntimeLinkage::kDynamic;
  a.runtime.library = "libcudart.so.13";
  a.runtime.runtime_version = 13000;
  a.runtime.min_driver = 13000;
  BinaryVerdict old = JudgeFile(a, BinaryTarget{11040, {}});
  EXPECT_EQ(old.verdict, Verdict::kIncompatible);
  EXPECT_EQ(old.deciding_layer, layers::Layer::kDriverApi);
  EXPECT_EQ(old.cuda_error, 0);
  BinaryVerdict mid = JudgeFile(a, BinaryTarget{12080, {}});
  EXPECT_EQ(mid.verdict, Verdict::kIncompatible);
  EXPECT_EQ(mid.deciding_layer, layers::Layer::kRuntime);
  EXPECT_EQ(mid.cuda_error, 35);
  ASSERT_EQ(mid.layers.size(), 3u);
  EXPECT_EQ(mid.layers[0].status, layers::Status::kOk);
  BinaryVerdict now = JudgeFile(a, BinaryTarget{13000, {}});
  EXPECT_EQ(now.verdict, Verdict::kCompatible);
  EXPECT_EQ(now.deciding_layer, layers::Layer::kNone);
  BinaryVerdict none = JudgeFile(a, BinaryTarget{0, {}});
  EXPECT_EQ(none.verdict, Verdict::kUndecided);
}

}  // namespace
}  // namespace check
}  // namespace cudyn
