"""kernels: a toy package showing what import-policy finds.

The line below is in a docstring, so it never counts:
    import pickle
"""

from kernels import ops
