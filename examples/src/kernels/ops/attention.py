import os, pickle
import re
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    import tilelang  # type-checking only: never counts
else:
    import tilelang.language as T  # the else branch runs


def lazy() -> None:
    import tilelang  # function level: fine for a module-scope rule

    torch.cuda.synchronize()


PATTERN = re.compile("import pickle")  # strings never count
