// The CUDA runtime's family rule, in one place for the runtime loader and cudyn-check.
//
// A libcudart's SONAME names its family: "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"
// (every 11.1+ runtime kept 11.0's name), and before 11.0 one per release ("libcudart.so.10.2",
// "libcudart.so.9.2"). A driver runs a runtime when its CUDA version is at least the family's:
// from 11 on any minor of the family (minor-version compatibility), before 11 that exact release.
// Pure functions of their arguments: no I/O, no allocation but the returned strings, never throw.
#ifndef CUDYN_LOADER_CUDART_FAMILY_H_
#define CUDYN_LOADER_CUDART_FAMILY_H_

#include <string>
#include <vector>

namespace cudyn {

// The oldest family cudyn binds (its tables have rules for 10.x and later) and the newest one
// there is a driver for; later majors are named by the same rule.
inline constexpr int kOldestCudartFamily = 10;
inline constexpr int kNewestCudartFamily = 13;

// "libcudart.so.12" -> family 12, minor -1; "libcudart.so.10.2" -> 10, 2. The major is 1..99 and
// ends the name or is followed by '.'; a minor is one or two digits, else -1 ("10.-3",
// "10.999"). Anything else ("libcudart.so", "libcudart.so.12abc", "libcuda.so.1") -> 0, -1.
void ParseCudartSoname(const std::string& soname, int* family, int* minor);

// The oldest driver (CUDA version, 1000*major + 10*minor) that runs this family: 13 -> 13000,
// 11 -> 11000, 10.2 -> 10020; 0 for family 0.
int CudartFamilyMinDriver(int family, int minor);

// The oldest driver that runs a runtime of version `runtime_version` (cudaRuntimeGetVersion's
// encoding): 12030 -> 12000, 11080 -> 11000, 10020 -> 10020; 0 for 0 or less.
int RuntimeVersionMinDriver(int runtime_version);

// Both at once: "libcudart.so.12" -> 12000; 0 when `soname` is not a versioned libcudart.
int CudartSonameMinDriver(const std::string& soname);

// The newest family a driver of `driver_version` supports (13, 12, 11, 10), 0 for none/older.
int NewestRuntimeFamilyFor(int driver_version);

// The runtime SONAMEs a driver of `driver_version` runs, newest first: "libcudart.so.13",
// "libcudart.so.12", "libcudart.so.11.0", "libcudart.so.10.2", "libcudart.so.10.1",
// "libcudart.so.10.0" (the families cudyn serves).
std::vector<std::string> CudartSonamesForDriver(int driver_version);

}  // namespace cudyn

#endif  // CUDYN_LOADER_CUDART_FAMILY_H_
