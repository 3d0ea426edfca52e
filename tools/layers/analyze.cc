#include "tools/layers/analyze.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

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
  // Registered by a runtime, or loaded by the file's own code? (see KernelLayer::self_loaded)
  constexpr uint16_t kElfRelocatable = 1;
  std::vector<fatbin::SectionInfo> sections;
  if (f.kernels.has_device_code && f.elf.elf_type != kElfRelocatable &&
      fatbin::ReadElfSections(data, size, &sections)) {
    bool registered = false;
    for (const fatbin::SectionInfo& s : sections) {
      if (s.name == ".nvFatBinSegment" || s.name == "__nv_relfatbin") registered = true;
    }
    f.kernels.self_loaded = !registered;
  }
  f.ok = true;
  return f;
}

FileLayers AnalyzeFile(const std::string& path) {
  FileLayers f;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    f.error = std::string("cannot open: ") + std::strerror(errno);
    return f;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    f.error = S_ISDIR(st.st_mode) ? "path is a directory" : "not a regular file";
    return f;
  }
  if (st.st_size == 0) {
    close(fd);
    f.error = "empty file";
    return f;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  close(fd);
  if (map == MAP_FAILED) {
    f.error = std::string("cannot mmap: ") + std::strerror(err);
    return f;
  }
  f = AnalyzeImage(static_cast<const uint8_t*>(map), size);
  munmap(map, size);
  return f;
}

}  // namespace layers
}  // namespace cudyn
