#include "tools/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "tools/util/file_type.h"

namespace cudyn {
namespace {

void SetError(std::string* error, const std::string& message) noexcept {
  if (error == nullptr) return;
  try {
    *error = message;
  } catch (...) {
  }
}

}  // namespace

MappedFile::~MappedFile() {
  if (map_ != nullptr) munmap(map_, size_);
}

bool MappedFile::Open(const std::string& path, std::string* error) noexcept {
  try {
    if (map_ != nullptr) {
      munmap(map_, size_);
      map_ = nullptr;
      size_ = 0;
    }
    if (path.empty()) {
      SetError(error, "cannot open: empty path");
      return false;
    }
    // O_NONBLOCK: opening a FIFO must not wait for a writer. It has no effect on regular files.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      const int err = errno;
      SetError(error, err == EISDIR ? std::string("path is a directory")
                                    : std::string("cannot open: ") + std::strerror(err));
      return false;
    }
    struct stat st;
    std::string problem;
    if (::fstat(fd, &st) != 0) {
      problem = std::string("cannot stat: ") + std::strerror(errno);
    } else if (S_ISDIR(st.st_mode)) {
      problem = "path is a directory";
    } else if (!S_ISREG(st.st_mode)) {
      problem = std::string("not a regular file (") + FileTypeName(st.st_mode) + ")";
    } else if (st.st_size <= 0) {
      problem = "empty file";
    } else if (static_cast<uint64_t>(st.st_size) > std::numeric_limits<size_t>::max()) {
      problem = "file too large";
    }
    if (!problem.empty()) {
      ::close(fd);
      SetError(error, problem);
      return false;
    }
    const size_t size = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (map == MAP_FAILED) {
      SetError(error, std::string("cannot mmap: ") + std::strerror(err));
      return false;
    }
    map_ = map;
    size_ = size;
    return true;
  } catch (...) {
    SetError(error, "out of memory");
    return false;
  }
}

}  // namespace cudyn
