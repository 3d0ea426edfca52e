/* The libraries cudyn chooses by the driver, used as a 13.0-header program uses them (NEEDED
   libcufft.so.12, libcurand.so.10, libcusparse.so.12, libcusolver.so.12, libcublasLt.so.13,
   libnvJitLink.so.13, libcudart.so.13): cuRAND uniform numbers, a cuFFT C2C forward and inverse,
   a cuSPARSE CSR SpMV, a cuSOLVER LU factorization and solve, a cuBLASLt matmul, nvJitLink
   linking PTX into a cubin that the driver loads and launches, and NVRTC compiling CUDA C++ to
   LTO-IR that nvJitLink links (-lto) into a cubin, loaded and launched the same way. Every result is printed exactly
   (hex of the float bits or sums), so runs compare line by line; each library's own version call
   and status codes are printed too. Build (GPU machine):
     gcc -O2 -o libraries_probe tests/gpu/libraries_probe.c -I$CUDA/include -L$CUDA/lib64 \
       -lcufft -lcurand -lcusparse -lcusolver -lcublasLt -lnvJitLink -lnvrtc -lcudart -lcuda -lm */
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <math.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdio.h>
#include <string.h>

static unsigned Bits(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* FNV-1a over the bytes: one line per result. */
static unsigned long long Hash(const void* data, size_t size) {
  unsigned long long h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; ++i) h = (h ^ ((const unsigned char*)data)[i]) * 1099511628211ULL;
  return h;
}

