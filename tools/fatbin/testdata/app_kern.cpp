// A host-only program that needs libkern_sm90.so (its only CUDA content is that dependency).
extern "C" int cudyn_test_scale(float* device_x, int n);

int main(int argc, char**) { return argc > 5 ? cudyn_test_scale(nullptr, 0) : 0; }
