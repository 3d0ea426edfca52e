#include "tools/layers/runtime_layer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "loader/cudart_family.h"
#include "loader/runtime_fingerprint.h"
#include "tools/fatbin/fatbin_reader.h"

namespace cudyn {
namespace layers {
namespace {

constexpr const char* kStaticMarkers[] = {
    "CUDA driver version is insufficient for CUDA runtime version",
    "cudaErrorInsufficientDriver",
};

bool Contains(const uint8_t* data, size_t size, const char* s) {
  return memmem(data, size, s, std::strlen(s)) != nullptr;
}

}  // namespace

int FindRuntimeVersionTable(const uint8_t* data, size_t size, size_t* records) {
  return FindRuntimeVersionTableInElf(data, size, nullptr, records);
}

const char* RuntimeLinkageName(RuntimeLinkage l) {
  switch (l) {
    case RuntimeLinkage::kDynamic: return "dynamic";
    case RuntimeLinkage::kStatic: return "static";
    case RuntimeLinkage::kIsRuntime: return "is_runtime";
    case RuntimeLinkage::kLibraryRelease: return "library_release";
    default: return "none";
  }
}

RuntimeLayer AnalyzeRuntime(const elf::ElfInfo& elf, const uint8_t* data, size_t size) {
  RuntimeLayer r;
  if (int v = CudartSonameMinDriver(elf.soname)) {
    r.linkage = RuntimeLinkage::kIsRuntime;
    r.library = elf.soname;
    r.runtime_version = v;
    r.min_driver = v;
    r.evidence.push_back("DT_SONAME " + elf.soname);
    size_t records = 0;
    if (int t = FindRuntimeVersionTable(data, size, &records)) {
      r.runtime_version = t;  // 11080 for libcudart.so.11.0 of CUDA 11.8
      r.evidence.push_back("versioned entry-point table of " + std::to_string(records) +
                           " runtime functions, newest " + std::to_string(t));
    }
    return r;
  }
  for (const auto& n : elf.needed) {
    if (int v = CudartSonameMinDriver(n)) {
      if (r.linkage == RuntimeLinkage::kNone || v > r.min_driver) {
        r.linkage = RuntimeLinkage::kDynamic;
        r.library = n;
        r.runtime_version = v;
        r.min_driver = v;
      }
      r.evidence.push_back("DT_NEEDED " + n);
    }
  }
  if (r.linkage != RuntimeLinkage::kNone || data == nullptr) return r;
  // 1. The runtime's versioned entry-point table alone identifies it (and its version).
  size_t records = 0;
  if (int v = FindRuntimeVersionTable(data, size, &records)) {
    r.linkage = RuntimeLinkage::kStatic;
    r.runtime_version = v;
    r.min_driver = RuntimeVersionMinDriver(v);
    r.evidence.push_back("versioned entry-point table of " + std::to_string(records) +
                         " runtime functions, newest " + std::to_string(v));
    return r;
  }
  // 2. Else its error strings, with the version from the nvcc ident if any.
  // Where the runtime's strings live: the allocated, non-code data sections (not the fatbins,
  // not .text), so a 500 MB library is not scanned whole. Without section headers: everything.
  std::vector<std::pair<const uint8_t*, size_t>> regions;
  std::vector<fatbin::SectionInfo> secs;
  if (fatbin::ReadElfSections(data, size, &secs)) {
    for (const auto& s : secs) {
      if (s.type != 1 || !(s.flags & 0x2) || (s.flags & 0x4) || s.name == ".nv_fatbin" ||
          s.name == "__nv_relfatbin") {
        continue;
      }
      regions.emplace_back(data + s.offset, static_cast<size_t>(s.size));
    }
  } else {
    regions.emplace_back(data, size);
  }
  for (const char* m : kStaticMarkers) {
    bool found = false;
    for (const auto& reg : regions) {
      if (Contains(reg.first, reg.second, m)) {
        found = true;
        break;
      }
    }
    if (!found) return r;
  }
  r.linkage = RuntimeLinkage::kStatic;
  r.evidence.push_back(std::string("runtime strings \"") + kStaticMarkers[0] + "\", \"" +
                       kStaticMarkers[1] + "\"");
  if (int rel = fatbin::FindToolkitRelease(data, size)) {
    r.runtime_version = rel;
    r.min_driver = RuntimeVersionMinDriver(rel);
    r.evidence.push_back("nvcc ident \"Cuda compilation tools, release " +
                         std::to_string(rel / 1000) + "." + std::to_string(rel % 1000 / 10) + "\"");
  }
  return r;
}

RuntimeLayer AnalyzeRuntimeFile(const std::string& path) {
  RuntimeLayer r;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.evidence.push_back(std::string("cannot open: ") + std::strerror(errno));
    return r;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    close(fd);
    r.evidence.push_back("not a regular, non-empty file");
    return r;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    r.evidence.push_back("cannot mmap");
    return r;
  }
  const auto* data = static_cast<const uint8_t*>(map);
  elf::ElfResult er = elf::ParseElf(data, size);
  if (er.ok()) {
    r = AnalyzeRuntime(er.value(), data, size);
  } else {
    r.evidence.push_back("ELF: " + er.error().message);
  }
  munmap(map, size);
  return r;
}

std::string CudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace layers
}  // namespace cudyn