static void Curand(void) {
  int v = -1;
  int rc = (int)curandGetVersion(&v);
  printf("curand_version_rc=%d curand_version=%d\n", rc, v);
  float* d = NULL;
  float h[1024];
  cudaMalloc((void**)&d, sizeof h);
  curandGenerator_t g;
  rc = (int)curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  printf("curand_create=%d\n", rc);
  if (rc != 0) return;
  printf("curand_seed=%d\n", (int)curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
  printf("curand_generate=%d\n", (int)curandGenerateUniform(g, d, 1024));
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("curand_hash=%016llx first=%08x\n", Hash(h, sizeof h), Bits(h[0]));
  curandDestroyGenerator(g);
  cudaFree(d);
}

static void Cufft(void) {
  enum { N = 256 };
  int v = -1;
  int rc = (int)cufftGetVersion(&v);
  printf("cufft_version_rc=%d cufft_version=%d\n", rc, v);
  cufftComplex h[N], back[N];
  for (int i = 0; i < N; ++i) {
    h[i].x = (float)(i % 7) - 3.0f;
    h[i].y = (float)(i % 5) * 0.5f;
  }
  cufftComplex* d = NULL;
  cudaMalloc((void**)&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cufftHandle plan;
  rc = (int)cufftPlan1d(&plan, N, CUFFT_C2C, 1);
  printf("cufft_plan=%d\n", rc);
  if (rc != 0) return;
  printf("cufft_forward=%d\n", (int)cufftExecC2C(plan, d, d, CUFFT_FORWARD));
  cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
  printf("cufft_forward_hash=%016llx\n", Hash(back, sizeof back));
  /* Releases may round differently: the forward result against a CPU DFT in double precision. */
  double worst_dft = 0;
  for (int k = 0; k < N; ++k) {
    double re = 0, im = 0;
    for (int n = 0; n < N; ++n) {
      double a = -2.0 * M_PI * (double)k * (double)n / N;
      re += h[n].x * cos(a) - h[n].y * sin(a);
      im += h[n].x * sin(a) + h[n].y * cos(a);
    }
    worst_dft = fmax(worst_dft, fmax(fabs(back[k].x - re), fabs(back[k].y - im)));
  }
  printf("cufft_forward_ok=%d\n", worst_dft < 1e-3);
  printf("cufft_inverse=%d\n", (int)cufftExecC2C(plan, d, d, CUFFT_INVERSE));
  cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
  float worst = 0;
  for (int i = 0; i < N; ++i) {
    float ex = back[i].x / N - h[i].x, ey = back[i].y / N - h[i].y;
    if (ex < 0) ex = -ex;
    if (ey < 0) ey = -ey;
    if (ex > worst) worst = ex;
    if (ey > worst) worst = ey;
  }
  printf("cufft_roundtrip_ok=%d\n", worst < 1e-4f);
  cufftDestroy(plan);
  cudaFree(d);
}

static void Cusparse(void) {
  /* y = A x, A = [[1,0,2,0],[0,3,0,0],[4,0,5,6],[0,0,0,7]] in CSR. */
  int v = -1, rows[] = {0, 2, 3, 6, 7}, cols[] = {0, 2, 1, 0, 2, 3, 3};
  float vals[] = {1, 2, 3, 4, 5, 6, 7}, x[] = {1, 2, 3, 4}, y[4] = {0};
  int rc = (int)cusparseGetProperty(MAJOR_VERSION, &v);
  printf("cusparse_property_rc=%d cusparse_major=%d\n", rc, v);
  int *drows, *dcols;
  float *dvals, *dx, *dy;
  cudaMalloc((void**)&drows, sizeof rows);
  cudaMalloc((void**)&dcols, sizeof cols);
  cudaMalloc((void**)&dvals, sizeof vals);
  cudaMalloc((void**)&dx, sizeof x);
  cudaMalloc((void**)&dy, sizeof y);
  cudaMemcpy(drows, rows, sizeof rows, cudaMemcpyHostToDevice);
  cudaMemcpy(dcols, cols, sizeof cols, cudaMemcpyHostToDevice);
  cudaMemcpy(dvals, vals, sizeof vals, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  cusparseHandle_t handle;
  rc = (int)cusparseCreate(&handle);
  printf("cusparse_create=%d\n", rc);
  if (rc != 0) return;
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreateCsr(&a, 4, 4, 7, drows, dcols, dvals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vx, 4, dx, CUDA_R_32F);
  cusparseCreateDnVec(&vy, 4, dy, CUDA_R_32F);
  float alpha = 1, beta = 0;
  size_t size = 0;
  cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                          CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size);
  void* buffer = NULL;
  cudaMalloc(&buffer, size > 0 ? size : 1);
  printf("cusparse_spmv=%d\n", (int)cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a,
                                                 vx, &beta, vy, CUDA_R_32F,
                                                 CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
  printf("cusparse_y=%g,%g,%g,%g\n", y[0], y[1], y[2], y[3]); /* 7,6,43,28 */
  cusparseDestroySpMat(a);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(handle);
}

static void Cusolver(void) {
  /* A x = b with A = [[4,1,2],[1,5,3],[2,3,6]] (column-major), b = A [1,2,3]. */
  double a[] = {4, 1, 2, 1, 5, 3, 2, 3, 6}, b[] = {12, 20, 26};
  int v = -1;
  int rc = (int)cusolverGetProperty(MAJOR_VERSION, &v);
  printf("cusolver_property_rc=%d cusolver_major=%d\n", rc, v);
  double *da, *db, *work;
  int *ipiv, *info, lwork = 0, h_info = -1;
  cudaMalloc((void**)&da, sizeof a);
  cudaMalloc((void**)&db, sizeof b);
  cudaMalloc((void**)&ipiv, 3 * sizeof(int));
  cudaMalloc((void**)&info, sizeof(int));
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cusolverDnHandle_t handle;
  rc = (int)cusolverDnCreate(&handle);
  printf("cusolver_create=%d\n", rc);
  if (rc != 0) return;
  cusolverDnDgetrf_bufferSize(handle, 3, 3, da, 3, &lwork);
  cudaMalloc((void**)&work, (lwork > 0 ? lwork : 1) * sizeof(double));
  printf("cusolver_getrf=%d\n", (int)cusolverDnDgetrf(handle, 3, 3, da, 3, work, ipiv, info));
  printf("cusolver_getrs=%d\n",
         (int)cusolverDnDgetrs(handle, CUBLAS_OP_N, 3, 1, da, 3, ipiv, db, 3, info));
  cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h_info, info, sizeof h_info, cudaMemcpyDeviceToHost);
  printf("cusolver_info=%d x=%.6f,%.6f,%.6f\n", h_info, b[0], b[1], b[2]); /* 1,2,3 */
  cusolverDnDestroy(handle);
}

static void CublasLt(void) {
  enum { M = 4 };
  float a[M * M], b[M * M], c[M * M];
  for (int i = 0; i < M * M; ++i) {
    a[i] = (float)(i % 5);
    b[i] = (float)(i % 3) - 1.0f;
  }
  printf("cublaslt_version=%zu\n", cublasLtGetVersion());
  float *da, *db, *dc;
  cudaMalloc((void**)&da, sizeof a);
  cudaMalloc((void**)&db, sizeof b);
  cudaMalloc((void**)&dc, sizeof c);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cublasLtHandle_t lt;
  int rc = (int)cublasLtCreate(&lt);
  printf("cublaslt_create=%d\n", rc);
  if (rc != 0) return;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, M, M, M);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, M, M, M);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, M, M, M);
  float alpha = 1, beta = 0;
  printf("cublaslt_matmul=%d\n", (int)cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dc, lc,
                                                     dc, lc, NULL, NULL, 0, 0));
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  float want = 0;
  for (int k = 0; k < M; ++k) want += a[k * M + 1] * b[2 * M + k]; /* c(1,2), column-major */
  printf("cublaslt_hash=%016llx c12_ok=%d\n", Hash(c, sizeof c), c[2 * M + 1] == want);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
}

