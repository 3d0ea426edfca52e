// A whole file mapped read-only, for the readers of cudyn-check that look at every byte of a file
// (the layer analyses, wheels): one mmap per file, however many readers use it. No size limit;
// the kernel pages the file in as it is read.
//
// Caveat inherent to mmap: if another process truncates the file while it is read, the kernel
// delivers SIGBUS. Open's messages are the ELF reader's for the same conditions
// (tools/elf/elf_reader.h), so a file reports the same error whichever reader meets it first.
#ifndef CUDYN_TOOLS_UTIL_MAPPED_FILE_H_
#define CUDYN_TOOLS_UTIL_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace cudyn {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path` (a regular, non-empty file). False + *error ("cannot open: <strerror>", "path is
  // a directory", "not a regular file (fifo)", "empty file", "cannot mmap: <strerror>", ...).
  // Never blocks on a FIFO, never throws.
  bool Open(const std::string& path, std::string* error) noexcept;

  const uint8_t* data() const { return static_cast<const uint8_t*>(map_); }
  size_t size() const { return size_; }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cudyn

#endif  // CUDYN_TOOLS_UTIL_MAPPED_FILE_H_
