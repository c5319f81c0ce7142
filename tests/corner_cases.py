"""Sources whose spelling is awkward for an extractor: shared by the extractor agreement
and the soundness tests."""

from __future__ import annotations

TRICKY = [
    "import os, triton\nimport a.b.c as d\nfrom . import x\nfrom .. import y as z\nfrom ...pkg.mod import (\n    p,\n    q as r,\n)\n",
    "from .import x\nfrom . mod import y\nimport a . b\nfrom\\\n  m import n\n",
    "import a; import b\nx = 1; from c import d\nif x: import e; import f\nelse: import g\n",
    "a = 1; \\\n  import b\n",
    "try:\n    import triton\nexcept ImportError:\n    triton = None\nelse:\n    pass\nfinally:\n    import g\n",
    "if TYPE_CHECKING:\n    import t\nelif is_cuda() and not x.y or z:\n    import u\nelse:\n    if w:\n        import v\n",
    "if a and b and c or (d and e) and not f():\n    import x\n",
    "from typing import TYPE_CHECKING as TC\nif TC:\n    import h\n",
    "@triton.jit\ndef k(x=f(), *a, y: g() = h(), **kw) -> r():\n    import inside\n    return lambda q=l(): m()\n",
    "@ dec(1)\n@a.b.c\nclass C(Base, metaclass=M):\n    x = f()\n    def m(self):\n        g()\n    @staticmethod\n    async def n():\n        await h()\n",
    "@(paren)\ndef p(): pass\n",
    "class A(f(), g.h(1), metaclass=m.M, **k()):\n    pass\n",
    "import importlib\nm = importlib.import_module('triton.language')\n__import__(\"tilelang\")\nimport_module('.rel')\nimportlib.import_module(name)\n",
    "if True:\n    import t\nelif None.x or False():\n    pass\nx = (f(1))\ny = g((h(2)))\nz = 'a'.join(x)\nw = a().b()[0].c()\nv = q[0].r()\nf()()\n",
    "s = f'{g()} and {h(1)}'\nt = f'''\n{k()}\n'''\n",
    "x = [f(i) for i in g() if h(i)]\ny = {k(): v() for k in l()}\nz = a() if b() else c()\nd = {e(): f(), **g()}\n",
    "match x:\n    case {'k': 1} if f():\n        import m\n    case _:\n        g()\n",
    "with open(f()) as h, ctx():\n    import w\nfor i in it():\n    j()\nelse:\n    k()\nwhile c():\n    pass\n",
    "# -*- coding: latin-1 -*-\ns = '\xe9'; import a\n".encode("latin-1").decode("latin-1"),
    "x = 'é' + f('ü'); import ä.ö as ü\nclass Ä:\n    def ö(self): return g('ß')\n",
    "\ufeffimport bom\nf()\n",
    "import a\r\nif x:\r\n    import b\r\nf()\r\n",
    "def f():\n\tif x:\n\t\timport t\n\treturn g()\n",
    "from m import *\nfrom .n import *\n",
    "x = f(\n    'a'\n    'b',\n)\nimportlib.import_module(\n    'triton'\n    '.language'\n)\n",
    "def outer():\n    def inner():\n        import deep\n    class K:\n        def m(self):\n            import deeper\n",
    "async def a():\n    async with b() as c:\n        async for d in e():\n            import f\n",
    "try:\n    pass\nexcept* ValueError:\n    import g\n",
    "if x:\n    pass\nelse:\n    import y; import z\n",
    # ROCm facts: flags, returns, early exits, `__main__`, package walks
    "from p import is_hip\n_is_hip = is_hip()\na = b = is_cuda() and x\nc, (d, *e) = f()\nn: bool = not y\nn += 1\nclass K:\n    z = 1\nfor i, j in g():\n    pass\n",
    "def s():\n    if not is_cuda():\n        return False\n    elif q:\n        raise E\n    import t\n    if r: return\n    return x and y\n",
    "if __name__ == '__main__':\n    import m\nif '__main__' != __name__:\n    pass\nif __name__ == 'x':\n    pass\n",
    "import pkgutil, importlib\nimport pkg.models as pm\nfor _, n, _ in pkgutil.iter_modules(pm.__path__):\n    importlib.import_module(f'pkg.models.{n}')\ndef reg(p):\n    for m in pkgutil.walk_packages(p.__path__):\n        importlib.import_module(m.name)\n    for m in pkgutil.iter_modules(q):\n        importlib.import_module('lit')\n",
    "def f():\n    if a:\n        return 1\n    else:\n        return 2\n    if b:\n        x()\n        raise E\n    y()\n",    # platform values: comparisons with literals, getattr, `is None`
    "import torch\nfrom d import DEVICE_TYPE as D\nif D == 'cuda':\n    import a\nelif 'hip' != D and x.is_cuda:\n    pass\nif D in ('x', None, 1, 2.5, True) or D not in ['y']:\n    pass\nif getattr(torch.version, 'hip', None) is not None:\n    pass\nif torch.version.cuda is None or getattr(t, n) == -1 or a == b == 'c':\n    pass\nok = D != 'cuda'\n",
    # inline probes: a name never read but compared with None or deleted
    "try:\n    import xformers\n    HAS = True\nexcept (OSError, ImportError):\n    HAS = False\ntry: from flashinfer import a as b, c\nexcept Exception: b = None\nif b is None:\n    del c\ntry:\n    import used\nexcept:\n    pass\nprint(used)\n",
    # PEP 810 lazy imports and their import-time reads
    "lazy import aiter\nlazy from x.y import z, w as v\n__lazy_modules__ = ['json', 'a.b']\nimport json\nfrom a.b import c\nif x: lazy import q\n@aiter.jit\ndef g(a=z, *, k=json.x): return v\nclass K(c):\n    y = v\nprint(aiter, f(aiter=1), z.q)\n",
]

