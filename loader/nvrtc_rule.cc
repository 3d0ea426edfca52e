// The NVRTC acceptance rule (nvrtc_rule.h). Every PTX ISA fact is kernel_rule's (one reader of
// version_tables/inputs/ptx_isa.tsv): which ISA a release introduced, which driver JITs an ISA.
#include "loader/nvrtc_rule.h"

#include "loader/kernel_rule.h"

namespace cudyn {
namespace {

// The newest ISA the table knows, and the release that introduced it.
int NewestTableRelease(int* major, int* minor) {
  int ma = 0, mi = 0;
  if (!kernel_rule::MaxPtxIsaForDriver(1 << 30, &ma, &mi)) return 0;
  if (major != nullptr) *major = ma;
  if (minor != nullptr) *minor = mi;
  return kernel_rule::MinDriverForPtxIsa(ma, mi);
}

}  // namespace

int NvrtcPtxIsa(int nvrtc_version) {
  // NVRTC of release R emits the newest ISA introduced at or before R: the same fact as the
  // newest ISA a driver of release R JITs.
  int major = 0, minor = 0;
  if (!kernel_rule::MaxPtxIsaForDriver(nvrtc_version, &major, &minor)) return 0;
  return major * 10 + minor;
}

int NvrtcMinDriver(int nvrtc_version) {
  const int isa = NvrtcPtxIsa(nvrtc_version);
  // Newer than every release the table knows: its ISA may be newer too; only a driver of its own
  // release is known to JIT it. Older than every row: nothing better is known either.
  if (isa == 0 || nvrtc_version > NewestTableRelease(nullptr, nullptr)) return nvrtc_version;
  return kernel_rule::MinDriverForPtxIsa(isa / 10, isa % 10);
}

bool NvrtcUsableBy(int nvrtc_version, int driver_version) {
  const int isa = NvrtcPtxIsa(nvrtc_version);
  if (isa == 0 || nvrtc_version > NewestTableRelease(nullptr, nullptr)) {
    return driver_version >= nvrtc_version;
  }
  return kernel_rule::DriverJitsPtxIsa(driver_version, isa / 10, isa % 10);
}

}  // namespace cudyn