/* y[i] = 2 x[i] + 1 for i < n, in PTX ISA 8.0 for sm_90. */
static const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry axpb(.param .u64 px, .param .u64 py, .param .u32 pn) {\n"
    "  .reg .pred %p; .reg .b32 %r<5>; .reg .f32 %f<3>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py]; ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r2, %r2, %r3, %r4; setp.ge.u32 %p, %r2, %r1; @%p bra DONE;\n"
    "  cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n"
    "  mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd3, %rd5; add.s64 %rd7, %rd4, %rd5;\n"
    "  ld.global.f32 %f1, [%rd6]; fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;\n"
    "  st.global.f32 [%rd7], %f2;\nDONE:\n  ret;\n}\n";

/* Loads `cubin` and launches its kernel `name` (x, y, n) on x[i] = i * step, i < 256; prints
   <prefix>module_load, <prefix>get_function, <prefix>launch, and <ok_key>=1 when y = a x + b. */
static void LaunchAxpb(const char* cubin, const char* name, const char* prefix, const char* ok_key,
                       float step, float a, float b) {
  CUmodule module;
  CUfunction fn;
  printf("%smodule_load=%d\n", prefix, (int)cuModuleLoadData(&module, cubin));
  printf("%sget_function=%d\n", prefix, (int)cuModuleGetFunction(&fn, module, name));
  float x[256], y[256];
  for (int i = 0; i < 256; ++i) x[i] = (float)i * step;
  float *dx, *dy;
  cudaMalloc((void**)&dx, sizeof x);
  cudaMalloc((void**)&dy, sizeof y);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  unsigned n = 256;
  void* args[] = {&dx, &dy, &n};
  printf("%slaunch=%d\n", prefix, (int)cuLaunchKernel(fn, 2, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
  int ok = 1;
  for (int i = 0; i < 256; ++i) ok &= y[i] == a * x[i] + b;
  printf("%s=%d\n", ok_key, ok);
  cudaFree(dx);
  cudaFree(dy);
}

static void NvJitLink(void) {
  unsigned major = 0, minor = 0;
  int rc = (int)nvJitLinkVersion(&major, &minor);
  printf("nvjitlink_version_rc=%d nvjitlink=%u.%u\n", rc, major, minor);
  const char* options[] = {"-arch=sm_90"};
  nvJitLinkHandle link;
  rc = (int)nvJitLinkCreate(&link, 1, options);
  printf("nvjitlink_create=%d\n", rc);
  if (rc != 0) return;
  printf("nvjitlink_add=%d\n", (int)nvJitLinkAddData(link, NVJITLINK_INPUT_PTX, kPtx, sizeof kPtx - 1,
                                                     "axpb.ptx"));
  printf("nvjitlink_complete=%d\n", (int)nvJitLinkComplete(link));
  size_t size = 0;
  nvJitLinkGetLinkedCubinSize(link, &size);
  static char cubin[1 << 20];
  if (size == 0 || size > sizeof cubin) return;
  nvJitLinkGetLinkedCubin(link, cubin);
  nvJitLinkDestroy(&link);
  LaunchAxpb(cubin, "axpb", "", "nvjitlink_kernel_ok", 0.25f, 2, 1);
}

/* y[i] = 3 x[i] - 1: CUDA C++ that NVRTC compiles to LTO-IR (-dlto) and nvJitLink links (-lto). */
static const char kLtoSource[] =
    "extern \"C\" __global__ void axpb_lto(const float* x, float* y, unsigned n) {\n"
    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = 3.0f * x[i] - 1.0f;\n"
    "}\n";

/* The cubin of kLtoSource (NVRTC -> LTO-IR -> nvJitLink), its size in *size; NULL on failure. */
static char* LtoCubin(size_t* size) {
  int major = 0, minor = 0;
  int rc = (int)nvrtcVersion(&major, &minor);
  printf("lto_nvrtc_version_rc=%d nvrtc=%d.%d\n", rc, major, minor);
  nvrtcProgram prog;
  rc = (int)nvrtcCreateProgram(&prog, kLtoSource, "axpb_lto.cu", 0, NULL, NULL);
  printf("lto_nvrtc_create=%d\n", rc);
  if (rc != 0) return NULL;
  const char* compile[] = {"-arch=sm_90", "-dlto"};
  rc = (int)nvrtcCompileProgram(prog, 2, compile);
  size_t ir_size = 0;
  nvrtcGetLTOIRSize(prog, &ir_size);
  printf("lto_nvrtc_compile=%d ltoir=%d\n", rc, ir_size > 0);
  static char ir[1 << 20];
  if (rc != 0 || ir_size == 0 || ir_size > sizeof ir || nvrtcGetLTOIR(prog, ir) != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    return NULL;
  }
  nvrtcDestroyProgram(&prog);
  const char* link_options[] = {"-arch=sm_90", "-lto"};
  nvJitLinkHandle link;
  rc = (int)nvJitLinkCreate(&link, 2, link_options);
  printf("lto_link_create=%d\n", rc);
  if (rc != 0) return NULL;
  printf("lto_link_add=%d\n", (int)nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, ir, ir_size, "axpb_lto"));
  rc = (int)nvJitLinkComplete(link);
  printf("lto_link_complete=%d\n", rc);
  static char cubin[1 << 20];
  *size = 0;
  nvJitLinkGetLinkedCubinSize(link, size);
  if (rc != 0 || *size == 0 || *size > sizeof cubin || nvJitLinkGetLinkedCubin(link, cubin) != 0) {
    nvJitLinkDestroy(&link);
    return NULL;
  }
  nvJitLinkDestroy(&link);
  return cubin;
}

static void NvJitLinkLto(void) {
  size_t size = 0;
  char* cubin = LtoCubin(&size);
  if (cubin != NULL) LaunchAxpb(cubin, "axpb_lto", "lto_", "lto_kernel_ok", 0.5f, 3, -1);
}

int main(void) {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  printf("runtime=%d driver=%d\n", runtime, driver);
  if (cudaFree(NULL) != cudaSuccess) {
    printf("no_device\n");
    return 0;
  }
  Curand();
  Cufft();
  Cusparse();
  Cusolver();
  CublasLt();
  NvJitLink();
  NvJitLinkLto();
  /* Which files of the libraries did the work: to stderr, so the lines above compare across runs. */
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096], last[4096] = "";
  while (maps && fgets(line, sizeof line, maps)) {
    const char* path = strchr(line, '/');
    if (!path || !strstr(path, ".so") || strcmp(path, last) == 0) continue;
    snprintf(last, sizeof last, "%s", path);
    if (strstr(path, "libcu") || strstr(path, "libnvJitLink") || strstr(path, "libnvrtc") || strstr(path, "cudyn"))
      fprintf(stderr, "mapped=%s", path);
  }
  if (maps) fclose(maps);
  return 0;
}
