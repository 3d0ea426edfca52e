// `cudyn-check <library>` for every library on the toolkit template (cublas, nvrtc, cufft, ...), and
// `cudyn-check libraries` for all of them at once: the files the library's loader tries for the
// driver in front, in its own order (loader/toolkit.h ToolkitSearchPlan), each with its version,
// its CUDA release, the oldest driver that runs it and whether this one does, and the one it takes.
// The loader itself opens them: what is listed is what a program linked with the drop-in would get.
#include <sys/stat.h>

#include "loader/toolkit.h"
#include "nlohmann/json.hpp"
#include "tools/commands.h"
#include "loader/toolkit_libraries.h"

namespace cudyn {
namespace check {
namespace {

std::string CudaText(int version) { return version <= 0 ? "-" : CudaVersionText(version); }

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// One library's plan, candidates and pick, for `driver_version` (0: none).
struct LibraryListing {
  std::vector<PlannedToolkit> plan;  // the files present (and the default search's names)
  std::unique_ptr<Toolkit> library;
  bool picked = false;
};

LibraryListing ListLibrary(const ToolkitTraits& traits, int driver_version) {
  LibraryListing listing;
  ToolkitOptions options;
  options.use_environment = true;  // CUDYN_<LIB>_PATH, CUDA_HOME, ... as in applications
  options.driver_version = driver_version;
  listing.library = Toolkit::Open(traits, options);
  listing.picked = listing.library != nullptr && listing.library->ok();
  for (const PlannedToolkit& p : ToolkitSearchPlan(traits)) {
    if (p.source == ToolkitSource::kDefaultSearch || FileExists(p.path)) listing.plan.push_back(p);
  }
  return listing;
}

Json ListingJson(const ToolkitTraits& traits, const LibraryListing& listing) {
  const std::string version_key = std::string(traits.library) + "_version";
  Json j = Json::object();
  Json p = Json::array();
  for (const PlannedToolkit& planned : listing.plan) {
    p.push_back({{"path", planned.path}, {"source", ToolkitSourceName(traits, planned.source)}});
  }
  j["search_plan"] = p;
  Json c = Json::array();
  if (listing.library != nullptr) {
    for (const ToolkitCandidate& cand : listing.library->candidates()) {
      c.push_back({{"path", cand.path},
                   {"source", ToolkitSourceName(traits, cand.source)},
                   {"accepted", cand.accepted()},
                   {"rejection", ToolkitRejectionName(traits, cand.rejection)},
                   {version_key, cand.version},
                   {"release", cand.release},
                   {"cudart_version", cand.runtime_version},
                   {"min_driver", cand.min_driver},
                   {"reason", cand.reason}});
    }
  }
  j["candidates"] = c;
  if (listing.picked) {
    const Toolkit& t = *listing.library;
    j["picked"] = {{"path", t.path()},
                   {"found_by", ToolkitSourceName(traits, t.found_by())},
                   {version_key, t.version()},
                   {"version_text", traits.version_text(t.version())},
                   {"release", t.release()},
                   {"cudart_version", t.runtime_version()},
                   {"min_driver", ToolkitMinDriver(traits, t.release())},
                   {"companion", t.companion()}};
  } else {
    j["picked"] = Json();
    j["error"] =
        listing.library != nullptr ? listing.library->last_error() : std::string("out of memory");
  }
  return j;
}

void PrintListing(const ToolkitTraits& traits, const LibraryListing& listing, std::ostream& out) {
  out << "search plan (files present, in the loader's order):\n";
  for (const PlannedToolkit& planned : listing.plan) {
    out << "  " << planned.path << " (" << ToolkitSourceName(traits, planned.source) << ")\n";
  }
  out << "candidates:\n";
  if (listing.library != nullptr) {
    for (const ToolkitCandidate& cand : listing.library->candidates()) {
      out << "  " << (cand.accepted() ? "taken    " : "refused  ") << cand.path << " ("
          << ToolkitSourceName(traits, cand.source) << "): ";
      if (cand.version > 0) {  // 0: refused by its SONAME, never loaded (the reason says so)
        out << traits.name << " " << traits.version_text(cand.version) << ", "
            << ToolkitReleaseText(traits, cand.release) << " release — ";
      }
      out << cand.reason << "\n";
    }
  }
  if (listing.picked) {
    const Toolkit& t = *listing.library;
    out << "picked: " << t.path() << " (" << traits.name << " " << traits.version_text(t.version())
        << ", " << ToolkitReleaseText(traits, t.release()) << " release"
        << (t.companion().empty() ? std::string() : ", " + t.companion()) << ")\n";
  } else {
    out << "picked: none — "
        << (listing.library != nullptr ? listing.library->last_error() : "out of memory") << "\n";
  }
}

// Opens the driver of the request: its effective version, 0 when none is usable.
int DriverForListing(const OpenRequest& request, OpenedDriver* opened) {
  *opened = OpenDriverForCheck(request);
  const bool have_driver = opened->driver != nullptr && opened->driver->ok();
  return have_driver ? opened->driver->effective_version() : 0;
}

}  // namespace

int RunToolkit(const ToolkitTraits& traits, const Args& args, std::ostream& out,
               std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, traits.library, &request, err)) return kExitUsage;
  OpenedDriver opened;
  const int driver_version = DriverForListing(request, &opened);
  const LibraryListing listing = ListLibrary(traits, driver_version);
  // A library the driver ships (NVML) is judged without the CUDA driver.
  const int exit_code = driver_version == 0 && !traits.driver_library ? kExitNoDriver
                        : listing.picked                              ? kExitOk
                                                                      : kExitIncompatible;
  if (args.json) {
    Json j = ListingJson(traits, listing);
    j["command"] = traits.library;
    j["driver"] = driver_version > 0 ? DriverJson(opened) : Json();
    j["driver_cuda_version"] = driver_version;
    j["exit_code"] = exit_code;
    out << j.dump(2) << "\n";
    return exit_code;
  }
  out << "driver: ";
  if (driver_version > 0) {
    out << opened.driver->path() << " (CUDA " << CudaText(driver_version) << ")\n";
  } else {
    out << "none usable (the newest " << traits.name << " found would be taken)\n";
  }
  PrintListing(traits, listing, out);
  return exit_code;
}

int RunLibraries(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "libraries", &request, err)) return kExitUsage;
  OpenedDriver opened;
  const int driver_version = DriverForListing(request, &opened);
  Json libraries = Json::object();
  int picked = 0;
  for (const ToolkitTraits* traits : ToolkitLibraries()) {
    const LibraryListing listing = ListLibrary(*traits, driver_version);
    picked += listing.picked;
    if (args.json) {
      libraries[traits->library] = ListingJson(*traits, listing);
    } else {
      out << "== " << traits->name << " (" << traits->library << ")\n";
      PrintListing(*traits, listing, out);
    }
  }
  // Every library is optional to a program: none found is not an incompatibility by itself.
  const int exit_code = driver_version == 0 ? kExitNoDriver : kExitOk;
  if (args.json) {
    Json j = Json::object();
    j["command"] = "libraries";
    j["driver"] = driver_version > 0 ? DriverJson(opened) : Json();
    j["driver_cuda_version"] = driver_version;
    j["libraries"] = libraries;
    j["picked"] = picked;
    j["exit_code"] = exit_code;
    out << j.dump(2) << "\n";
  }
  return exit_code;
}

}  // namespace check
}  // namespace cudyn
