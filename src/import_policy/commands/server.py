"""`import-policy server`: the Language Server Protocol over stdio (`server/`).

pygls and lsprotocol are the optional extra `server`: without them the command says how to
install them and exits 2, and nothing else of the tool ever imports them.
"""

from __future__ import annotations

import importlib.util
import os
import sys

from import_policy.commands import UsageError

# The `server` extra's packages, installed into the environment import-policy runs in.
INSTALL = "pip install 'pygls>=2,<3' lsprotocol"


def command() -> int:
    if importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None:
        raise UsageError(
            f"`import-policy server` needs pygls and lsprotocol (the `server` extra): `{INSTALL}` in this environment"
        )
    from import_policy.server.app import serve

    code = serve()
    # The protocol's stream is closed: nothing may be written or flushed to it any more.
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    return code
