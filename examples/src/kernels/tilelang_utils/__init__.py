# The gateway: the one place that imports tilelang directly.
import tilelang
import tilelang.language as T

__all__ = ["tilelang", "T"]
