// cudaDeviceProp's fields as the tests see them: name, offset in the 13.0 layout, size, and offset
// in the 12.x and 11.x layouts (-1 where that family lacks the field), plus each family's struct
// size — the generated table of the real headers' facts (version_tables/generated_cudart/
// cudart_device_prop.inc), which the loader's conversion reads too.
#ifndef CUDYN_TESTS_UTIL_DEVICE_PROP_FIELDS_H_
#define CUDYN_TESTS_UTIL_DEVICE_PROP_FIELDS_H_

namespace cudyn::testing {

struct PropField {
  const char* name;
  int off13, size, off12, off11;
};

constexpr PropField kPropFields[] = {
#define CUDYN_DEVICE_PROP_FIELD(name, off13, size, off12, off11) {#name, off13, size, off12, off11},
#define CUDYN_DEVICE_PROP_SIZE(family, size)
#include "version_tables/generated_cudart/cudart_device_prop.inc"
#undef CUDYN_DEVICE_PROP_FIELD
#undef CUDYN_DEVICE_PROP_SIZE
};

// sizeof(cudaDeviceProp) in the headers of `family` (11, 12, 13), 0 for another.
constexpr int PropSize(int family) {
#define CUDYN_DEVICE_PROP_FIELD(name, off13, size, off12, off11)
#define CUDYN_DEVICE_PROP_SIZE(f, size) \
  if (family == f) return size;
#include "version_tables/generated_cudart/cudart_device_prop.inc"
#undef CUDYN_DEVICE_PROP_FIELD
#undef CUDYN_DEVICE_PROP_SIZE
  return 0;
}

}  // namespace cudyn::testing

#endif  // CUDYN_TESTS_UTIL_DEVICE_PROP_FIELDS_H_
