// Host-side helpers shared by the examples and the shim client: no driver-API calls here, so a
// program that loads the driver API dynamically (shim_client) can use them too.
#ifndef CUDYN_EXAMPLES_COMMON_HOST_H_
#define CUDYN_EXAMPLES_COMMON_HOST_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The kernels of vector_add/vector_add.cu as PTX text (NUL-terminated), for cuModuleLoadData.
// Defined by the generated vector_add_ptx.cc (//common:vector_add_ptx).
extern const char kVectorAddPtx[];

namespace example {

// Exit codes of every example (see examples/README.md).
enum ExitCode {
  kExitPass = 0,      // every part that ran passed its numeric checks
  kExitFail = 1,      // a numeric check or a CUDA call failed
  kExitNoDevice = 2,  // cuInit(0) returned 100 CUDA_ERROR_NO_DEVICE
  kExitNoDriver = 3,  // no usable driver: 303 (none loadable), 34 (only the toolkit stub)
};

constexpr int kThreadsPerBlock = 256;
inline unsigned int BlocksFor(int n) { return static_cast<unsigned int>((n + kThreadsPerBlock - 1) / kThreadsPerBlock); }

// 64-bit FNV-1a over raw bytes: the checksum lines the GPU test compares across runs.
uint64_t Fnv1a64(const void* data, size_t bytes);
// Prints "checksum <part> <16 hex digits>".
void PrintChecksum(const char* part, const void* data, size_t bytes);

// "13.0" for 13000.
std::string CudaVersionText(int version);

// The vector-add workload: inputs of n floats and the expected a + b (exact in float).
constexpr int kVectorAddN = 1 << 20;  // 4 MiB per buffer
void VectorAddInputs(int n, std::vector<float>* a, std::vector<float>* b);
// Returns the index of the first element that differs from a[i] + b[i], or -1.
long FirstVectorAddMismatch(const std::vector<float>& a, const std::vector<float>& b,
                            const std::vector<float>& c);

}  // namespace example

#endif  // CUDYN_EXAMPLES_COMMON_HOST_H_
