"""The project's rule on function length, read from the source: no function longer than
``MAX_LINES`` lines, in Python (every function and method under ``src/``, from its ``def``
line to its last line, not counting its docstring) and in C++ (every function body under
``src/unlabeled/_engine``, from the first line of its header to its closing brace, found by
a brace matcher over the code with comments and literals blanked).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
ENGINE = SRC / "unlabeled" / "_engine"
MAX_LINES = 80

#: statements whose braces open a block, not a function body
_CONTROL = {"if", "else", "for", "while", "do", "switch", "catch", "try", "return"}
_ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)*")
_TYPE_KEYS = {"class", "struct", "union", "enum", "namespace"}
#: what may follow a function header's parameter list before its body
_TAIL = re.compile(r"\)\s*(?:const|noexcept|override|final|mutable|&|\s)*(?:->[^{};()]*)?$")


def python_lengths(source: str) -> dict[str, int]:
    """Each function's length in lines, not counting its docstring, by qualified name."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                n = child.end_lineno - child.lineno + 1  # type: ignore[operator]
                doc = child.body[0]
                if (
                    isinstance(doc, ast.Expr)
                    and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)
                ):
                    n -= doc.end_lineno - doc.lineno + 1  # type: ignore[operator]
                lengths[f"{name}:{child.lineno}"] = n
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return lengths


def _blank_comments_and_literals(source: str) -> str:
    """``source`` with comments, string and character literals and preprocessor lines
    replaced by spaces, newlines kept (so that offsets and line numbers stay)."""
    pattern = re.compile(
        r'//[^\n]*|/\*.*?\*/|R"(?P<d>[^(\s]*)\(.*?\)(?P=d)"|"(?:\\.|[^"\\\n])*"'
        r"|'(?:\\.|[^'\\\n])*'|^[ \t]*#[^\n]*(?:\\\n[^\n]*)*",
        re.DOTALL | re.MULTILINE,
    )
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)


def cpp_lengths(source: str) -> dict[str, int]:
    """Each outermost function body's length in lines (header's first line to closing brace),
    by name and line. A brace opens a function when the text since the previous ``;``,
    ``{`` or ``}`` ends with a parameter list (and qualifiers) and starts with no control
    keyword; braces inside a function are its own."""
    code = _blank_comments_and_literals(source)
    lengths: dict[str, int] = {}
    stack: list[tuple[str, int] | None] = []  # (name, first line) for a function, else None
    start = 0  # where the current header starts
    for i, ch in enumerate(code):
        if ch not in "{};":
            continue
        if ch == "{":
            raw = code[start:i]
            lead = _ACCESS.match(raw).end()  # type: ignore[union-attr]
            lead += len(raw) - lead - len(raw[lead:].lstrip())
            header = raw[lead:].strip()
            # a template's parameter list is not the declaration's first words
            words = re.findall(r"[A-Za-z_]\w*", re.sub(r"^template\s*<[^{;]*?>", "", header))
            is_function = (
                not any(s is not None for s in stack)
                and bool(words)
                and words[0] not in _CONTROL
                and not _TYPE_KEYS & set(words[:2])
                and _TAIL.search(header) is not None
                and "=" not in header.split("(")[0]
                and re.search(r"[~\w:]+\s*\(", header) is not None
            )
            if is_function:
                name = re.findall(r"([~\w:]+)\s*\(", header)[0]
                first = code.count("\n", 0, start + lead) + 1
                stack.append((name, first))
            else:
                stack.append(None)
        elif ch == "}" and stack:
            entry = stack.pop()
            if entry is not None:
                name, first = entry
                lengths[f"{name}:{first}"] = code.count("\n", 0, i) + 1 - first + 1
        start = i + 1
    return lengths


def _too_long(lengths: dict[str, int], path: Path) -> list[str]:
    rel = path.relative_to(ROOT)
    return [f"{rel}:{k} ({n} lines)" for k, n in lengths.items() if n > MAX_LINES]


def test_python_functions_are_short():
    long = []
    for path in sorted(SRC.rglob("*.py")):
        long += _too_long(python_lengths(path.read_text(encoding="utf-8")), path)
    assert not long, f"functions longer than {MAX_LINES} lines: {long}"


def test_cpp_functions_are_short():
    long = []
    for path in sorted(ENGINE.rglob("*")):
        if path.suffix in (".cpp", ".hpp", ".inc", ".h"):
            long += _too_long(cpp_lengths(path.read_text(encoding="utf-8")), path)
    assert not long, f"functions longer than {MAX_LINES} lines: {long}"


