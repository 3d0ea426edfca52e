// Layer analyses and verdicts for programs built by the real CUDA 13.0 nvcc
// (//tools/fatbin:nvcc_programs) and the toolkit's libraries. The expected verdicts follow from
// the nvcc options and the rules in verdict.h, not from the tool's output:
//   default        static 13.0 runtime, sm_75 SASS + compute_75 PTX (ISA 9.0)
//   cudart_shared  DT_NEEDED libcudart.so.13, same device code
//   cudart_none    host-only C++, no runtime, no device code
//   ptx_compute80  static runtime, compute_80 PTX (ISA 9.0) only
//   sass_sm80      static runtime, sm_80 SASS only
//   sass_sm90a     static runtime, sm_90a SASS only
//   multi          static runtime, sm_75 + sm_90 + compute_90 + sm_100f
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/layers/analyze.h"
#include "tools/layers/verdict.h"

namespace cudyn {
namespace layers {
namespace {

std::string Program(const std::string& name) { return "tools/fatbin/nvcc/" + name; }

std::string CudaLib(const std::string& name) {
  const char* cp = std::getenv("CUDA_PATH");
  return std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/" + name;
}

std::string ReadWhole(const std::string& path) {
  std::string bytes;
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (fp == nullptr) return bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) bytes.append(buf, n);
  std::fclose(fp);
  return bytes;
}

FileLayers Load(const std::string& path) {
  FileLayers f = AnalyzeFile(path);
  EXPECT_TRUE(f.ok) << path << ": " << f.error;
  return f;
}

Target On(int cuda, const char* gpu) {
  Target t;
  t.cuda_version = cuda;
  if (gpu) {
    t.has_gpu = true;
    EXPECT_TRUE(ParseGpuArch(gpu, &t.gpu)) << gpu;
  }
  return t;
}

// Runs / deciding layer / CUDA error of the whole file.
void ExpectVerdict(const FileLayers& f, const Target& t, bool runs, Layer layer, int error) {
  const FileVerdict v = Decide(f.runtime, f.kernels, t);
  EXPECT_EQ(v.runs, runs) << v.reason;
  EXPECT_EQ(v.deciding_layer, layer) << LayerName(v.deciding_layer) << ": " << v.reason;
  EXPECT_EQ(v.cuda_error, error) << v.reason;
  if (!runs) {
    EXPECT_FALSE(v.reason.empty());
  }
}

// The kernel layer alone (the file's runtime would fail first on an old driver).
void ExpectKernels(const FileLayers& f, const Target& t, Status status, int error,
                   const std::string& image = "") {
  const LayerVerdict v = JudgeKernels(f.kernels, t);
  EXPECT_EQ(v.status, status) << v.reason;
  EXPECT_EQ(v.cuda_error, error) << v.reason;
  if (!image.empty()) {
    EXPECT_EQ(v.image.compare(0, image.size(), image), 0) << v.image;
  }
}

TEST(PtxIsaTable, KnownReleases) {
  EXPECT_EQ(MinDriverForPtxIsa(6, 4), 10010);
  EXPECT_EQ(MinDriverForPtxIsa(7, 0), 11000);
  EXPECT_EQ(MinDriverForPtxIsa(7, 8), 11080);
  EXPECT_EQ(MinDriverForPtxIsa(8, 0), 12000);
  EXPECT_EQ(MinDriverForPtxIsa(8, 4), 12040);
  EXPECT_EQ(MinDriverForPtxIsa(8, 5), 12050);
  EXPECT_EQ(MinDriverForPtxIsa(8, 6), 12070);  // 12.6 added no ISA
  EXPECT_EQ(MinDriverForPtxIsa(8, 7), 12080);
  EXPECT_EQ(MinDriverForPtxIsa(9, 0), 13000);
  EXPECT_EQ(MinDriverForPtxIsa(99, 0), 0);  // newer than the table: no known driver
}

TEST(GpuArch, Parse) {
  GpuArch a;
  ASSERT_TRUE(ParseGpuArch("sm_90a", &a));
  EXPECT_EQ(a.major, 9);
  EXPECT_EQ(a.minor, 0);
  EXPECT_EQ(a.variant, 'a');
  ASSERT_TRUE(ParseGpuArch("sm_103", &a));
  EXPECT_EQ(a.major, 10);
  EXPECT_EQ(a.minor, 3);
  ASSERT_TRUE(ParseGpuArch("8.6", &a));
  EXPECT_EQ(a.number(), 86);
  ASSERT_TRUE(ParseGpuArch("120", &a));
  EXPECT_EQ(a.Name(), "sm_120");
  EXPECT_FALSE(ParseGpuArch("sm_", &a));
  EXPECT_FALSE(ParseGpuArch("gpu", &a));
  EXPECT_FALSE(ParseGpuArch("sm_9x", &a));
}

TEST(ImageRules, SassAndPtx) {
  const GpuArch sm80{8, 0, 0}, sm86{8, 6, 0}, sm90{9, 0, 0}, sm90a{9, 0, 'a'}, sm100f{10, 0, 'f'},
      sm103{10, 3, 0}, sm100{10, 0, 0}, sm120{12, 0, 0};
  EXPECT_TRUE(SassRunsOn(sm80, sm86));
  EXPECT_FALSE(SassRunsOn(sm86, sm80));
  EXPECT_FALSE(SassRunsOn(sm80, sm90));
  EXPECT_TRUE(SassRunsOn(sm90a, sm90));
  EXPECT_FALSE(SassRunsOn(sm90a, sm100));
  EXPECT_TRUE(SassRunsOn(sm100f, sm103));
  EXPECT_FALSE(SassRunsOn(sm100f, sm120));
  EXPECT_TRUE(PtxTargets(sm80, sm120));
  EXPECT_FALSE(PtxTargets(sm90, sm86));
  EXPECT_FALSE(PtxTargets(sm90a, sm100));
  EXPECT_TRUE(PtxTargets(sm100f, sm103));
  EXPECT_FALSE(PtxTargets(sm100f, sm120));
}

TEST(RuntimeLayer, StaticRuntimeOfDefaultBuild) {
  const FileLayers f = Load(Program("default"));
  EXPECT_EQ(f.runtime.linkage, RuntimeLinkage::kStatic);
  EXPECT_EQ(f.runtime.runtime_version, 13000);
  EXPECT_EQ(f.runtime.min_driver, 13000);
}

TEST(RuntimeLayer, StaticRuntimeSurvivesStrip) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  const std::string out = std::string(tmp) + "/ptx_compute80.stripped";
  ASSERT_EQ(std::system(("strip -o '" + out + "' '" + Program("ptx_compute80") + "'").c_str()), 0);
  // PTX-only: no cubin, so no nvcc ident either; the version comes from the runtime's own table.
  const FileLayers f = Load(out);
  EXPECT_EQ(f.runtime.linkage, RuntimeLinkage::kStatic);
  EXPECT_EQ(f.runtime.runtime_version, 13000);
}

TEST(RuntimeLayer, SharedAndNone) {
  const FileLayers shared = Load(Program("cudart_shared"));
  EXPECT_EQ(shared.runtime.linkage, RuntimeLinkage::kDynamic);
  EXPECT_EQ(shared.runtime.library, "libcudart.so.13");
  EXPECT_EQ(shared.runtime.min_driver, 13000);
  const FileLayers none = Load(Program("cudart_none"));
  EXPECT_EQ(none.runtime.linkage, RuntimeLinkage::kNone);
  EXPECT_FALSE(none.kernels.has_device_code);
}

TEST(RuntimeLayer, RealRuntimeLibrary) {
  const FileLayers f = Load(CudaLib("libcudart.so.13"));
  EXPECT_EQ(f.runtime.linkage, RuntimeLinkage::kIsRuntime);
  EXPECT_EQ(f.runtime.min_driver, 13000);
  size_t records = 0;
  // The table the static fingerprint reads is the shared runtime's too.
  const std::string path = CudaLib("libcudart.so.13");
  const std::string bytes = ReadWhole(path);
  ASSERT_FALSE(bytes.empty()) << path;
  EXPECT_EQ(FindRuntimeVersionTable(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                    &records),
            13000);
  EXPECT_GE(records, kMinVersionTableRecords);
}

// The real runtimes Debian ships (third_party/cuda_runtimes.bzl: 11.2, 11.8, 12.4, 12.5): each is
// the runtime by its SONAME, needs its family's first driver, and carries the versioned
// entry-point table the static-runtime fingerprint reads, whose newest record is its own version.
struct RealRuntime {
  const char* version;  // "11.2"
  const char* path;     // runfiles path
};
constexpr RealRuntime kRealRuntimes[] = {
#include "tools/layers/real_runtimes.inc"
};

TEST(RuntimeLayer, RealDebianRuntimes) {
  ASSERT_GE(sizeof kRealRuntimes / sizeof kRealRuntimes[0], 4u);
  for (const RealRuntime& r : kRealRuntimes) {
    SCOPED_TRACE(r.version);
    const std::string version = r.version;
    const int major = std::stoi(version.substr(0, version.find('.')));
    const int minor = std::stoi(version.substr(version.find('.') + 1));
    const std::string path = std::string("../") + r.path;
    const FileLayers f = Load(path);
    ASSERT_TRUE(f.ok) << f.error;
    EXPECT_EQ(f.runtime.linkage, RuntimeLinkage::kIsRuntime);
    EXPECT_EQ(f.runtime.min_driver, major * 1000);  // minor-version compatibility (11.0+)
    const std::string bytes = ReadWhole(path);
    ASSERT_FALSE(bytes.empty()) << path;
    size_t records = 0;
    EXPECT_EQ(FindRuntimeVersionTable(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                      &records),
              major * 1000 + minor * 10);
    EXPECT_GE(records, kMinVersionTableRecords);
  }
}

TEST(Verdict, DefaultBuild) {
  const FileLayers f = Load(Program("default"));
  ExpectVerdict(f, On(12080, "sm_90"), false, Layer::kRuntime, 35);
  ExpectVerdict(f, On(12080, nullptr), false, Layer::kRuntime, 35);
  ExpectVerdict(f, On(13000, "sm_90"), true, Layer::kNone, 0);  // JIT of compute_75
  ExpectKernels(f, On(13000, "sm_90"), Status::kOk, 0, "compute_75");
  ExpectKernels(f, On(13000, "sm_75"), Status::kOk, 0, "sm_75");
  ExpectKernels(f, On(13000, "sm_86"), Status::kOk, 0, "compute_75");
  // An older driver can run the sm_75 SASS but not JIT ISA 9.0 for another GPU.
  ExpectKernels(f, On(12080, "sm_75"), Status::kOk, 0, "sm_75");
  ExpectKernels(f, On(12080, "sm_90"), Status::kFails, 222);
  ExpectKernels(f, On(13000, nullptr), Status::kUnknown, 0);
}

TEST(KernelLayer, ProducingToolkit) {
  EXPECT_EQ(Load(Program("default")).kernels.toolkit_release, 13000);
  // -rdc=true -c: the only cubin is zstd-compressed; it is decoded to find the ident.
  EXPECT_EQ(Load(Program("rdc_object")).kernels.toolkit_release, 13000);
  // PTX only: 13.0's PTX carries no ident.
  EXPECT_EQ(Load(Program("ptx_compute80")).kernels.toolkit_release, 0);
}

TEST(Verdict, CudartShared) {
  const FileLayers f = Load(Program("cudart_shared"));
  ExpectVerdict(f, On(12080, "sm_75"), false, Layer::kRuntime, 35);
  ExpectVerdict(f, On(13000, "sm_75"), true, Layer::kNone, 0);
  // libcudart.so.13 on an older driver: cudyn's runtime drop-in serves it with a family that
  // driver runs; nothing to suggest where it runs anyway, or where no family fits.
  EXPECT_NE(JudgeRuntime(f.runtime, On(12080, nullptr))
                .with_cudyn.find("libcudart.so.12, libcudart.so.11.0"),
            std::string::npos);
  EXPECT_NE(JudgeRuntime(f.runtime, On(11040, nullptr)).with_cudyn.find("cudyn run --cudart"),
            std::string::npos);
  EXPECT_NE(JudgeRuntime(f.runtime, On(11040, nullptr))
                .with_cudyn.find("(libcudart.so.11.0, libcudart.so.10.2"),
            std::string::npos);
  EXPECT_EQ(JudgeRuntime(f.runtime, On(13000, nullptr)).with_cudyn, "");
  EXPECT_EQ(JudgeRuntime(f.runtime, On(9020, nullptr)).with_cudyn, "");
}

TEST(Verdict, CudartNone) {
  const FileLayers f = Load(Program("cudart_none"));
  ExpectVerdict(f, On(10000, "sm_75"), true, Layer::kNone, 0);
  ExpectVerdict(f, On(12080, nullptr), true, Layer::kNone, 0);
}

TEST(Verdict, LayersJudgedElsewhereComeFirst) {
  const FileLayers f = Load(Program("cudart_shared"));
  LayerVerdict api;
  api.layer = Layer::kDriverApi;
  api.status = Status::kFails;
  api.reason = "imports cuFoo (CUDA 13.0)";
  const FileVerdict v = Decide(f.runtime, f.kernels, On(12080, "sm_75"), {api});
  EXPECT_FALSE(v.runs);
  EXPECT_EQ(v.deciding_layer, Layer::kDriverApi);
  ASSERT_EQ(v.layers.size(), 3u);
  EXPECT_EQ(v.layers[1].layer, Layer::kRuntime);
  EXPECT_EQ(v.layers[1].status, Status::kFails);  // still reported
}

TEST(Verdict, PtxOnlyCompute80) {
  const FileLayers f = Load(Program("ptx_compute80"));
  // The file: its 13.0 runtime fails first on a 12.8 driver.
  ExpectVerdict(f, On(12080, "sm_90"), false, Layer::kRuntime, 35);
  // Its kernels alone: ISA 9.0 needs a 13.0 driver -> 222, with or without a GPU.
  ExpectKernels(f, On(12080, "sm_90"), Status::kFails, 222);
  ExpectKernels(f, On(12080, nullptr), Status::kFails, 222);
  ExpectVerdict(f, On(13000, "sm_90"), true, Layer::kNone, 0);
  ExpectKernels(f, On(13000, "sm_90"), Status::kOk, 0, "compute_80 (JIT");
  ExpectKernels(f, On(13000, "sm_80"), Status::kOk, 0, "compute_80");
  // compute_80 PTX cannot be compiled for an older GPU.
  ExpectVerdict(f, On(13000, "sm_75"), false, Layer::kKernels, 209);
}

TEST(Verdict, SassOnlySm80) {
  const FileLayers f = Load(Program("sass_sm80"));
  ExpectKernels(f, On(13000, "sm_80"), Status::kOk, 0, "sm_80");
  ExpectKernels(f, On(13000, "sm_86"), Status::kOk, 0, "sm_80");
  ExpectVerdict(f, On(13000, "sm_90"), false, Layer::kKernels, 209);
  ExpectVerdict(f, On(13000, "sm_75"), false, Layer::kKernels, 209);
  ExpectKernels(f, On(13000, nullptr), Status::kUnknown, 0);
}

// Relocatable device code (-rdc=true) with no image for the GPU: the runtime answers the launch
// with 500 (cudaErrorSymbolNotFound), measured on the H100 (tests/gpu/RESULTS.md), where the same
// images without -rdc give 209 (SassOnlySm80 above).
TEST(Verdict, RelocatableDeviceCodeWithoutAnImage) {
  const FileLayers f = Load(Program("rdc_sass_sm80"));
  EXPECT_TRUE(f.kernels.relocatable);
  EXPECT_FALSE(f.kernels.self_loaded);
  ExpectKernels(f, On(13000, "sm_86"), Status::kOk, 0, "sm_80");
  ExpectVerdict(f, On(13000, "sm_90"), false, Layer::kKernels, 500);
  ExpectVerdict(f, On(13000, "sm_75"), false, Layer::kKernels, 500);
  EXPECT_TRUE(Load(Program("rdc_object")).kernels.relocatable);
  EXPECT_FALSE(Load(Program("sass_sm80")).kernels.relocatable);
  EXPECT_STREQ(CudaErrorName(500), "cudaErrorSymbolNotFound");
}

TEST(Verdict, Sm90aOnlyOnSm90) {
  const FileLayers f = Load(Program("sass_sm90a"));
  ASSERT_EQ(f.kernels.images.size(), 1u);
  EXPECT_EQ(f.kernels.images[0].arch.variant, 'a');
  EXPECT_FALSE(f.kernels.images[0].ptx);
  ExpectVerdict(f, On(13000, "sm_90"), true, Layer::kNone, 0);
  ExpectVerdict(f, On(13000, "sm_100"), false, Layer::kKernels, 209);
  ExpectVerdict(f, On(13000, "sm_120"), false, Layer::kKernels, 209);
}

TEST(Verdict, ArchSpecificVersusFamily) {
  // sm_100a runs only on sm_100; sm_100f on the whole 10.x family at or above 10.0; plain sm_100
  // on any 10.x.
  KernelLayer k;
  k.has_device_code = true;
  k.entries = 1;
  k.images.push_back(KernelImage{false, GpuArch{10, 0, 'a'}, 0, 0, 1, 0});
  EXPECT_EQ(JudgeKernels(k, On(13000, "sm_100")).status, Status::kOk);
  EXPECT_EQ(JudgeKernels(k, On(13000, "sm_103")).cuda_error, 209);
  k.images[0].arch.variant = 'f';
  EXPECT_EQ(JudgeKernels(k, On(13000, "sm_103")).status, Status::kOk);
  EXPECT_EQ(JudgeKernels(k, On(13000, "sm_110")).cuda_error, 209);
  // compute_90a PTX only for sm_90, compute_90 for anything newer.
  k.images[0] = KernelImage{true, GpuArch{9, 0, 'a'}, 8, 0, 1, 0};
  EXPECT_EQ(JudgeKernels(k, On(12000, "sm_90")).status, Status::kOk);
  EXPECT_EQ(JudgeKernels(k, On(13000, "sm_100")).cuda_error, 209);
  k.images[0].arch.variant = '\0';
  // compute_90 PTX (ISA 8.0, CUDA 12.0) JITs for sm_100 on a driver that offers sm_100; one
  // older than the GPU (gpu_arch.tsv) has no such device (100), whatever the PTX.
  const int sm100_from = kernel_rule::MinDriverForGpu(GpuArch{10, 0, '\0'});
  ASSERT_GT(sm100_from, 12000);
  EXPECT_EQ(JudgeKernels(k, On(sm100_from, "sm_100")).status, Status::kOk);
  EXPECT_EQ(JudgeKernels(k, On(12000, "sm_100")).cuda_error, 100);
  EXPECT_EQ(JudgeKernels(k, On(11080, "sm_100")).cuda_error, 100);
  k.images[0].isa_major = 9;  // ISA 9.0: a 13.0 driver's
  EXPECT_EQ(JudgeKernels(k, On(12080, "sm_100")).cuda_error, 222);
}

// A driver older than the GPU does not offer it (kernel_rule::DriverKnowsGpu, gpu_arch.tsv; a real
// one answers cuInit 100): the kernels fail with 100 whatever the images; the layer's minimum
// driver is the GPU's first, unless the images need more there (too-new PTX: its driver) or
// nothing runs on the GPU at all (0).
TEST(Verdict, GpuTheTargetDriverDoesNotOffer) {
  const GpuArch sm90{9, 0, '\0'};
  const int first = kernel_rule::MinDriverForGpu(sm90);
  ASSERT_GT(first, 11000);
  const int before = first - 10;
  const auto text = [](int v) { return CudaVersionText(v); };
  KernelLayer k;
  k.has_device_code = true;
  k.entries = 1;
  k.images.push_back(KernelImage{false, sm90, 0, 0, 1, 0});  // sm_90 SASS
  LayerVerdict v = JudgeKernels(k, On(before, "sm_90"));
  EXPECT_EQ(v.status, Status::kFails);
  EXPECT_EQ(v.cuda_error, kCudaErrorNoDevice);
  EXPECT_EQ(v.cuda_error, 100);
  EXPECT_STREQ(CudaErrorName(v.cuda_error), "cudaErrorNoDevice");
  EXPECT_TRUE(v.gpu_not_offered);
  EXPECT_EQ(v.gpu_min_driver, first);
  EXPECT_EQ(v.min_driver, first);
  EXPECT_TRUE(v.image.empty());
  EXPECT_EQ(v.reason, "sm_90 needs a CUDA " + text(first) + " driver: a CUDA " + text(before) +
                          " driver offers no such device");
  // From the GPU's first driver on, the images decide again.
  v = JudgeKernels(k, On(first, "sm_90"));
  EXPECT_EQ(v.status, Status::kOk);
  EXPECT_FALSE(v.gpu_not_offered);
  EXPECT_EQ(v.gpu_min_driver, first);
  // Only PTX too new for the GPU's first driver: that PTX's driver is the minimum.
  k.images[0] = KernelImage{true, sm90, 9, 0, 1, 0};
  v = JudgeKernels(k, On(before, "sm_90"));
  EXPECT_EQ(v.cuda_error, 100);
  EXPECT_EQ(v.min_driver, MinDriverForPtxIsa(9, 0));
  // Nothing for the GPU at all: no driver runs it.
  k.images[0] = KernelImage{false, GpuArch{8, 0, '\0'}, 0, 0, 1, 0};
  v = JudgeKernels(k, On(before, "sm_90"));
  EXPECT_EQ(v.cuda_error, 100);
  EXPECT_EQ(v.min_driver, 0);
  // A GPU every driver knows, or one the table does not know: offered, judged by the images.
  v = JudgeKernels(k, On(before, "sm_80"));
  EXPECT_EQ(v.status, Status::kOk);
  EXPECT_FALSE(v.gpu_not_offered);
  EXPECT_EQ(JudgeKernels(k, On(10000, "sm_60")).cuda_error, 209);
  EXPECT_EQ(JudgeKernels(k, On(10000, "sm_990")).cuda_error, 209);
  // No GPU given: nothing about GPUs is decided.
  v = JudgeKernels(k, On(before, nullptr));
  EXPECT_FALSE(v.gpu_not_offered);
  EXPECT_EQ(v.gpu_min_driver, 0);
}

// Without device code, a file that uses CUDA (Target::uses_cuda, the default) fails the same way
// on a GPU the driver does not offer: the driver offers no device there at all. A file that never
// reaches a driver is not judged on GPUs.
TEST(Verdict, NoDeviceCodeOnAGpuTheTargetDriverDoesNotOffer) {
  const GpuArch sm90{9, 0, '\0'};
  const int first = kernel_rule::MinDriverForGpu(sm90);
  ASSERT_GT(first, 11000);
  const KernelLayer none;  // no device code
  ASSERT_FALSE(none.has_device_code);
  LayerVerdict v = JudgeKernels(none, On(first - 10, "sm_90"));
  EXPECT_EQ(v.status, Status::kFails);
  EXPECT_EQ(v.cuda_error, kCudaErrorNoDevice);
  EXPECT_TRUE(v.gpu_not_offered);
  EXPECT_EQ(v.min_driver, first);
  EXPECT_EQ(v.gpu_min_driver, first);
  // Offered: nothing to judge.
  v = JudgeKernels(none, On(first, "sm_90"));
  EXPECT_EQ(v.status, Status::kNotApplicable);
  EXPECT_FALSE(v.gpu_not_offered);
  // No GPU given, or a file without CUDA: not applicable.
  EXPECT_EQ(JudgeKernels(none, On(first - 10, nullptr)).status, Status::kNotApplicable);
  Target host_only = On(first - 10, "sm_90");
  host_only.uses_cuda = false;
  v = JudgeKernels(none, host_only);
  EXPECT_EQ(v.status, Status::kNotApplicable);
  EXPECT_FALSE(v.gpu_not_offered);
}

TEST(Verdict, SeveralGencodes) {
  const FileLayers f = Load(Program("multi"));
  ExpectKernels(f, On(13000, "sm_75"), Status::kOk, 0, "sm_75");
  ExpectKernels(f, On(13000, "sm_90"), Status::kOk, 0, "sm_90");
  ExpectKernels(f, On(13000, "sm_100"), Status::kOk, 0, "sm_100f");
  ExpectKernels(f, On(13000, "sm_103"), Status::kOk, 0, "sm_100f");
  ExpectKernels(f, On(13000, "sm_120"), Status::kOk, 0, "compute_90");
  ExpectKernels(f, On(12080, "sm_120"), Status::kFails, 222);
  ExpectVerdict(f, On(13000, "sm_86"), false, Layer::kKernels, 209);
  // Summary facts.
  EXPECT_EQ(f.kernels.min_isa_major, 9);
  EXPECT_EQ(f.kernels.max_isa_major, 9);
}

TEST(Verdict, Cublas) {
  const std::string path = CudaLib("libcublas.so.13");
  ASSERT_EQ(access(path.c_str(), R_OK), 0) << path;
  const FileLayers f = Load(path);
  ASSERT_TRUE(f.kernels.has_device_code);
  EXPECT_GT(f.kernels.entries, 100u);
  // Thousands of entries collapse into a few distinct images.
  EXPECT_LT(f.kernels.images.size(), 64u);
  ExpectKernels(f, On(13000, "sm_90"), Status::kOk, 0, "sm_90");
  ExpectKernels(f, On(13000, "sm_80"), Status::kOk, 0, "sm_80");
  // cuBLAS 13 embeds the CUDA 13 runtime (no DT_NEEDED libcudart): 12.8 is refused.
  EXPECT_EQ(f.runtime.linkage, RuntimeLinkage::kStatic);
  EXPECT_EQ(f.runtime.min_driver, 13000);
  ExpectVerdict(f, On(12080, "sm_90"), false, Layer::kRuntime, 35);
}

}  // namespace
}  // namespace layers
}  // namespace cudyn
