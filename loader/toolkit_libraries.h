// Every library on the toolkit template (loader/toolkit.h), from the one list TOOLKIT_LIBRARIES
// (loader/toolkit_library.bzl): what cudyn-check lists and `cudyn run` offers.
#ifndef CUDYN_LOADER_TOOLKIT_LIBRARIES_H_
#define CUDYN_LOADER_TOOLKIT_LIBRARIES_H_

#include <vector>

#include "loader/toolkit.h"

namespace cudyn {

// Their traits, in TOOLKIT_LIBRARIES order. Never destroyed.
const std::vector<const ToolkitTraits*>& ToolkitLibraries();

}  // namespace cudyn

#endif  // CUDYN_LOADER_TOOLKIT_LIBRARIES_H_
