// CUresult names and descriptions, generated from cuda.h's CUresult documentation, so they work
// with no driver loaded (cuGetErrorName/cuGetErrorString must).
#include "loader/cudyn.h"

namespace cudyn {
namespace {

struct ResultText {
  int value;
  const char* name;
  const char* description;
};

#define CUDYN_RESULT(name, value, description) {value, #name, description},
const ResultText kResults[] = {
#include "version_tables/generated/cudyn_results.inc"
};
#undef CUDYN_RESULT

const ResultText* Find(int result) {
  for (const ResultText& r : kResults) {
    if (r.value == result) return &r;
  }
  return nullptr;
}

}  // namespace

int ResultName(int result, const char** out) {
  const ResultText* r = Find(result);
  if (r == nullptr || out == nullptr) return kCudaErrorInvalidValue;
  *out = r->name;
  return kCudaSuccess;
}

int ResultString(int result, const char** out) {
  const ResultText* r = Find(result);
  if (r == nullptr || out == nullptr) return kCudaErrorInvalidValue;
  *out = r->description;
  return kCudaSuccess;
}

}  // namespace cudyn
