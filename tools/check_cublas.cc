// `cudyn-check cublas`: the cuBLAS libraries cudyn's cuBLAS loader tries for the driver in front, in
// its own order (loader/cublas.h CublasSearchPlan), each with its version, the CUDA runtime it was
// built with, the oldest driver that runs it (its major's runtime: loader/cudart_family.h) and
// whether this one does, and the one it takes. The loader itself opens them: what is listed is what
// a program linked with the cuBLAS drop-in would get.
#include <sys/stat.h>

#include "loader/cublas.h"
#include "nlohmann/json.hpp"
#include "tools/check.h"

namespace cudyn {
namespace check {
namespace {

std::string CudaText(int version) {
  return version <= 0 ? std::string("-")
                      : std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string CublasText(int version) {
  return version <= 0 ? std::string("-")
                      : std::to_string(version / 10000) + "." +
                            std::to_string(version % 10000 / 100) + "." +
                            std::to_string(version % 100);
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

int RunCublas(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "cublas", &request, err)) return kExitUsage;
  OpenedDriver opened = OpenDriverForCheck(request);
  const bool have_driver = opened.driver != nullptr && opened.driver->ok();
  const int driver_version = have_driver ? opened.driver->effective_version() : 0;

  CublasOptions options;
  options.use_environment = true;  // CUDYN_CUBLAS_PATH, CUDA_HOME, ... as in applications
  options.driver_version = driver_version;
  std::unique_ptr<Cublas> cublas = Cublas::Open(options);
  const bool picked = cublas != nullptr && cublas->ok();
  const int exit_code = !have_driver ? kExitNoDriver : picked ? kExitOk : kExitIncompatible;

  std::vector<PlannedCublas> plan;
  for (const PlannedCublas& p : CublasSearchPlan()) {
    if (p.source == CublasSource::kDefaultSearch || FileExists(p.path)) plan.push_back(p);
  }

  if (args.json) {
    Json j = Json::object();
    j["command"] = "cublas";
    j["driver"] = have_driver ? DriverJson(opened) : Json();
    j["driver_cuda_version"] = driver_version;
    Json p = Json::array();
    for (const PlannedCublas& planned : plan) {
      p.push_back({{"path", planned.path}, {"source", CublasSourceName(planned.source)}});
    }
    j["search_plan"] = p;
    Json c = Json::array();
    if (cublas != nullptr) {
      for (const CublasCandidate& cand : cublas->candidates()) {
        c.push_back({{"path", cand.path},
                     {"source", CublasSourceName(cand.source)},
                     {"accepted", cand.accepted()},
                     {"rejection", CublasRejectionName(cand.rejection)},
                     {"cublas_version", cand.version},
                     {"cudart_version", cand.cudart_version},
                     {"min_driver", cand.min_driver},
                     {"reason", cand.reason}});
      }
    }
    j["candidates"] = c;
    if (picked) {
      j["picked"] = {{"path", cublas->path()},
                     {"found_by", CublasSourceName(cublas->found_by())},
                     {"cublas_version", cublas->version()},
                     {"cudart_version", cublas->cudart_version()},
                     {"cublaslt", cublas->cublaslt()}};
    } else {
      j["picked"] = Json();
      j["error"] = cublas != nullptr ? cublas->last_error() : std::string("out of memory");
    }
    j["exit_code"] = exit_code;
    out << j.dump(2) << "\n";
    return exit_code;
  }

  out << "driver: ";
  if (have_driver) {
    out << opened.driver->path() << " (CUDA " << CudaText(driver_version) << ")\n";
  } else {
    out << "none usable (the newest cuBLAS found would be taken)\n";
  }
  out << "search plan (files present, in the loader's order):\n";
  for (const PlannedCublas& planned : plan) {
    out << "  " << planned.path << " (" << CublasSourceName(planned.source) << ")\n";
  }
  out << "candidates:\n";
  if (cublas != nullptr) {
    for (const CublasCandidate& cand : cublas->candidates()) {
      out << "  " << (cand.accepted() ? "taken    " : "refused  ") << cand.path << " ("
          << CublasSourceName(cand.source) << "): ";
      if (cand.version > 0) {  // 0: refused by its SONAME, never loaded (the reason says so)
        out << "cuBLAS " << CublasText(cand.version) << ", runtime "
            << CudaText(cand.cudart_version) << " — ";
      }
      out << cand.reason << "\n";
    }
  }
  if (picked) {
    out << "picked: " << cublas->path() << " (cuBLAS " << CublasText(cublas->version())
        << ", libcublasLt " << cublas->cublaslt() << ")\n";
  } else {
    out << "picked: none — " << (cublas != nullptr ? cublas->last_error() : "out of memory")
        << "\n";
  }
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
