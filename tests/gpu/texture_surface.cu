// Textures and surfaces through the runtime API whose descriptors changed layout in CUDA 13.0
// (cudaResourceDesc 64 -> 144 B, cudaResourceViewDesc 48 -> 112 B, 11.x cudaTextureDesc 68 ->
// 72 B): built against the 13.0 headers, run on each real runtime through `cudyn run --runtime`,
// it exercises cudyn's layout-converting adapters on 11.x / 12.x and the native entries on 13.0.
// Each part prints a deterministic checksum line; the last line is "texture_surface: OK". Any CUDA
// error or wrong value exits non-zero.
//
// Build (sm_90, shared runtime so cudyn can swap it):
//   /usr/local/cuda-13.0/bin/nvcc -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart shared \
//       -o texture_surface tests/gpu/texture_surface.cu
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t rc_ = (call);                                                            \
    if (rc_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "texture_surface: %s failed: %s (%d) at line %d\n", #call,    \
                   cudaGetErrorString(rc_), static_cast<int>(rc_), __LINE__);            \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

static void Fail(const char* what) {
  std::fprintf(stderr, "texture_surface: FAILED: %s\n", what);
  std::exit(2);
}

// A checksum of floats rounded to 1/1024, so the line is the same on every runtime and GPU.
static unsigned long long Checksum(const std::vector<float>& v) {
  unsigned long long h = 1469598103934665603ull;
  for (float x : v) {
    long long q = std::llround(static_cast<double>(x) * 1024.0);
    h = (h ^ static_cast<unsigned long long>(q)) * 1099511628211ull;
  }
  return h;
}

constexpr int kW = 64, kH = 32, kLayers = 4;

__global__ void SampleLinearNormalized(cudaTextureObject_t tex, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  // Between texel centres: linear filtering blends the four neighbours.
  float u = (x + 0.75f) / w, v = (y + 0.25f) / h;
  out[y * w + x] = tex2D<float>(tex, u, v);
}

__global__ void SampleLayered(cudaTextureObject_t tex, float* out, int w, int h, int layers) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  for (int l = 0; l < layers; ++l) {
    out[(l * h + y) * w + x] = tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, l);
  }
}

__global__ void SamplePitch(cudaTextureObject_t tex, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

// out(x, y) = 2 * in(x, y) + 1, through surfaces.
__global__ void SurfaceTransform(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v = surf2Dread<float>(in, x * sizeof(float), y);
  surf2Dwrite(2.0f * v + 1.0f, out, x * sizeof(float), y);
}

static float Texel(int x, int y) { return static_cast<float>((x * 7 + y * 13) % 32) / 4.0f; }

static float HostLinear(const std::vector<float>& img, float u, float v) {
  // The CUDA linear filter: coordinates minus 0.5, 8-bit fractional weights; clamp addressing.
  float xb = u * kW - 0.5f, yb = v * kH - 0.5f;
  int x0 = static_cast<int>(std::floor(xb)), y0 = static_cast<int>(std::floor(yb));
  float a = xb - x0, b = yb - y0;
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : x >= kW ? kW - 1 : x;
    y = y < 0 ? 0 : y >= kH ? kH - 1 : y;
    return img[y * kW + x];
  };
  return (1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) +
         (1 - a) * b * at(x0, y0 + 1) + a * b * at(x0 + 1, y0 + 1);
}

