#include "tools/layers/analyze.h"

#include <utility>

#include "tools/util/mapped_file.h"

namespace cudyn {
namespace layers {

FileLayers AnalyzeImage(const uint8_t* data, size_t size) {
  FileLayers f;
  elf::ElfResult er = elf::ParseElf(data, size);
  if (!er.ok()) {
    f.error = er.error().message;
    return f;
  }
  f.elf = std::move(er).value();
  f.runtime = AnalyzeRuntime(f.elf, data, size);
  fatbin::FatbinResult fr = fatbin::ParseFatbins(data, size);
  if (!fr.ok) {
    f.error = fr.error;
    return f;
  }
  f.kernels = AnalyzeKernels(fr.info);
  f.kernels.toolkit_release = FindKernelToolkit(data, size, fr.info);
  std::vector<fatbin::SectionInfo> sections;
  const bool have_sections = fatbin::ReadElfSections(data, size, &sections);
  if (!have_sections) sections.clear();
  // Registered by a runtime, or loaded by the file's own code? (see KernelLayer::self_loaded)
  constexpr uint16_t kElfRelocatable = 1;
  if (f.kernels.has_device_code && have_sections) {
    bool registered = false;
    for (const fatbin::SectionInfo& s : sections) {
      if (s.name == ".nvFatBinSegment" || s.name == "__nv_relfatbin") registered = true;
      if (s.name == "__nv_relfatbin") f.kernels.relocatable = true;
    }
    if (f.elf.elf_type != kElfRelocatable) f.kernels.self_loaded = !registered;
  }
  f.named_entry_points = FindNamedEntryPoints(f.elf, sections, data, size);
  f.cudyn_loader_marker = MayEmbedCudynLoader(f.elf) && HasCudynLoaderMarker(data, size);
  f.ok = true;
  return f;
}

FileLayers AnalyzeFile(const std::string& path) {
  MappedFile file;
  FileLayers f;
  if (!file.Open(path, &f.error)) return f;
  return AnalyzeImage(file.data(), file.size());
}

}  // namespace layers
}  // namespace cudyn
