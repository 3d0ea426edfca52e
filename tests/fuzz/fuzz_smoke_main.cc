// Replays inputs through LLVMFuzzerTestOneInput without libFuzzer, so Bazel (gcc, and the
// sanitizer configs) builds and exercises the fuzz targets:
//   <target>_smoke [--mutations=N] FILE...
// Each file runs as is, then N (default 2000) deterministic mutations of it (bytes flipped, inserted, cut;
// lines swapped between files), the cheap version of what the fuzzer does; a large file gets fewer,
// at most kMutatedBytesPerFile bytes of mutated input in all (a 6 MB zip took 300 full parses
// under ASan for what its first few already cover). Also reproduces a
// crash-* file from run_fuzzer.sh under a debugger (then only that file matters).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

uint64_t g_state = 0x9e3779b97f4a7c15ull;
uint64_t Next() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return g_state;
}

const char* const kInteresting[] = {"\n", "0", "-1", "99999", "100000", "11.4", "12.", ".5",
                                    "on", "ON", "yes", "trace", "off", "/", "..", "cuMemAdvise",
                                    "_v2", "_ptds", "2", "18446744073709551615", "2147483648",
                                    "ffffffffffffffff", "\xff", " "};

std::vector<uint8_t> Mutate(std::vector<uint8_t> in, const std::vector<std::vector<uint8_t>>& all) {
  int steps = 1 + static_cast<int>(Next() % 4);
  for (int s = 0; s < steps; ++s) {
    size_t pos = in.empty() ? 0 : Next() % (in.size() + 1);
    switch (Next() % 5) {
      case 0:
        if (!in.empty()) in[pos % in.size()] ^= static_cast<uint8_t>(1u << (Next() % 8));
        break;
      case 1:
        in.insert(in.begin() + pos, static_cast<uint8_t>(Next()));
        break;
      case 2:
        if (!in.empty()) in.resize(pos % in.size());
        break;
      case 3: {
        const char* word = kInteresting[Next() % (sizeof(kInteresting) / sizeof(kInteresting[0]))];
        in.insert(in.begin() + pos, word, word + std::char_traits<char>::length(word));
        break;
      }
      default: {
        const std::vector<uint8_t>& other = all[Next() % all.size()];
        in.insert(in.begin() + pos, other.begin(), other.end());
        break;
      }
    }
  }
  return in;
}

// The mutated bytes one file may cost (see the top), and the mutations a file gets however large.
constexpr size_t kMutatedBytesPerFile = size_t{64} << 20;
constexpr long kMinMutations = 8;

}  // namespace

int main(int argc, char** argv) {
  long mutations = 2000;
  int first = 1;
  if (argc > 1 && std::strncmp(argv[1], "--mutations=", 12) == 0) {
    char* end = nullptr;
    mutations = std::strtol(argv[1] + 12, &end, 10);
    if (end == argv[1] + 12 || *end != '\0' || mutations < 0) {
      std::fprintf(stderr, "bad %s (want --mutations=N, N >= 0)\n", argv[1]);
      return 2;
    }
    first = 2;
  }
  std::vector<std::vector<uint8_t>> inputs;
  for (int i = first; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    inputs.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  if (inputs.empty()) inputs.emplace_back();
  for (size_t i = 0; i < inputs.size(); ++i) {
    LLVMFuzzerTestOneInput(inputs[i].data(), inputs[i].size());
    const size_t size = inputs[i].empty() ? 1 : inputs[i].size();
    const long by_size = std::max(kMinMutations, static_cast<long>(kMutatedBytesPerFile / size));
    const long file_mutations = std::min(mutations, by_size);
    for (long m = 0; m < file_mutations; ++m) {
      std::vector<uint8_t> mutated = Mutate(inputs[i], inputs);
      LLVMFuzzerTestOneInput(mutated.data(), mutated.size());
    }
    std::printf("ok %s\n",
                first + i < static_cast<size_t>(argc) ? argv[first + i] : "(empty)");
  }
  return 0;
}
