from re import (
    _parser,  # carved out by `except`
    sub,
)

try:
    import tilelang
except ImportError:  # conditional module-level imports are still eager
    tilelang = None

import torch.cuda as tc

tc.synchronize()
import cloudpickle  # import-policy: ignore[no-pickle]
