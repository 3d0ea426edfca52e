// The NVRTC acceptance rule (nvrtc_rule.h) over the generated PTX ISA facts.
#include "loader/nvrtc_rule.h"

namespace cudyn {
namespace {

struct PtxIsa {
  int major;
  int minor;
  int cuda;  // the release that introduced it, 1000*major + 10*minor
};
constexpr PtxIsa kPtxIsa[] = {
#include "version_tables/generated_ptx_isa/ptx_isa.inc"
};
constexpr int kPtxIsaCount = sizeof(kPtxIsa) / sizeof(kPtxIsa[0]);

// The row of the newest ISA introduced at or before `nvrtc_version` (-1: none).
int RowFor(int nvrtc_version) {
  int best = -1;
  for (int i = 0; i < kPtxIsaCount; ++i) {
    if (kPtxIsa[i].cuda <= nvrtc_version && (best < 0 || kPtxIsa[i].cuda > kPtxIsa[best].cuda)) {
      best = i;
    }
  }
  return best;
}

int NewestRow() {
  int best = 0;
  for (int i = 1; i < kPtxIsaCount; ++i) {
    if (kPtxIsa[i].cuda > kPtxIsa[best].cuda) best = i;
  }
  return best;
}

}  // namespace

int NvrtcPtxIsa(int nvrtc_version) {
  const int row = RowFor(nvrtc_version);
  return row < 0 ? 0 : kPtxIsa[row].major * 10 + kPtxIsa[row].minor;
}

int NvrtcMinDriver(int nvrtc_version) {
  const int row = RowFor(nvrtc_version);
  // Newer than every release the table knows: its ISA may be newer too; only a driver of its own
  // release is known to JIT it. Older than every row: nothing better is known either.
  if (row < 0 || nvrtc_version > kPtxIsa[NewestRow()].cuda) {
    return nvrtc_version;
  }
  return kPtxIsa[row].cuda;
}

}  // namespace cudyn
