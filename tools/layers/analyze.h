// The layers of one file, read with a single mmap: the entry point for cudyn-check.
//
//   layers::FileLayers f = layers::AnalyzeFile(path);
//   if (!f.ok) -> exit 2 with f.error
//   layers::FileVerdict v = layers::Decide(f.runtime, f.kernels, {12080, true, {9, 0}});
#ifndef CUDYN_TOOLS_LAYERS_ANALYZE_H_
#define CUDYN_TOOLS_LAYERS_ANALYZE_H_

#include <string>

#include "tools/elf/elf_reader.h"
#include "tools/fatbin/fatbin_reader.h"
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
};

// Maps `path` once and runs the ELF reader, the fatbin reader and both layer analyses on it.
FileLayers AnalyzeFile(const std::string& path);
// The same on bytes already in memory.
FileLayers AnalyzeImage(const uint8_t* data, size_t size);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_ANALYZE_H_
