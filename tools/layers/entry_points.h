// What a file's bytes say about the driver API beyond its dynamic symbols (which the ELF reader
// gives): the table's entry points it names as strings (programs that dlsym / cuGetProcAddress
// the driver by name), and whether the cudyn loader is compiled into it. Part of the one-mmap
// analysis of a file (analyze.h); information for the CLI's driver-API layer.
#ifndef CUDYN_TOOLS_LAYERS_ENTRY_POINTS_H_
#define CUDYN_TOOLS_LAYERS_ENTRY_POINTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_reader.h"
#include "tools/fatbin/fatbin_reader.h"

namespace cudyn {
namespace layers {

// A driver entry point the file names as a string without importing or defining it.
struct NamedEntryPoint {
  std::string symbol;
  int abi_version = 0;  // the table's minimum CUDA driver version
};

// The table's entry points named as NUL-terminated strings in the read-only data (.rodata*) and
// the dynamic string table: "cu" + an upper-case letter + identifier characters, starting at the
// section start or after a NUL; those the file imports or defines (`info`) are left out. Newest
// first, then by name. `sections`: fatbin::ReadElfSections of the same bytes (none: nothing).
std::vector<NamedEntryPoint> FindNamedEntryPoints(const elf::ElfInfo& info,
                                                  const std::vector<fatbin::SectionInfo>& sections,
                                                  const uint8_t* data, size_t size);

// Whether the cudyn loader may be compiled in without the dynamic symbols showing it: the file
// imports no table entry point, defines none, needs neither libcuda.so* nor libcudyn_cuda.so*
// and is not a libcuda itself. (An executable linked with cudyn's static drop-in exports
// nothing, so only its bytes can tell.) Only then is the whole file searched for the marker.
bool MayEmbedCudynLoader(const elf::ElfInfo& info);

// The string every build of the cudyn loader carries (the documented environment variable it
// reads), searched in the whole image: no size limit.
bool HasCudynLoaderMarker(const uint8_t* data, size_t size);

}  // namespace layers
}  // namespace cudyn

#endif  // CUDYN_TOOLS_LAYERS_ENTRY_POINTS_H_
