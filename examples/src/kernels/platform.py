"""What the process runs on, and a cheap way to ask whether a module is installed."""

import importlib
import importlib.util


def is_cuda() -> bool:
    return False


def _has_module(name: str) -> bool:
    """A trial import: it loads the module (and its native libraries) just to see if it exists."""
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _has_module_spec(name: str) -> bool:
    """The same question answered from the import system's spec, without importing anything."""
    return importlib.util.find_spec(name) is not None
