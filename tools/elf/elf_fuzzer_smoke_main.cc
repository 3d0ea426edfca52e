// Replays files through LLVMFuzzerTestOneInput without libFuzzer: `elf_fuzzer_smoke FILE...`.
// Lets Bazel build and exercise elf_fuzzer.cc with the default toolchain, and reproduces a
// crash-* file from tools/elf/run_fuzzer.sh under a debugger.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    // Every prefix as well: the cheap version of what the fuzzer does.
    for (size_t len = 0; len < bytes.size() && len < 8192; ++len) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + len);
      LLVMFuzzerTestOneInput(prefix.data(), prefix.size());
    }
    std::printf("ok %s\n", argv[i]);
  }
  return 0;
}
