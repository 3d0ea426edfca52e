"""The CUDA versions a fake driver is generated for: the one list every BUILD file and test uses."""

FAKE_CUDA_VERSIONS = [
    10000,
    10010,
    10020,
    11000,
    11020,
    11040,
    11080,
    12000,
    12020,
    12040,
    12080,
    13000,
]
