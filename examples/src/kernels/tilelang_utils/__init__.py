# The gateway: the one place that imports tilelang directly, and only where it is safe.
# On ROCm tilelang's HIP stub must never load, so the import is kept under a CUDA guard.
from kernels.platform import is_cuda

if is_cuda():
    import tilelang
    import tilelang.language as T
else:
    tilelang = T = None

__all__ = ["tilelang", "T"]
