"""What a piece of code imports, seen from a fresh interpreter: for the tests that keep a
heavy import (scipy.special, scipy.stats, statsmodels) out of a command's path."""

from __future__ import annotations

import ast
import subprocess
import sys


def heavy_imports(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of `prefixes` that running `code` (Python source) in a
    fresh interpreter, from the repository's root, leaves imported."""
    listed = f"print(sorted(m for m in sys.modules if m.startswith({prefixes!r})))"
    probe = f"import sys\n{code}\n{listed}\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return ast.literal_eval(out.stdout.strip())  # the list the probe printed
