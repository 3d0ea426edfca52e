"""A Python program using the GPU machine's preinstalled CUDA packages (PyTorch, else CuPy), for
`cudyn run` (tests/gpu/run_cudyn_run.sh). Prints which libcuda files the process mapped (cudyn's
drop-in and the real driver behind it, or the real driver alone), computes on the GPU and checks
the result. Exit 0 ok, 1 wrong or failed, 3 no CUDA package importable. An optional argument
(torch, cupy or jax) picks the package instead of the first importable one."""
import sys


def mapped_cuda_libraries():
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    return sorted(p for p in paths if "libcuda" in p or "cudyn" in p)


def with_torch():
    import torch

    print("package: torch %s (CUDA runtime %s)" % (torch.__version__, torch.version.cuda))
    if not torch.cuda.is_available():
        print("torch.cuda.is_available(): False")
        return 1
    print("device: %s" % torch.cuda.get_device_name(0))
    x = torch.arange(1 << 20, device="cuda", dtype=torch.float64)
    got = float((2 * x + 1).sum().item())
    want = float(sum(2 * i + 1 for i in range(1 << 20)))
    print("sum: %.0f (expected %.0f)" % (got, want))
    return 0 if got == want else 1


def with_cupy():
    import cupy

    print("package: cupy %s" % cupy.__version__)
    x = cupy.arange(1 << 20, dtype=cupy.float64)
    got = float((2 * x + 1).sum())
    want = float(sum(2 * i + 1 for i in range(1 << 20)))
    print("sum: %.0f (expected %.0f)" % (got, want))
    return 0 if got == want else 1


def with_jax():
    import jax
    import jax.numpy as jnp

    print("package: jax %s" % jax.__version__)
    devices = jax.devices("gpu")
    print("device: %s" % devices[0])
    x = jax.device_put(jnp.arange(1 << 20, dtype=jnp.float32), devices[0])
    got = float((2 * x + 1).sum())
    want = float(sum(2 * i + 1 for i in range(1 << 20)))
    print("sum: %.0f (expected %.0f)" % (got, want))
    return 0 if abs(got - want) <= want * 1e-6 else 1


def main():
    status = 3
    packages = {"torch": with_torch, "cupy": with_cupy, "jax": with_jax}
    attempts = [packages[sys.argv[1]]] if len(sys.argv) > 1 else [with_torch, with_cupy]
    for attempt in attempts:
        try:
            status = attempt()
            break
        except ImportError as e:
            print("not importable: %s" % e)
        except Exception as e:  # a CUDA error surfaces as an exception: report it as the result
            print("error: %s: %s" % (type(e).__name__, e))
            status = 1
            break
    for path in mapped_cuda_libraries():
        print("mapped: %s" % path)
    print("result: %s" % {0: "ok", 1: "FAILED", 3: "no CUDA package"}[status])
    return status


if __name__ == "__main__":
    sys.exit(main())
