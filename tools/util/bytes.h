// Little-endian loads from unaligned bytes, for the file readers of cudyn-check (fatbins, zips,
// ld.so.cache, the runtime's entry-point table): every format they read is little-endian, whatever
// the host. The caller has checked that the bytes are in bounds.
#ifndef CUDYN_TOOLS_UTIL_BYTES_H_
#define CUDYN_TOOLS_UTIL_BYTES_H_

#include <cstdint>

namespace cudyn {
namespace bytes {

inline uint16_t LoadLe16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline uint32_t LoadLe32(const uint8_t* p) {
  return uint32_t{LoadLe16(p)} | uint32_t{LoadLe16(p + 2)} << 16;
}
inline uint64_t LoadLe64(const uint8_t* p) {
  return uint64_t{LoadLe32(p)} | uint64_t{LoadLe32(p + 4)} << 32;
}

}  // namespace bytes
}  // namespace cudyn

#endif  // CUDYN_TOOLS_UTIL_BYTES_H_
