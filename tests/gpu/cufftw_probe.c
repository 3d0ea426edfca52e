/* Does libcufftw work on this GPU? cudyn-check finds only sm_75 SASS in CUDA 13.0's
 * libcufftw.so.12; this runs a 1-D complex FFT through its FFTW interface and checks bin 0
 * (the sum of the input). Exit 0 ok, 1 wrong result. */
#include <cufftw.h>
#include <math.h>
#include <stdio.h>

int main(void) {
  const int n = 4096;
  fftw_complex* in = (fftw_complex*)fftw_malloc(sizeof(fftw_complex) * n);
  fftw_complex* out = (fftw_complex*)fftw_malloc(sizeof(fftw_complex) * n);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    in[i][0] = i % 7;
    in[i][1] = 0;
    sum += i % 7;
  }
  fftw_plan p = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(p);
  printf("bin 0: %.1f (expected %.1f)\n", out[0][0], sum);
  const int ok = fabs(out[0][0] - sum) < 1e-6 * sum;
  fftw_destroy_plan(p);
  fftw_free(in);
  fftw_free(out);
  printf("result: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
