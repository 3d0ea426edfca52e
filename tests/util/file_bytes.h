// Whole-file reads for tests: one fstat and read() calls straight into the buffer.
//
// Tests read real drivers (30 MB and more) and copy or cut them; through istreambuf_iterator,
// compiled at -O0 with ASan+UBSan, one such read took seconds, a character at a time.
//
//   ReadFileBytes<std::string>(path, &out)   false (out empty) if the file cannot be read whole
//   ReadFileBytes<std::vector<uint8_t>>(...) the same into a byte vector
#ifndef CUDYN_TESTS_UTIL_FILE_BYTES_H_
#define CUDYN_TESTS_UTIL_FILE_BYTES_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace cudyn {
namespace testing {

template <class Bytes>
bool ReadFileBytes(const std::string& path, Bytes* out) {
  out->clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (ok) {
    out->resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out->size()) {
      const ssize_t n = ::read(fd, &(*out)[done], out->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = false;
        break;
      }
      done += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  if (!ok) out->clear();
  return ok;
}

// The file's bytes, or an empty container if it cannot be read (tests assert on the content).
template <class Bytes = std::string>
Bytes ReadFileBytes(const std::string& path) {
  Bytes bytes;
  ReadFileBytes(path, &bytes);
  return bytes;
}

}  // namespace testing
}  // namespace cudyn

#endif  // CUDYN_TESTS_UTIL_FILE_BYTES_H_
