from re import (
    _parser,  # carved out by `except`
    sub,
)

from kernels.platform import _has_module

from ..platform import is_cuda  # a parent-relative import

try:
    import tilelang
except ImportError:  # conditional module-level imports are still eager
    tilelang = None

import torch.cuda as tc

tc.synchronize()
import cloudpickle  # import-policy: ignore[no-pickle]


@tilelang.jit  # compiled when the module is imported
def matmul_kernel() -> None:
    pass


def has_aiter() -> bool:
    return _has_module("aiter")  # a trial import of a heavy module