# ------------------------------------------------------------------ the counters themselves


def test_python_length_skips_the_docstring():
    source = 'def f(x):\n    """Doc\n\n    more.\n    """\n    y = x\n    return y\n'
    assert python_lengths(source) == {"f:1": 3}
    nested = "class A:\n    def g(self):\n        def h():\n            pass\n        return h\n"
    assert python_lengths(nested) == {"A.g:2": 4, "A.g.h:3": 2}


CPP_SAMPLE = """\
#include <vector>
namespace ns {
// a comment with { an unbalanced brace
struct S : Base {
    S(int a) : a_(a) {}
    int get() const noexcept { return a_; }
  public:
    bool step(std::vector<int>& v)
    {
        for (int x : v) {
            if (x == '}') { return false; }
        }
        auto f = [&](int y) { return y; };
        const char* s = "{{{";
        return f(1) > 0;
    }
    int a_;
};
template <typename T>
T twice(T x) { return x + x; }
template <class T>
void scale(T* a, int n) {
    for (int k = 0; k < n; ++k) {
        a[k] *= 2;
    }
}
}  // namespace ns
NB_MODULE(_core, m) {
    m.def("f", [](int x) { return x; });
}
"""


def test_cpp_matcher_on_a_sample():
    assert cpp_lengths(CPP_SAMPLE) == {
        "S:5": 1,
        "get:6": 1,
        "step:8": 9,
        "twice:19": 2,
        "scale:21": 6,
        "NB_MODULE:28": 3,
    }


def test_cpp_matcher_agrees_with_the_indentation():
    """Each function whose header line ends with ``{`` ends at the first line after it holding
    only a ``}`` at the header's indent (clang-format's layout): an independent count."""
    checked = 0
    for path in sorted(ENGINE.rglob("*.[ch]pp")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for key, n in cpp_lengths("\n".join(lines)).items():
            first = int(key.rsplit(":", 1)[1])
            header = lines[first - 1]
            if header.rstrip().endswith("{"):
                close = header[: len(header) - len(header.lstrip())] + "}"
                last = next(i for i in range(first, len(lines)) if lines[i].rstrip() == close)
                assert n == last + 1 - first + 1, f"{path.name}:{key}"
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.[ch]pp")), ids=lambda p: p.name)
def test_cpp_matcher_balances_every_file(path):
    """Every engine file's braces balance once comments and literals are blanked (else the
    matcher would measure nonsense)."""
    code = _blank_comments_and_literals(path.read_text(encoding="utf-8"))
    assert code.count("{") == code.count("}")


# ---------------------------------------------------------------------- fmt: skip
_FMT_SKIP = "# fmt: skip"


def _is_table(node: ast.AST) -> bool:
    """A literal table: a dict, list, tuple or set display (or one passed to a call, such as
    ``frozenset([...])``) whose entries are constants, names or attributes."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Dict):
        entries = [k for k in node.keys if k is not None] + node.values
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        entries = node.elts
    else:
        return False
    return all(isinstance(e, (ast.Constant, ast.Name, ast.Attribute)) for e in entries)


def fmt_skips_off_tables(source: str) -> list[int]:
    """The lines whose ``# fmt: skip`` keeps code from the formatter rather than a literal
    table (the statement that ends there is not an assignment of one)."""
    tables = {
        node.end_lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_table(node.value)
    }
    return [
        i
        for i, line in enumerate(source.splitlines(), 1)
        if line.rstrip().endswith(_FMT_SKIP) and i not in tables
    ]


def test_fmt_skip_only_on_tables():
    """ruff formats every line of src/, tests/ and benchmarks/ but literal tables: ``# fmt:
    skip`` packed code under the length cap (58 markers in src/ alone, issue 54)."""
    if not SRC.is_dir():
        pytest.skip("the source tree is not next to the tests (installed package only)")
    found = [
        f"{path.relative_to(ROOT)}:{i}"
        for folder in (SRC, ROOT / "tests", ROOT / "benchmarks")
        for path in sorted(folder.rglob("*.py"))
        for i in fmt_skips_off_tables(path.read_text())
    ]
    assert found == []


def test_fmt_skip_rule_on_a_sample():
    source = (
        "T = {'a': 1, 'b': X.y}  # fmt: skip\n"
        "S = frozenset(['a', 'b'])  # fmt: skip\n"
        "f(a,\n  b)  # fmt: skip\n"
        "U = [f(1), 2]  # fmt: skip\n"
    )
    assert fmt_skips_off_tables(source) == [4, 5]