# Spellings of `import pickle` that Python runs and a byte search misses: white space the
# tokenizer accepts, dynamic imports' literals in every form, files in a declared encoding.
SPELLINGS = [
    "import\fpickle\n",
    "import os,\f\\\n  pickle\n",
    "import os . path as p, pickle\n",
    "from\fpickle import x\n",
    "import é, pickle\n",
    "import importlib\nimportlib.import_module(('pickle'))\n",
    "import importlib\nimportlib.import_module('''pickle''')\n",
    "import importlib\nimportlib.import_module(  # a comment\n    'pickle',\n)\n",
    "import importlib\nimportlib.import_module('\\x70ickle')\n",
    "import importlib\nimportlib.import_module('\\N{LATIN SMALL LETTER P}ickle')\n",
    "__import__('pic' 'kle')\n",
    "__import__('pic'  # split\n           'kle')\n",
    "from importlib import import_module as load\nload('pickle')\n",
]
# The name given by keyword, as an f-string without placeholders, and the other importers.
DYNAMIC_SPELLINGS = [
    "from importlib import import_module\nimport_module(name='pickle')\n",
    "import importlib\nimportlib.import_module(package=None, name='pickle')\n",
    "__import__(name='pickle', fromlist=())\n",
    "from importlib import import_module\nimport_module(f'pickle')\n",
    "import importlib\nimportlib.import_module(f'pic' 'kle')\n",
    "__import__(rf'pic' F\"kle\")\n",
    "import importlib\nimportlib.__import__('pickle')\n",
    "from importlib import __import__ as imp\nimp('pickle')\n",
    "import builtins\nbuiltins.__import__('pickle')\n",
    "import builtins as b\nb.__import__(name='pickle')\n",
    "from builtins import __import__ as imp\nimp(f'pickle')\n",
]
# What the ROCm pass reads of classes, bindings, dict entries and probes (both extractors).
SEMANTICS = [
    "from .base import Checker as B\nimport pkg.other\nclass C(B, pkg.other.Mixin, metaclass=M):\n    class D(C, object): pass\n",
    "class C(f(), *bases, x=1):\n    pass\n",
    "def f():\n    global A, B\n    if x:\n        global C\n    def g():\n        global D\n    class E:\n        global F\n",
    "env = {'has_te': is_cuda(), 'n': 1, **other, 2: x}\nenv['has_fa'] = not is_hip()\nenv['a', ] = 1\ndel env['n'], env\n",
    "info: dict = {\"k\": HAS}\nif info.get('k') and env['a.b'] and x.y['z'] == 'cuda' and e.get(1):\n    import a\n",
    "if (\n    is_cuda()  # a comment\n    and x\n):\n    import a\nelif (b) and (c):\n    import c\nelse:\n    pass\n",
    "try:\n    if sys.platform != 'darwin':\n        import xformers\n    else:\n        import importlib\n        importlib.import_module('flash_attn')\nexcept ImportError:\n    pass\n",
    "with x:\n    A = 1\nwhile y:\n    B = 2\nfor i in z:\n    C = 3\nmatch v:\n    case 1:\n        D = 4\ntry:\n    E = 5\nexcept Exception:\n    E = 6\n",
    "def f():\n    if not torch.cuda.is_available() or _is_hip():\n        return False\n    from flash_attn import x\n",
    "try:\n    if x:\n        from aiter import f\n    else:\n        from flash_attn import g\nexcept ImportError:\n    def f(*a):\n        raise ImportError\n    class K: pass\n",
    # what runs after a `try:` import that may raise: the rest of the body, `else:`, and the
    # rest of the block after handlers that leave it (one-line suites, `;`, a star, relative)
    "try:\n    import a; import b.c\n    from d.e import f\n    from . import g\n    from h import *\n    x = 1\n"
    "except (ImportError, AttributeError):\n    import c\nelse:\n    import d\nfinally:\n    import e\n",
    "try:\n    import a\nexcept ImportError:\n    pass\nelse: import b; import c\n",
    "def f():\n    try:\n        import a\n    except ImportError:\n        return False\n    import b\n"
    "    try:\n        import c\n    except ImportError: raise\n    except ValueError:\n        pass\n    import d\n",
    "try:\n    import a\nexcept ValueError:\n    pass\nelse:\n    import d\n",
    # a `try:` of imports and constants: its handlers run where an import fails, nothing else skips
    "try: import a; HAS = True\nexcept ImportError: HAS = False\nif HAS:\n    import b\n",
    "try:\n    import a as m\n    HAS = True\n    N = 'x' 'y'\n    M = (1)\n    pass\nexcept ImportError:\n    HAS = m = None\n"
    "    import c\nexcept ValueError:\n    import d\nelse:\n    import e\nfinally:\n    import f\n",
    "try:\n    import a\n    X = f'x'\nexcept ImportError:\n    X = None\ntry:\n    import a\n    X = -1\nexcept ImportError:\n    X = None\n",
    "try:\n    from . import a\n    X = 1\nexcept ImportError:\n    X = None\n",
]
TRICKY += SEMANTICS
TRICKY += SPELLINGS + DYNAMIC_SPELLINGS
TRICKY_BYTES = [
    *(s.encode("utf-8") for s in SPELLINGS),
    b"# -*- coding: utf-7 -*-\n+AGkAbQBwAG8AcgB0ACAAcABpAGMAawBsAGU-\n",
    b"# coding: iso2022_jp\nimp\x1b(Bort pi\x1b(Bckle\n",
    b"# coding: hz\nimp~\nort pic~\nkle\n",
    b"#!/usr/bin/env python\n# vim: set fileencoding=utf-7 :\nimport +AHA-ickle\n",
    b"\fimport pickle\n",  # (not in TRICKY: libcst counts a leading form feed out of the column)
    b"\xef\xbb\xbf\fimport pickle\n",
]
