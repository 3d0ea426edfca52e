// The name of a file type that is not a regular file, for "not a regular file (fifo)" messages of
// the readers that map files (tools/elf, tools/util/mapped_file). Header-only: the libFuzzer
// builds compile the readers' sources without Bazel.
#ifndef CUDYN_TOOLS_UTIL_FILE_TYPE_H_
#define CUDYN_TOOLS_UTIL_FILE_TYPE_H_

#include <sys/stat.h>

namespace cudyn {

inline const char* FileTypeName(mode_t mode) {
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  return "unknown type";
}

}  // namespace cudyn

#endif  // CUDYN_TOOLS_UTIL_FILE_TYPE_H_
