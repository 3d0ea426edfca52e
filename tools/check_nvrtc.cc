// `cudyn-check nvrtc`: the NVRTCs cudyn's NVRTC loader tries for the driver in front, in its own
// order (loader/nvrtc.h NvrtcSearchPlan), each with its version, the PTX ISA it emits and whether
// that driver can JIT it (loader/nvrtc_rule.h), and the one it takes. The loader itself opens them:
// what is listed is what a program linked with the NVRTC drop-in would get.
#include <sys/stat.h>

#include "loader/kernel_rule.h"
#include "loader/nvrtc.h"
#include "loader/nvrtc_rule.h"
#include "nlohmann/json.hpp"
#include "tools/check.h"

namespace cudyn {
namespace check {
namespace {

std::string NvrtcVersionText(int version) {
  return version <= 0 ? std::string("-")
                      : std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string NvrtcIsaText(int isa) {
  return isa <= 0 ? std::string("-") : std::to_string(isa / 10) + "." + std::to_string(isa % 10);
}

// The newest PTX ISA a driver of `driver_version` JITs, as 10*major + minor (0: none known).
int DriverPtxIsa(int driver_version) {
  int major = 0, minor = 0;
  if (driver_version <= 0 || !kernel_rule::MaxPtxIsaForDriver(driver_version, &major, &minor)) {
    return 0;
  }
  return major * 10 + minor;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

int RunNvrtc(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "nvrtc", &request, err)) return kExitUsage;
  OpenedDriver opened = OpenDriverForCheck(request);
  const bool have_driver = opened.driver != nullptr && opened.driver->ok();
  const int driver_version = have_driver ? opened.driver->effective_version() : 0;

  NvrtcOptions options;
  options.use_environment = true;  // CUDYN_NVRTC_PATH, CUDA_HOME, ... as in applications
  options.driver_version = driver_version;
  std::unique_ptr<Nvrtc> nvrtc = Nvrtc::Open(options);
  const bool picked = nvrtc != nullptr && nvrtc->ok();
  const int exit_code = !have_driver ? kExitNoDriver : picked ? kExitOk : kExitIncompatible;

  std::vector<PlannedNvrtc> plan;
  for (const PlannedNvrtc& p : NvrtcSearchPlan()) {
    if (p.source == NvrtcSource::kDefaultSearch || FileExists(p.path)) plan.push_back(p);
  }

  if (args.json) {
    Json j = Json::object();
    j["command"] = "nvrtc";
    j["driver"] = have_driver ? DriverJson(opened) : Json();
    j["driver_cuda_version"] = driver_version;
    j["driver_ptx_isa"] = DriverPtxIsa(driver_version);
    Json p = Json::array();
    for (const PlannedNvrtc& planned : plan) {
      p.push_back({{"path", planned.path}, {"source", NvrtcSourceName(planned.source)}});
    }
    j["search_plan"] = p;
    Json c = Json::array();
    if (nvrtc != nullptr) {
      for (const NvrtcCandidate& cand : nvrtc->candidates()) {
        c.push_back({{"path", cand.path},
                     {"source", NvrtcSourceName(cand.source)},
                     {"accepted", cand.accepted()},
                     {"rejection", NvrtcRejectionName(cand.rejection)},
                     {"nvrtc_version", cand.version},
                     {"ptx_isa", cand.ptx_isa},
                     {"min_driver", cand.min_driver},
                     {"reason", cand.reason}});
      }
    }
    j["candidates"] = c;
    if (picked) {
      j["picked"] = {{"path", nvrtc->path()},
                     {"found_by", NvrtcSourceName(nvrtc->found_by())},
                     {"nvrtc_version", nvrtc->version()},
                     {"ptx_isa", nvrtc->ptx_isa()}};
    } else {
      j["picked"] = Json();
      j["error"] = nvrtc != nullptr ? nvrtc->last_error() : std::string("out of memory");
    }
    j["exit_code"] = exit_code;
    out << j.dump(2) << "\n";
    return exit_code;
  }

  out << "driver: ";
  if (have_driver) {
    out << opened.driver->path() << " (CUDA " << NvrtcVersionText(driver_version) << ", JITs PTX up to "
        << NvrtcIsaText(DriverPtxIsa(driver_version)) << ")\n";
  } else {
    out << "none usable (the newest NVRTC found would be taken)\n";
  }
  out << "search plan (files present, in the loader's order):\n";
  for (const PlannedNvrtc& planned : plan) {
    out << "  " << planned.path << " (" << NvrtcSourceName(planned.source) << ")\n";
  }
  out << "candidates:\n";
  if (nvrtc != nullptr) {
    for (const NvrtcCandidate& cand : nvrtc->candidates()) {
      out << "  " << (cand.accepted() ? "taken    " : "refused  ") << cand.path << " ("
          << NvrtcSourceName(cand.source) << "): ";
      if (cand.version > 0) {  // 0: refused by its SONAME, never loaded (the reason says so)
        out << "NVRTC " << NvrtcVersionText(cand.version) << ", PTX " << NvrtcIsaText(cand.ptx_isa)
            << " — ";
      }
      out << cand.reason << "\n";
    }
  }
  if (picked) {
    out << "picked: " << nvrtc->path() << " (NVRTC " << NvrtcVersionText(nvrtc->version()) << ", PTX "
        << NvrtcIsaText(nvrtc->ptx_isa()) << ")\n";
  } else {
    out << "picked: none — " << (nvrtc != nullptr ? nvrtc->last_error() : "out of memory")
        << "\n";
  }
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
