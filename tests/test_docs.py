"""The documentation's own checks that need no Sphinx: its code blocks run, and its API
reference covers every public module (the Sphinx build, with warnings as errors, checks the
rest: every public name gets a page, every reference resolves, every gallery example runs)."""

from __future__ import annotations

import ast
import re
import types
import warnings
from pathlib import Path

import pytest

import unlabeled

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", re.M)


def _blocks():
    if not DOCS.is_dir():
        return []
    out = []
    for path in sorted(DOCS.rglob("*.rst")):
        if "_build" in path.parts or path.parts[len(DOCS.parts)] in ("api", "auto_examples"):
            continue
        for i, m in enumerate(_BLOCK.finditer(path.read_text())):
            code = "\n".join(line[3:] for line in m.group(1).splitlines())
            out.append(pytest.param(code, id=f"{path.relative_to(DOCS)}[{i}]"))
    return out


@pytest.mark.parametrize("code", _blocks())
def test_code_block_runs(code, tmp_path, monkeypatch):
    if "PlummerAutoencoder" in code:
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<docs>", "exec"), {"__name__": "__docs__"})


def test_api_reference_lists_every_public_module():
    if not (DOCS / "conf.py").is_file():
        pytest.skip("no docs/ next to the tests (installed package only)")
    tree = ast.parse((DOCS / "conf.py").read_text())
    listed = next(
        ast.literal_eval(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "PUBLIC_MODULES" for t in node.targets)
    )
    public = {
        f"unlabeled.{name}"
        for name in unlabeled.__all__
        if isinstance(getattr(unlabeled, name), types.ModuleType)
    }
    public |= {"unlabeled", "unlabeled.pu.priors", "unlabeled.plotting"}
    assert sorted(public - set(listed)) == []
