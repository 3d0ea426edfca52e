// `cudyn-check binary` end to end on its layers: each test runs the real CLI as its own process on
// programs the real CUDA 13.0 nvcc built (//tools/fatbin:nvcc_programs), the toolkit's
// libcudart.so.13 and small stand-ins, and parses the --json answer back. The expected verdicts
// follow from the nvcc options and the rules (tools/layers/verdict.h), not from the tool's output:
//   default        static 13.0 runtime, sm_75 SASS + compute_75 PTX (ISA 9.0)
//   cudart_shared  DT_NEEDED libcudart.so.13, same device code
//   cudart_none    host-only C++, no runtime, no device code
//   ptx_compute80  static runtime, compute_80 PTX (ISA 9.0) only
//   sass_sm90a     static runtime, sm_90a SASS only
//   multi          static runtime, sm_75 + sm_90 + compute_90 + sm_100f
//   lib_ptx80      shared library, no runtime, compute_80 PTX (ISA 9.0) only
//   lib_sm90       shared library, no runtime, sm_90 SASS + compute_90 PTX (ISA 9.0)
//   lib_sm90a      shared library, no runtime, sm_90a SASS only
//   lib_selfloaded_sm75  host-only shared library carrying a bare sm_75 fatbin in .nv_fatbin that
//                  no runtime registers (no .nvFatBinSegment): it would load it itself
// PTX ISA 9.0 is CUDA 13.0's (version_tables/inputs/ptx_isa.tsv); a runtime of family 13 needs a
// 13.0 driver. CUDA errors: 35 insufficient driver, 100 no device (the target driver predates the
// GPU), 209 no kernel image, 222 unsupported PTX.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loader/kernel_rule.h"
#include "nlohmann/json.hpp"
#include "tests/util/runfiles.h"
#include "tools/testing/run_tool.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {
namespace {

using testing::Describe;
using testing::Json;
using testing::ReadFile;
using testing::RunTool;
using testing::Tool;
using testing::ToolRun;

std::string Nvcc(const std::string& name) {
  return ::cudyn::testing::Runfile("tools/fatbin/nvcc/" + name);
}
std::string Program(const std::string& name) {
  return ::cudyn::testing::Runfile("tools/" + name);
}
std::string CudaLib(const std::string& name) {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/" + name;
}

// `binary FILE --target-version V [--gpu G] --json`, parsed; fails the test when no JSON.
ToolRun Check(const std::string& file, const std::string& version, const std::string& gpu) {
  std::vector<std::string> args = {"binary", file, "--target-version", version, "--json"};
  if (!gpu.empty()) {
    args.push_back("--gpu");
    args.push_back(gpu);
  }
  ToolRun run = RunTool(args);
  EXPECT_TRUE(run.json_ok) << Describe(run);
  return run;
}

const Json& OnlyFile(const ToolRun& run) { return run.json["files"][0]; }

// The verdict of a file: exit code, deciding layer ("" = none, runs) and CUDA error.
void ExpectVerdict(const std::string& name, const std::string& file, const std::string& version,
                   const std::string& gpu, int exit_code, const std::string& layer,
                   int cuda_error) {
  SCOPED_TRACE(name + " @" + version + " --gpu " + gpu);
  ASSERT_FALSE(file.empty()) << name << " is missing";
  ToolRun run = Check(file, version, gpu);
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(run.exit_code, exit_code) << Describe(run);
  EXPECT_EQ(run.json["exit_code"].get<int>(), exit_code);
  const Json& f = OnlyFile(run);
  EXPECT_EQ(f["verdict"].get<std::string>(), exit_code == 1 ? "incompatible" : "compatible")
      << Describe(run);
  if (layer.empty()) {
    EXPECT_TRUE(f["deciding_layer"].is_null()) << Describe(run);
  } else {
    ASSERT_TRUE(f["deciding_layer"].is_string()) << Describe(run);
    EXPECT_EQ(f["deciding_layer"].get<std::string>(), layer) << Describe(run);
  }
  EXPECT_EQ(f["cuda_error"].get<int>(), cuda_error) << Describe(run);
}

// The layer entry `layer` (for `gpu`, when given) of a file's "layers"; null when absent.
Json LayerOf(const Json& file, const std::string& layer, const std::string& gpu = "") {
  for (const Json& l : file["layers"]) {
    if (l["layer"].get<std::string>() != layer) continue;
    if (!gpu.empty() && (l["gpu"].is_null() || l["gpu"].get<std::string>() != gpu)) continue;
    return l;
  }
  return Json();
}

TEST(BinaryLayers, InputsArePresent) {
  ASSERT_FALSE(Tool().empty());
  for (const char* name : {"default", "cudart_shared", "cudart_none", "ptx_compute80",
                           "sass_sm90a", "multi", "lib_ptx80", "lib_sm90", "lib_sm90a"}) {
    EXPECT_FALSE(Nvcc(name).empty()) << name;
  }
}

// A default nvcc build embeds the 13.0 runtime: the runtime layer decides on a 12.x driver.
TEST(BinaryLayers, StaticRuntimeNeeds13) {
  const std::string p = Nvcc("default");
  ExpectVerdict("default", p, "12.8", "none", 1, "runtime", 35);
  ExpectVerdict("default", p, "12.8", "sm_75", 1, "runtime", 35);
  ExpectVerdict("default", p, "13.0", "sm_75", 0, "", 0);   // sm_75 SASS
  ExpectVerdict("default", p, "13.0", "sm_90", 0, "", 0);   // compute_75 PTX JIT for sm_90
  ExpectVerdict("default", p, "13.0", "sm_70", 1, "kernels", 209);  // nothing for 7.0
  ToolRun run = Check(p, "12.8", "none");
  const Json& f = OnlyFile(run);
  EXPECT_EQ(f["runtime"]["linkage"].get<std::string>(), "static");
  EXPECT_EQ(f["runtime"]["version"].get<int>(), 13000);
  EXPECT_EQ(f["runtime"]["min_driver"].get<int>(), 13000);
  EXPECT_EQ(f["runtime"]["family"].get<int>(), 13);
  EXPECT_EQ(f["kernels"]["sass"], Json::array({"sm_75"}));
  EXPECT_EQ(f["kernels"]["ptx"], Json::array({"compute_75"}));
  EXPECT_EQ(f["kernels"]["ptx_isa_min"].get<std::string>(), "9.0");
  EXPECT_EQ(f["kernels"]["ptx_isa_max"].get<std::string>(), "9.0");
  // The layers in decision order: driver API (imports nothing), runtime, kernels.
  ASSERT_EQ(f["layers"].size(), 3u) << f["layers"].dump();
  EXPECT_EQ(f["layers"][0]["layer"].get<std::string>(), "driver_api");
  EXPECT_EQ(f["layers"][0]["status"].get<std::string>(), "not_applicable");
  EXPECT_EQ(f["layers"][1]["layer"].get<std::string>(), "runtime");
  EXPECT_EQ(f["layers"][1]["status"].get<std::string>(), "fails");
  EXPECT_EQ(f["layers"][1]["cuda_error"].get<int>(), 35);
  EXPECT_EQ(f["layers"][1]["min_driver"].get<int>(), 13000);
  EXPECT_EQ(f["layers"][2]["layer"].get<std::string>(), "kernels");
  EXPECT_EQ(f["layers"][2]["status"].get<std::string>(), "unknown");  // no GPU, has SASS
  // The human answer names each layer's finding and the error.
  ToolRun human = RunTool({"binary", p, "--target-version", "12.8", "--gpu", "none"});
  EXPECT_EQ(human.exit_code, 1);
  EXPECT_NE(human.out.find("runtime: embeds the CUDA runtime 13.0 (static) -> needs a 13.0 driver"),
            std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("kernels: sm_75 SASS, compute_75 PTX (ISA 9.0)"), std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("35 cudaErrorInsufficientDriver"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("deciding layer: runtime"), std::string::npos) << human.out;
}

TEST(BinaryLayers, SharedRuntimeNeeds13) {
  const std::string p = Nvcc("cudart_shared");
  ExpectVerdict("cudart_shared", p, "12.8", "none", 1, "runtime", 35);
  ExpectVerdict("cudart_shared", p, "13.0", "sm_75", 0, "", 0);
  const Json f = OnlyFile(Check(p, "12.8", "none"));
  EXPECT_EQ(f["runtime"]["linkage"].get<std::string>(), "shared");
  EXPECT_FALSE(f["runtime"]["is_runtime"].get<bool>());
  EXPECT_EQ(f["runtime"]["library"].get<std::string>(), "libcudart.so.13");
  EXPECT_EQ(f["runtime"]["min_driver"].get<int>(), 13000);
  // What cudyn can do about it: its runtime drop-in serves libcudart.so.13 with a 12.x runtime.
  const Json rt = LayerOf(f, "runtime");
  ASSERT_TRUE(rt["with_cudyn"].is_string()) << rt.dump();
  EXPECT_NE(rt["with_cudyn"].get<std::string>().find("cudyn run --cudart"), std::string::npos);
  EXPECT_NE(rt["with_cudyn"].get<std::string>().find("libcudart.so.12"), std::string::npos);
  // Only what `cudyn run` does: libraries needing libcudart.so.13 included, other runtimes not.
  EXPECT_NE(rt["with_cudyn"].get<std::string>().find("those of the libraries it loads"),
            std::string::npos);
  EXPECT_NE(rt["with_cudyn"].get<std::string>().find("warns if another runtime is called"),
            std::string::npos);
  EXPECT_TRUE(LayerOf(OnlyFile(Check(p, "13.0", "sm_75")), "runtime")["with_cudyn"].is_null());
  ToolRun human = RunTool({"binary", p, "--target-version", "12.8"});
  EXPECT_NE(human.out.find("with cudyn: `cudyn run --cudart`"), std::string::npos) << human.out;
}

TEST(BinaryLayers, HostOnlyProgramRunsAnywhere) {
  const std::string p = Nvcc("cudart_none");
  ExpectVerdict("cudart_none", p, "10.0", "none", 0, "", 0);
  ExpectVerdict("cudart_none", p, "10.0", "sm_35", 0, "", 0);
  const Json f = OnlyFile(Check(p, "10.0", "none"));
  EXPECT_EQ(f["runtime"]["linkage"].get<std::string>(), "none");
  EXPECT_TRUE(f["runtime"]["version"].is_null());
  EXPECT_EQ(f["kernels"]["entries"].get<int>(), 0);
  EXPECT_EQ(LayerOf(f, "kernels")["status"].get<std::string>(), "not_applicable");
}

// The runtime layer comes before the kernels: the PTX-only program fails with 35 on 12.8 even
// though its kernels would fail too (with 222).
TEST(BinaryLayers, PtxOnlyProgram) {
  const std::string p = Nvcc("ptx_compute80");
  ExpectVerdict("ptx_compute80", p, "12.8", "sm_80", 1, "runtime", 35);
  const Json f = OnlyFile(Check(p, "12.8", "sm_80"));
  EXPECT_EQ(LayerOf(f, "kernels", "sm_80")["status"].get<std::string>(), "fails");
  EXPECT_EQ(LayerOf(f, "kernels", "sm_80")["cuda_error"].get<int>(), 222);
  ExpectVerdict("ptx_compute80", p, "13.0", "sm_80", 0, "", 0);
  ExpectVerdict("ptx_compute80", p, "13.0", "sm_90", 0, "", 0);   // compute_80 JITs for 9.0
  ExpectVerdict("ptx_compute80", p, "13.0", "sm_75", 1, "kernels", 209);
}

TEST(BinaryLayers, ArchSpecificSass) {
  const std::string p = Nvcc("sass_sm90a");
  ExpectVerdict("sass_sm90a", p, "13.0", "sm_90", 0, "", 0);
  ExpectVerdict("sass_sm90a", p, "13.0", "sm_100", 1, "kernels", 209);  // `a`: exactly 9.0
  ExpectVerdict("sass_sm90a", p, "13.0", "sm_80", 1, "kernels", 209);
  const std::string lib = Nvcc("lib_sm90a");
  ExpectVerdict("lib_sm90a", lib, "12.8", "sm_90", 0, "", 0);  // no runtime: only kernels
  ExpectVerdict("lib_sm90a", lib, "12.8", "sm_100", 1, "kernels", 209);
}

TEST(BinaryLayers, MultiGencode) {
  const std::string p = Nvcc("multi");
  ExpectVerdict("multi", p, "13.0", "sm_75", 0, "", 0);
  ExpectVerdict("multi", p, "13.0", "sm_90", 0, "", 0);
  ExpectVerdict("multi", p, "13.0", "sm_100", 0, "", 0);  // sm_100f
  ExpectVerdict("multi", p, "13.0", "sm_103", 0, "", 0);  // sm_100f: family 10, 0 <= 3
  ExpectVerdict("multi", p, "13.0", "sm_120", 0, "", 0);  // compute_90 PTX JIT
  ExpectVerdict("multi", p, "13.0", "sm_80", 1, "kernels", 209);
  const Json f = OnlyFile(Check(p, "13.0", "sm_90"));
  EXPECT_EQ(f["kernels"]["sass"], Json::array({"sm_75", "sm_90", "sm_100f"}));
  EXPECT_EQ(f["kernels"]["ptx"], Json::array({"compute_90"}));
}

// Libraries without a runtime: the kernels alone decide, including on 12.x drivers.
TEST(BinaryLayers, KernelVerdictsWithoutRuntime) {
  const std::string ptx = Nvcc("lib_ptx80");
  // No GPU: PTX-only, every ISA too new for 12.8 -> fails for every GPU.
  ExpectVerdict("lib_ptx80", ptx, "12.8", "none", 1, "kernels", 222);
  ExpectVerdict("lib_ptx80", ptx, "12.8", "sm_80", 1, "kernels", 222);
  ExpectVerdict("lib_ptx80", ptx, "13.0", "none", 0, "", 0);
  ExpectVerdict("lib_ptx80", ptx, "13.0", "sm_80", 0, "", 0);
  ExpectVerdict("lib_ptx80", ptx, "13.0", "sm_75", 1, "kernels", 209);
  const Json f = OnlyFile(Check(ptx, "13.0", "none"));
  EXPECT_EQ(f["runtime"]["linkage"].get<std::string>(), "none");
  EXPECT_EQ(LayerOf(f, "kernels")["status"].get<std::string>(), "unknown");

  const std::string sm90 = Nvcc("lib_sm90");
  ExpectVerdict("lib_sm90", sm90, "12.8", "none", 0, "", 0);  // has SASS: depends on the GPU
  ExpectVerdict("lib_sm90", sm90, "12.8", "sm_90", 0, "", 0);
  ExpectVerdict("lib_sm90", sm90, "12.8", "sm_100", 1, "kernels", 222);  // PTX 9.0 on 12.8
  ExpectVerdict("lib_sm90", sm90, "13.0", "sm_100", 0, "", 0);
  ExpectVerdict("lib_sm90", sm90, "13.0", "sm_80", 1, "kernels", 209);
  ToolRun human = RunTool({"binary", sm90, "--target-version", "12.8", "--gpu", "sm_100"});
  EXPECT_EQ(human.exit_code, 1);
  EXPECT_NE(human.out.find("kernels: sm_90 SASS, compute_90 PTX (ISA 9.0)"), std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("222 cudaErrorUnsupportedPtxVersion"), std::string::npos)
      << human.out;
}

// Device code the file loads itself (CUDA 13.0's libcufftw.so.12 has only sm_75 SASS, loaded that
// way, and works on an H100): the kernel layer is "unknown" and never fails the file.
TEST(BinaryLayers, SelfLoadedDeviceCodeIsNotJudged) {
  const std::string lib = Nvcc("lib_selfloaded_sm75");
  ExpectVerdict("lib_selfloaded_sm75", lib, "13.0", "sm_90", 0, "", 0);
  ExpectVerdict("lib_selfloaded_sm75", lib, "12.8", "sm_75", 0, "", 0);
  const Json f = OnlyFile(Check(lib, "13.0", "sm_90"));
  EXPECT_TRUE(f["kernels"]["self_loaded"].get<bool>()) << f.dump();
  EXPECT_EQ(f["kernels"]["sass"], Json::array({"sm_75"}));
  EXPECT_EQ(LayerOf(f, "kernels")["status"].get<std::string>(), "unknown");
  // The registered kind of the same situation still fails: lib_sm90a on sm_100 (above) and here.
  const Json g = OnlyFile(Check(Nvcc("lib_sm90a"), "13.0", "sm_80"));
  EXPECT_FALSE(g["kernels"]["self_loaded"].get<bool>());
  EXPECT_EQ(g["cuda_error"], 209);
}

// cu[A-Z]* names are not all the driver's: libcufile's cuFile* entry points. Without libcuda they
// cannot be driver imports; with libcuda, the other DT_NEEDED library that defines them says so.
// An unknown name that only libcuda could provide stays unknown (no known driver has it).
TEST(BinaryLayers, CuNamedImportsOfOtherLibraries) {
  for (const char* name : {"uses_cufile", "uses_cufile_and_libcuda"}) {
    SCOPED_TRACE(name);
    ToolRun run = Check(Program(name), "12.8", "none");
    EXPECT_EQ(run.exit_code, 0) << Describe(run);
    const Json f = OnlyFile(run);
    EXPECT_EQ(f["other_cu_imports"], Json::array({"cuFileDriverOpen"})) << f.dump();
    EXPECT_TRUE(f["unknown_symbols"].empty()) << f.dump();
  }
  const Json with_driver = OnlyFile(Check(Program("uses_cufile_and_libcuda"), "12.8", "none"));
  ASSERT_EQ(with_driver["imports"].size(), 1u) << with_driver.dump();
  EXPECT_EQ(with_driver["imports"][0]["symbol"], "cuInit");

  ToolRun future = Check(Program("uses_future_api"), "13.0", "none");
  EXPECT_EQ(future.exit_code, 1) << Describe(future);
  EXPECT_EQ(OnlyFile(future)["unknown_symbols"], Json::array({"cuFutureThing_v9"}));
  EXPECT_TRUE(OnlyFile(future)["other_cu_imports"].empty());
}

// Several GPUs (repeated and comma lists): one kernel verdict per GPU; any failure decides.
TEST(BinaryLayers, SeveralGpus) {
  const std::string sm90 = Nvcc("lib_sm90");
  ToolRun run = RunTool({"binary", sm90, "--target-version", "12.8", "--gpu", "sm_90,sm_80",
                         "--gpu", "9.0", "--gpu", "100", "--json"});
  ASSERT_TRUE(run.json_ok) << Describe(run);
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  EXPECT_EQ(run.json["gpus"]["archs"], Json::array({"sm_90", "sm_80", "sm_100"}));
  EXPECT_EQ(run.json["gpus"]["source"].get<std::string>(), "--gpu");
  const Json& f = OnlyFile(run);
  EXPECT_EQ(LayerOf(f, "kernels", "sm_90")["status"].get<std::string>(), "ok");
  EXPECT_EQ(LayerOf(f, "kernels", "sm_80")["cuda_error"].get<int>(), 209);
  EXPECT_EQ(LayerOf(f, "kernels", "sm_100")["cuda_error"].get<int>(), 222);
  EXPECT_EQ(f["deciding_layer"].get<std::string>(), "kernels");
  EXPECT_EQ(f["cuda_error"].get<int>(), 209);  // the first failing GPU in the order given
  ToolRun ok = RunTool({"binary", sm90, "--target-version", "13.0", "--gpu", "sm_90,sm_100"});
  EXPECT_EQ(ok.exit_code, 0) << Describe(ok);
}

// A driver older than the GPU does not offer it (a real one answers cuInit 100, as the loader's
// driver emulation does): the kernels fail on that GPU with 100 whatever the file carries, in
// text and JSON, and the file's minimum driver is the GPU's first. The GPU's first driver comes
// from the table (gpu_arch.tsv through loader/kernel_rule.h), the target is the release before it.
TEST(BinaryLayers, GpuTheTargetDriverDoesNotOffer) {
  const std::string sm90 = Nvcc("lib_sm90");
  const int first = kernel_rule::MinDriverForGpu(kernel_rule::ArchFromNumber(90, '\0'));
  ASSERT_GT(first, 10000);
  const int before = first - 10;  // 11.8 -> 11.7
  auto text = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  const std::string need = "sm_90 needs a CUDA " + text(first) + " driver: a CUDA " +
                           text(before) + " driver offers no such device";
  ExpectVerdict("lib_sm90", sm90, text(before), "sm_90", 1, "kernels", 100);

  ToolRun run = Check(sm90, text(before), "sm_90,sm_80");
  ASSERT_TRUE(run.json_ok);
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  const Json& f = OnlyFile(run);
  const Json hidden = LayerOf(f, "kernels", "sm_90");
  ASSERT_TRUE(hidden.is_object()) << f.dump();
  EXPECT_EQ(hidden["status"], "fails");
  EXPECT_EQ(hidden["cuda_error"], 100);
  EXPECT_EQ(hidden["cuda_error_name"], "cudaErrorNoDevice");
  EXPECT_EQ(hidden["gpu_offered"], false);
  EXPECT_EQ(hidden["gpu_min_driver"], first);
  EXPECT_EQ(hidden["min_driver"], first);  // its sm_90 SASS runs from there
  EXPECT_TRUE(hidden["image"].is_null());
  EXPECT_EQ(hidden["reason"], need);
  // sm_80 is offered (and has no image here: 209); the first failing GPU decides.
  const Json offered = LayerOf(f, "kernels", "sm_80");
  EXPECT_EQ(offered["gpu_offered"], true);
  EXPECT_EQ(offered["cuda_error"], 209);
  EXPECT_EQ(f["cuda_error"], 100);
  EXPECT_EQ(f["cuda_error_name"], "cudaErrorNoDevice");
  EXPECT_EQ(f["reason"], "kernels: " + need + " -> 100 cudaErrorNoDevice");
  EXPECT_TRUE(LayerOf(f, "runtime")["gpu_offered"].is_null());

  // The oldest driver that runs it on sm_90 is the GPU's first (its SASS runs there).
  const Json m = OnlyFile(Check(sm90, text(first), "sm_90"));
  EXPECT_EQ(m["verdict"], "compatible") << m.dump();
  EXPECT_EQ(LayerOf(m, "kernels", "sm_90")["gpu_offered"], true);
  EXPECT_EQ(LayerOf(m, "kernels", "sm_90")["gpu_min_driver"], first);
  EXPECT_EQ(m["minimum_driver"]["version"], first) << m.dump();
  EXPECT_EQ(m["minimum_driver"]["layer"], "kernels");
  EXPECT_EQ(m["minimum_driver"]["reason"], "sm_90 needs a CUDA " + text(first) + " driver");

  ToolRun human = RunTool({"binary", sm90, "--target-version", text(before), "--gpu", "sm_90"});
  EXPECT_EQ(human.exit_code, 1);
  EXPECT_NE(human.out.find("    -> fails on sm_90 (100 cudaErrorNoDevice): " + need + "\n"),
            std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("  verdict: incompatible: kernels: " + need +
                           " -> 100 cudaErrorNoDevice\n"),
            std::string::npos)
      << human.out;
}

TEST(BinaryLayers, MalformedGpuIsAUsageError) {
  const std::string p = Nvcc("lib_sm90");
  for (const char* bad : {"banana", "sm_", "sm_9x", "", "sm_90,", ",sm_90", "compute_90",
                          "sm_90;rm", "none,sm_90", "-1.0", "9.99"}) {
    ToolRun run = RunTool({"binary", p, "--target-version", "13.0", "--gpu", bad});
    EXPECT_EQ(run.exit_code, 2) << "'" << bad << "'\n" << Describe(run);
    EXPECT_NE(run.err.find("--gpu"), std::string::npos) << "'" << bad << "'\n" << Describe(run);
    EXPECT_TRUE(run.out.empty()) << run.out;
  }
  ToolRun mixed = RunTool({"binary", p, "--target-version", "13.0", "--gpu", "none", "--gpu",
                           "sm_90"});
  EXPECT_EQ(mixed.exit_code, 2) << Describe(mixed);
}

// Without --gpu the GPUs come from the driver's devices; with none (a CPU machine) the kernel
// layer is unknown where it depends on the GPU.
TEST(BinaryLayers, GpusFromTheDriverOrNone) {
  ToolRun run = RunTool({"binary", Nvcc("lib_sm90"), "--target-version", "13.0", "--json"});
  ASSERT_TRUE(run.json_ok) << Describe(run);
  const Json& gpus = run.json["gpus"];
  if (gpus["archs"].empty()) {
    EXPECT_EQ(gpus["source"].get<std::string>(), "none");
    EXPECT_FALSE(gpus["note"].is_null());
    EXPECT_EQ(run.exit_code, 0) << Describe(run);
    EXPECT_EQ(LayerOf(OnlyFile(run), "kernels")["status"].get<std::string>(), "unknown");
  } else {
    EXPECT_EQ(gpus["source"].get<std::string>(), "driver");
    EXPECT_EQ(LayerOf(OnlyFile(run), "kernels", gpus["archs"][0].get<std::string>())["layer"],
              "kernels");
  }
  EXPECT_TRUE(run.json["driver"].is_null());  // --target-version: the driver is not the target
}

// No target (no --target-version, no usable driver): a file that needs a driver version through
// its runtime or PTX-only kernels is undecided (exit 3); one whose kernels have SASS is not.
TEST(BinaryLayers, NoTargetVersion) {
  const std::string not_a_driver = Nvcc("cudart_none");  // --driver: dlopen refuses it
  for (const char* name : {"default", "lib_ptx80", "lib_sm90"}) {
    SCOPED_TRACE(name);
    ToolRun run = RunTool({"binary", Nvcc(name), "--driver", not_a_driver, "--json"});
    ASSERT_TRUE(run.json_ok) << Describe(run);
    EXPECT_TRUE(run.json["target"].is_null());
    const Json& f = OnlyFile(run);
    const bool sass = std::string(name) == "lib_sm90";
    EXPECT_EQ(run.exit_code, sass ? 0 : 3) << Describe(run);
    EXPECT_EQ(f["verdict"].get<std::string>(), sass ? "compatible" : "undecided");
    EXPECT_TRUE(f["deciding_layer"].is_null());
    EXPECT_EQ(LayerOf(f, "kernels")["status"].get<std::string>(), "unknown");
  }
}

// Entry points named as strings are information only: never a failing layer.
TEST(BinaryLayers, NamedEntryPointsAreInformation) {
  const std::string p = Program("named_entry_points");
  ASSERT_FALSE(p.empty());
  ToolRun run = Check(p, "11.4", "none");
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  const Json& f = OnlyFile(run);
  EXPECT_EQ(f["verdict"].get<std::string>(), "compatible");
  EXPECT_TRUE(f["imports"].empty());
  std::map<std::string, int> named;
  for (const Json& n : f["named_symbols"]) named[n["symbol"].get<std::string>()] = n["needs"];
  // The names are the program's (testdata/named_entry_points.c); what each needs is the table's
  // ABI version (cudaTypedefs.h: PFN_<base>_v<N>).
  std::string newest;
  int newest_version = 0;
  for (const char* symbol : {"cuInit", "cuMemAdvise_v2", "cuCtxCreate_v4"}) {
    const int entry = FindEntry(symbol);
    ASSERT_GE(entry, 0) << symbol;
    EXPECT_EQ(named[symbol], kEntries[entry].abi_version) << symbol << " " << f["named_symbols"].dump();
    if (kEntries[entry].abi_version > newest_version) {
      newest = symbol;
      newest_version = kEntries[entry].abi_version;
    }
  }
  EXPECT_EQ(named.count("dlsym"), 0u);
  // Newest first.
  ASSERT_GE(f["named_symbols"].size(), 3u);
  EXPECT_EQ(f["named_symbols"][0]["symbol"].get<std::string>(), newest);
  ToolRun human = RunTool({"binary", p, "--target-version", "11.4", "--gpu", "none"});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_NE(human.out.find("named as strings (not required): 3 driver entry points"),
            std::string::npos)
      << human.out;
}

TEST(BinaryLayers, ToolkitRuntimeLibrary) {
  const std::string lib = CudaLib("libcudart.so.13");
  if (access(lib.c_str(), R_OK) != 0) GTEST_SKIP() << lib << " not present";
  ExpectVerdict("libcudart.so.13", lib, "12.8", "none", 1, "runtime", 35);
  ExpectVerdict("libcudart.so.13", lib, "13.0", "none", 0, "", 0);
  const Json f = OnlyFile(Check(lib, "13.0", "none"));
  EXPECT_EQ(f["runtime"]["linkage"].get<std::string>(), "shared");
  EXPECT_TRUE(f["runtime"]["is_runtime"].get<bool>());
  EXPECT_EQ(f["runtime"]["family"].get<int>(), 13);
  // The runtime looks the driver up with cuGetProcAddress by name: hundreds of named entry
  // points, including 13.0 ones, none of which fails the 13.0 verdict.
  EXPECT_GT(f["named_symbols"].size(), 100u);
  EXPECT_EQ(f["named_symbols"][0]["needs"].get<int>(), 13000);
  ToolRun human = RunTool({"binary", lib, "--target-version", "13.0", "--gpu", "none"});
  // Compact: the count and the newest few names, not hundreds of lines.
  EXPECT_LT(std::count(human.out.begin(), human.out.end(), '\n'), 30) << human.out;
}

// The runtime family rule on a CUDA 11 runtime: a stand-in libcudart.so.11.0 and a program
// linking it (the real runtimes: RealDebianRuntimes below).
TEST(BinaryLayers, Cuda11RuntimeRunsOn12Drivers) {
  const std::string lib = Program("libcudart.so.11.0");
  const std::string user = Program("uses_cudart11");
  ExpectVerdict("libcudart.so.11.0", lib, "12.2", "none", 0, "", 0);
  ExpectVerdict("libcudart.so.11.0", lib, "10.2", "none", 1, "runtime", 35);
  ExpectVerdict("uses_cudart11", user, "12.2", "none", 0, "", 0);
  ExpectVerdict("uses_cudart11", user, "11.0", "none", 0, "", 0);
  ExpectVerdict("uses_cudart11", user, "10.2", "none", 1, "runtime", 35);
  const Json f = OnlyFile(Check(user, "12.2", "none"));
  EXPECT_EQ(f["runtime"]["library"].get<std::string>(), "libcudart.so.11.0");
  EXPECT_EQ(f["runtime"]["min_driver"].get<int>(), 11000);
}

// The real runtimes Debian ships (third_party/cuda_runtimes.bzl), judged as files: each needs its
// family's first driver (11.2 and 11.8: 11.0; 12.4 and 12.5: 12.0) and fails with 35 below it.
struct RealRuntime {
  const char* version;
  const char* path;
};
constexpr RealRuntime kRealRuntimes[] = {
#include "tools/layers/real_runtimes.inc"
};

TEST(BinaryLayers, RealDebianRuntimes) {
  ASSERT_GE(sizeof kRealRuntimes / sizeof kRealRuntimes[0], 4u);
  for (const RealRuntime& r : kRealRuntimes) {
    const std::string path = ::cudyn::testing::Runfile(r.path);
    const std::string version = r.version;
    const bool cuda11 = version.compare(0, 3, "11.") == 0;
    const std::string below = cuda11 ? "10.2" : "11.8";
    const std::string family = cuda11 ? "11.0" : "12.0";
    ExpectVerdict(std::string("libcudart ") + r.version, path, below, "none", 1, "runtime", 35);
    ExpectVerdict(std::string("libcudart ") + r.version, path, family, "none", 0, "", 0);
    const Json f = OnlyFile(Check(path, family, "none"));
    EXPECT_TRUE(f["runtime"]["is_runtime"].get<bool>()) << f.dump();
    EXPECT_EQ(f["runtime"]["min_driver"].get<int>(), cuda11 ? 11000 : 12000);
  }
}

// No size cap: the static-cudyn marker is found past 256 MiB (a sparse file).
TEST(BinaryLayers, WholeFileIsScanned) {
  const std::string src = ReadFile(Nvcc("cudart_none"));
  ASSERT_GT(src.size(), 1000u);
  const std::string path = ::cudyn::testing::MakeTempDir("big") + "/big_static_cudyn";
  {
    std::ofstream out(path, std::ios::binary);
    out << src;
  }
  const std::string marker = "CUDYN_DRIVER_PATH";
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, marker.data(), marker.size(), off_t{300} << 20),
            static_cast<ssize_t>(marker.size()));
  close(fd);
  ToolRun run = Check(path, "10.0", "none");
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(OnlyFile(run)["static_cudyn_marker"].get<bool>()) << Describe(run);
  EXPECT_EQ(OnlyFile(run)["verdict"].get<std::string>(), "portable");
}

}  // namespace
}  // namespace check
}  // namespace cudyn
