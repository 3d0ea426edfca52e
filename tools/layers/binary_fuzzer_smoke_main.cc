// Replays files through LLVMFuzzerTestOneInput without libFuzzer: `binary_fuzzer_smoke FILE...`,
// each file whole, every prefix of its first 8 KiB, and copies with single bytes flipped in the
// headers. Lets Bazel exercise binary_fuzzer.cc with the default toolchain and reproduces a
// crash-* file from tools/layers/run_fuzzer.sh under a debugger.
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
    for (size_t len = 0; len < bytes.size() && len < 8192; ++len) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + len);
      LLVMFuzzerTestOneInput(prefix.data(), prefix.size());
    }
    for (size_t pos = 0; pos < bytes.size() && pos < 256; ++pos) {
      for (uint8_t v : {0x00, 0xff, 0x7f, 0x80}) {
        std::vector<uint8_t> copy = bytes;
        copy[pos] = v;
        LLVMFuzzerTestOneInput(copy.data(), copy.size());
      }
    }
    std::printf("ok %s\n", argv[i]);
  }
  return 0;
}
