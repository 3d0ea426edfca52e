// A shared library built with cuBLAS's SONAME (libcublas.so.12) that is no cuBLAS (it exports no
// cublasGetProperty): the loader refuses it after dlopen, and closes the libcublasLt it opened
// beside it (cublas_loader_real_test, CublasLt.ARefusedCandidateClosesItsLibcublasLt).
int cudyn_test_not_cublas(void) { return 0; }
