// Helpers shared by the libFuzzer targets that drive cudyn through the environment
// (env_fuzzer.cc, cudart_fuzzer.cc): the input split into lines, and variables set from them.
#ifndef CUDYN_TESTS_FUZZ_FUZZ_INPUT_H_
#define CUDYN_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace cudyn {
namespace fuzz {

// The input as `count` lines ('\n' separated, missing ones empty); NUL bytes are dropped because
// environment values cannot hold them.
inline std::vector<std::string> Lines(const uint8_t* data, size_t size, size_t count) {
  std::vector<std::string> lines(count);
  size_t field = 0;
  for (size_t i = 0; i < size && field < lines.size(); ++i) {
    if (data[i] == '\n') {
      ++field;
    } else if (data[i] != '\0') {
      lines[field] += static_cast<char>(data[i]);
    }
  }
  return lines;
}

// Sets `name` to `value`, or unsets it when `value` is empty.
inline void SetOrUnset(const char* name, const std::string& value) {
  if (value.empty()) {
    unsetenv(name);
  } else {
    setenv(name, value.c_str(), 1);
  }
}

}  // namespace fuzz
}  // namespace cudyn

#endif  // CUDYN_TESTS_FUZZ_FUZZ_INPUT_H_