int main() {
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  std::printf("texture_surface: runtime %d driver %d\n", runtime, driver);
  const dim3 block(16, 8), grid((kW + 15) / 16, (kH + 7) / 8);
  std::vector<float> img(kW * kH);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) img[y * kW + x] = Texel(x, y);
  }
  float* d_out = nullptr;
  CHECK(cudaMalloc(&d_out, sizeof(float) * kW * kH * kLayers));
  std::vector<float> out(kW * kH * kLayers);

  // Part 1: 2D float array texture, linear filtering, normalized coordinates; then the resource
  // descriptor read back (cudaGetTextureObjectResourceDesc) and the texture descriptor too.
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CHECK(cudaMallocArray(&array, &fdesc, kW, kH, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), kW * sizeof(float), kW * sizeof(float), kH,
                            cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof(td));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  SampleLinearNormalized<<<grid, block>>>(tex, d_out, kW, kH);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * kW * kH, cudaMemcpyDeviceToHost));
  std::vector<float> part(out.begin(), out.begin() + kW * kH);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      float want = HostLinear(img, (x + 0.75f) / kW, (y + 0.25f) / kH);
      if (std::fabs(part[y * kW + x] - want) > 0.05f) Fail("linear normalized tex2D");
    }
  }
  std::printf("texture_surface: linear2d checksum %016llx\n", Checksum(part));
  cudaResourceDesc back;
  std::memset(&back, 0xab, sizeof(back));
  CHECK(cudaGetTextureObjectResourceDesc(&back, tex));
  if (back.resType != cudaResourceTypeArray || back.res.array.array != array || back.flags != 0) {
    Fail("cudaGetTextureObjectResourceDesc round trip");
  }
  cudaTextureDesc tback;
  std::memset(&tback, 0xab, sizeof(tback));
  CHECK(cudaGetTextureObjectTextureDesc(&tback, tex));
  if (tback.filterMode != cudaFilterModeLinear || tback.normalizedCoords != 1 ||
      tback.addressMode[0] != cudaAddressModeClamp) {
    Fail("cudaGetTextureObjectTextureDesc round trip");
  }
  std::printf("texture_surface: resource_desc resType %d array_match 1 flags %u filter %d\n",
              static_cast<int>(back.resType), back.flags, static_cast<int>(tback.filterMode));
  CHECK(cudaDestroyTextureObject(tex));

  // Part 2: a layered texture (cudaMalloc3DArray, cudaArrayLayered), point sampling per layer.
  cudaArray_t layered = nullptr;
  CHECK(cudaMalloc3DArray(&layered, &fdesc, make_cudaExtent(kW, kH, kLayers), cudaArrayLayered));
  std::vector<float> stack(kW * kH * kLayers);
  for (int l = 0; l < kLayers; ++l) {
    for (int i = 0; i < kW * kH; ++i) stack[l * kW * kH + i] = img[i] + 100.0f * l;
  }
  cudaMemcpy3DParms p3 = {};
  p3.srcPtr = make_cudaPitchedPtr(stack.data(), kW * sizeof(float), kW, kH);
  p3.dstArray = layered;
  p3.extent = make_cudaExtent(kW, kH, kLayers);
  p3.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p3));
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = layered;
  std::memset(&td, 0, sizeof(td));
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  SampleLayered<<<grid, block>>>(tex, d_out, kW, kH, kLayers);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * kW * kH * kLayers, cudaMemcpyDeviceToHost));
  if (out != stack) Fail("layered tex2DLayered");
  std::printf("texture_surface: layered checksum %016llx\n", Checksum(out));
  CHECK(cudaDestroyTextureObject(tex));

  // Part 3: a pitch-linear texture (cudaResourceTypePitch2D) with a resource view-free read, and
  // its descriptor read back: devPtr, width, height and pitch must survive the conversion.
  float* pitched = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, kW * sizeof(float), kH));
  CHECK(cudaMemcpy2D(pitched, pitch, img.data(), kW * sizeof(float), kW * sizeof(float), kH,
                     cudaMemcpyHostToDevice));
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = pitched;
  res.res.pitch2D.desc = fdesc;
  res.res.pitch2D.width = kW;
  res.res.pitch2D.height = kH;
  res.res.pitch2D.pitchInBytes = pitch;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  SamplePitch<<<grid, block>>>(tex, d_out, kW, kH);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * kW * kH, cudaMemcpyDeviceToHost));
  part.assign(out.begin(), out.begin() + kW * kH);
  if (part != img) Fail("pitch-linear tex2D");
  std::memset(&back, 0xab, sizeof(back));
  CHECK(cudaGetTextureObjectResourceDesc(&back, tex));
  if (back.resType != cudaResourceTypePitch2D || back.res.pitch2D.devPtr != pitched ||
      back.res.pitch2D.width != static_cast<size_t>(kW) ||
      back.res.pitch2D.height != static_cast<size_t>(kH) || back.res.pitch2D.pitchInBytes != pitch ||
      back.res.pitch2D.desc.x != 32 || back.res.pitch2D.desc.f != cudaChannelFormatKindFloat ||
      back.flags != 0) {
    Fail("pitch2D cudaGetTextureObjectResourceDesc round trip");
  }
  std::printf("texture_surface: pitch2d checksum %016llx desc_roundtrip 1\n", Checksum(part));
  CHECK(cudaDestroyTextureObject(tex));

  // Part 4: surfaces: read the array through one surface, write 2v+1 into another; then
  // cudaGetSurfaceObjectResourceDesc.
  cudaArray_t array_out = nullptr;
  CHECK(cudaMallocArray(&array_out, &fdesc, kW, kH, cudaArraySurfaceLoadStore));
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaSurfaceObject_t surf_in = 0, surf_out = 0;
  CHECK(cudaCreateSurfaceObject(&surf_in, &res));
  res.res.array.array = array_out;
  CHECK(cudaCreateSurfaceObject(&surf_out, &res));
  SurfaceTransform<<<grid, block>>>(surf_in, surf_out, kW, kH);
  CHECK(cudaGetLastError());
  part.assign(kW * kH, 0.0f);
  CHECK(cudaMemcpy2DFromArray(part.data(), kW * sizeof(float), array_out, 0, 0, kW * sizeof(float),
                              kH, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kW * kH; ++i) {
    if (part[i] != 2.0f * img[i] + 1.0f) Fail("surf2Dread / surf2Dwrite");
  }
  std::memset(&back, 0xab, sizeof(back));
  CHECK(cudaGetSurfaceObjectResourceDesc(&back, surf_out));
  if (back.resType != cudaResourceTypeArray || back.res.array.array != array_out || back.flags != 0) {
    Fail("cudaGetSurfaceObjectResourceDesc round trip");
  }
  std::printf("texture_surface: surface checksum %016llx\n", Checksum(part));
  CHECK(cudaDestroySurfaceObject(surf_in));
  CHECK(cudaDestroySurfaceObject(surf_out));

  CHECK(cudaFreeArray(array));
  CHECK(cudaFreeArray(array_out));
  CHECK(cudaFreeArray(layered));
  CHECK(cudaFree(pitched));
  CHECK(cudaFree(d_out));
  CHECK(cudaDeviceSynchronize());
  std::printf("texture_surface: OK\n");
  return 0;
}
