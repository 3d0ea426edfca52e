// Everything cudyn-check reads from one file, with a single mmap and a single parse: the ELF
// facts, the runtime and kernel layers, the driver entry points it names as strings and the
// cudyn loader marker. `cudyn-check binary` analyses every file through here (AnalyzeFile for a
// path, AnalyzeImage for a wheel member already in memory), and so does bench/fatbin_bench.
//
//   layers::FileLayers f = layers::AnalyzeFile(path);
//   if (!f.ok) -> exit 2 with f.error
//   layers::FileVerdict v = layers::Decide(f.runtime, f.kernels, {12080, true, {9, 0}});
#ifndef CUDYN_TOOLS_LAYERS_ANALYZE_H_
#define CUDYN_TOOLS_LAYERS_ANALYZE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_reader.h"
#include "tools/fatbin/fatbin_reader.h"
#include "tools/layers/entry_points.h"
#include "tools/layers/kernel_layer.h"
#include "tools/layers/runtime_layer.h"

namespace cudyn {
namespace layers {

struct FileLayers {
  bool ok = false;
  std::string error;  // not ELF, unreadable, ... (the ELF reader's / fatbin reader's message)
  elf::ElfInfo elf;
  RuntimeLayer runtime;
  KernelLayer kernels;
  // Table entry points named as strings, neither imported nor defined (FindNamedEntryPoints).
  std::vector<NamedEntryPoint> named_entry_points;
  // The cudyn loader's marker is in the file (looked for only when MayEmbedCudynLoader).
  bool cudyn_loader_marker = false;
};

// Maps `path` once and runs the ELF reader, the fatbin reader, both layer analyses and the
// entry-point scans on it. Errors as the ELF reader words them ("empty file", "path is a
// directory", "cannot open: ...", "not an ELF file (bad magic)", ...), or the fatbin reader's.
FileLayers AnalyzeFile(const std::string& path);
// The same on bytes already in memory.
FileLayers AnalyzeImage(const uint8_t* data, size_t size);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_ANALYZE_H_
