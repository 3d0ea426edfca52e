// How long cudyn-check's fatbin summary of a large CUDA library takes, against reading the file.
//
//   bazel run -c opt //bench:fatbin_bench [-- FILE]
//
// FILE defaults to $CUDA_PATH/lib64/libcublasLt.so.13 (else /usr/local/cuda-13.0/lib64/...):
// CUDA 13.0's is 541 MB with thousands of fatbin entries. Benchmarks:
//   BM_FatbinSummary  ReadFatbins + AnalyzeKernels (mmap; headers only)
//   BM_AnalyzeFile    every layer: ELF, runtime (static-runtime fingerprint scan), fatbins
//   BM_CheckBinary    cudyn-check binary's whole per-file analysis (check::AnalyzeBinary: ELF
//                     imports, runtime, fatbins, named entry points, cudyn marker) + verdict
//   BM_PlainRead      read(2) of the whole file in 1 MiB chunks: a baseline (page cache warm)
//   BM_ReadelfDynamic `readelf -d FILE > /dev/null` (fork + exec): the other baseline, what an
//                     operator runs today to see what a file links
// Counters: entries, containers, bytes (file size).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>

#include "tools/check.h"
#include "tools/fatbin/fatbin_reader.h"
#include "tools/layers/analyze.h"
#include "tools/layers/kernel_layer.h"

namespace {

std::string g_file;

double FileSize() {
  struct stat st;
  return stat(g_file.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
}

void BM_FatbinSummary(benchmark::State& state) {
  size_t entries = 0, containers = 0;
  for (auto _ : state) {
    cudyn::fatbin::FatbinResult r = cudyn::fatbin::ReadFatbins(g_file);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    cudyn::layers::KernelLayer k = cudyn::layers::AnalyzeKernels(r.info);
    entries = k.entries;
    containers = k.containers;
    benchmark::DoNotOptimize(k);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["containers"] = static_cast<double>(containers);
  state.counters["bytes"] = FileSize();
}

void BM_AnalyzeFile(benchmark::State& state) {
  size_t entries = 0;
  for (auto _ : state) {
    cudyn::layers::FileLayers f = cudyn::layers::AnalyzeFile(g_file);
    if (!f.ok) {
      state.SkipWithError(f.error.c_str());
      return;
    }
    entries = f.kernels.entries;
    benchmark::DoNotOptimize(f);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["bytes"] = FileSize();
}

void BM_PlainRead(benchmark::State& state) {
  std::vector<char> buf(1 << 20);
  for (auto _ : state) {
    const int fd = open(g_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      state.SkipWithError("cannot open");
      return;
    }
    size_t total = 0;
    ssize_t n;
    while ((n = read(fd, buf.data(), buf.size())) > 0) total += static_cast<size_t>(n);
    close(fd);
    benchmark::DoNotOptimize(total);
  }
  state.counters["bytes"] = FileSize();
}

void BM_CheckBinary(benchmark::State& state) {
  size_t entries = 0;
  cudyn::check::BinaryTarget target;
  target.version = 12080;
  for (auto _ : state) {
    cudyn::check::BinaryAnalysis a = cudyn::check::AnalyzeBinary(g_file);
    if (!a.error.empty()) {
      state.SkipWithError(a.error.c_str());
      return;
    }
    cudyn::check::BinaryVerdict v = cudyn::check::JudgeFile(a, target);
    entries = a.kernels.entries;
    benchmark::DoNotOptimize(v);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["bytes"] = FileSize();
}

extern "C" char** environ;

void BM_ReadelfDynamic(benchmark::State& state) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::string file = g_file;
  char readelf[] = "readelf";
  char dash_d[] = "-d";
  char* argv[] = {readelf, dash_d, &file[0], nullptr};
  for (auto _ : state) {
    pid_t pid;
    if (posix_spawnp(&pid, "readelf", &actions, nullptr, argv, environ) != 0) {
      state.SkipWithError("cannot run readelf");
      break;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("readelf failed");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  state.counters["bytes"] = FileSize();
}

BENCHMARK(BM_FatbinSummary)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckBinary)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadelfDynamic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyzeFile)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlainRead)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 1) {
    g_file = argv[1];
  } else {
    const char* cp = std::getenv("CUDA_PATH");
    g_file = std::string(cp && *cp ? cp : "/usr/local/cuda-13.0") + "/lib64/libcublasLt.so.13";
  }
  std::fprintf(stderr, "file: %s\n", g_file.c_str());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
