// CUresult names and strings as the real drivers' own cuGetErrorName/cuGetErrorString answer
// them ("no error", "invalid argument", ...), so they work with no driver loaded (the drop-in's
// cuGetErrorName/cuGetErrorString fall back to them; with a driver open they ask the driver).
//
// The data: version_tables/inputs/error_strings/<major>.tsv, dumped from drivers 418..580 by
// version_tables/dump_error_strings.c; the Bazel genrule //version_tables:error_strings_inc turns
// them into the X-macro list included here (per code, the newest knowing driver's text).
#include "loader/cudyn.h"

namespace cudyn {
namespace {

struct ResultText {
  int value;
  const char* name;
  const char* text;
};

#define CUDYN_ERROR_STRING(code, name, text, first_major, last_major) {code, name, text},
constexpr ResultText kResults[] = {
#include "version_tables/cudyn_error_strings.inc"
};
#undef CUDYN_ERROR_STRING

constexpr int kResultCount = static_cast<int>(sizeof(kResults) / sizeof(kResults[0]));

constexpr bool Ascending() {
  for (int i = 1; i < kResultCount; ++i) {
    if (kResults[i - 1].value >= kResults[i].value) return false;
  }
  return true;
}
static_assert(Ascending(), "the generator emits codes in ascending order");

const ResultText* Find(int result) {
  int lo = 0, hi = kResultCount;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (kResults[mid].value < result) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < kResultCount && kResults[lo].value == result ? &kResults[lo] : nullptr;
}

}  // namespace

int ResultName(int result, const char** out) {
  const ResultText* r = Find(result);
  if (out == nullptr) return kCudaErrorInvalidValue;
  *out = r == nullptr ? nullptr : r->name;
  if (r == nullptr) return kCudaErrorInvalidValue;
  return kCudaSuccess;
}

int ResultString(int result, const char** out) {
  const ResultText* r = Find(result);
  if (out == nullptr) return kCudaErrorInvalidValue;
  *out = r == nullptr ? nullptr : r->text;
  if (r == nullptr) return kCudaErrorInvalidValue;
  return kCudaSuccess;
}

}  // namespace cudyn
