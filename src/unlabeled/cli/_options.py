"""An estimator's parameters as options of ``unlabeled fit``, generated, never written by hand.

Each constructor parameter becomes ``--name-with-dashes``; what it may be comes from the
class's ``_parameter_constraints`` (the declarations its ``fit`` validates against) and its help
from the first sentence of the parameter in the class's numpydoc docstring. A value is read
from the text into the kind of value the constraints allow (``none``, an option, a bool, an
integer, a number, a comma-separated tuple) and checked by the estimator's own
:func:`~unlabeled.base.validate_params`, so a bad value is refused by the parser (exit status 2)
with the estimator's message under the option's name. A parameter that no text can express (a
callable, an object) gets no option and keeps its default.

Imported only for ``fit``, with the chosen estimator: it loads the validation module, which
loads scikit-learn.
"""

from __future__ import annotations

import argparse
import inspect
import re

from .._validation import Boolean, Instance, Integer, Options, Real, validate_params
from ..exceptions import InvalidParameterError

__all__ = ["DEST", "add_parameter_options", "given_params", "option_name", "parameter_help"]

#: the namespace prefix of generated options, so that no parameter collides with the command's
#: own options (MILWellSVM's ``model``, ...)
DEST = "param__"
#: parameters with no meaning for a fit in a fresh process (no earlier fit to continue)
SKIPPED = frozenset({"warm_start"})

_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


def option_name(param: str) -> str:
    return "--" + param.replace("_", "-")


def _text_kinds(allowed: list) -> list:
    """The kinds of ``allowed`` that a command-line text can give: ``None`` (as ``none``),
    numbers, options and bools, a string, a tuple of numbers; not a callable or an object."""
    out: list = []
    for kind in allowed:
        if isinstance(kind, Instance):
            if any(t in kind.types for t in (str, tuple, list)):
                out.append(kind)
        elif kind is None or isinstance(kind, (Real, Integer, Options, Boolean)):
            out.append(kind)
    return out


def _number(text: str) -> int | float | None:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None


def _from_text(text: str, allowed: list) -> object:
    """The value ``text`` stands for under ``allowed``, tried in a fixed order; a text that
    fits no kind is passed on as it is, for the validation to name what is allowed."""
    t, low = text.strip(), text.strip().lower()
    if None in allowed and low == "none":
        return None
    for kind in allowed:
        if isinstance(kind, Options):
            for v in kind.values:
                if isinstance(v, str) and t == v:
                    return v
                if not isinstance(v, (str, bool)) and _number(t) == v:
                    return v
    if any(isinstance(k, Boolean) for k in allowed) and low in _TRUE + _FALSE:
        return low in _TRUE
    for kind, convert in ((Integer, int), (Real, float)):
        if any(isinstance(k, kind) for k in allowed):
            try:
                return convert(t)
            except ValueError:
                pass
    for kind in allowed:
        if isinstance(kind, Instance) and str in kind.types:
            return t
        if isinstance(kind, Instance) and {tuple, list} & set(kind.types):
            parts = [_number(p.strip()) for p in t.split(",")]
            if all(p is not None for p in parts):
                return tuple(parts)
    return t


def _converter(name: str, allowed: list):
    """An argparse ``type``: the text as a value, checked by the estimator's constraints."""

    def convert(text: str) -> object:
        value = _from_text(text, allowed)
        try:
            return validate_params({name: value}, {name: allowed})[name]
        except InvalidParameterError as exc:
            message = str(exc)  # "C must be > 0, got -1.0": argparse names the option
            if message.startswith(name + " "):
                message = message[len(name) + 1 :]
            raise argparse.ArgumentTypeError(message) from None

    convert.__name__ = name  # argparse's "invalid <name> value" fallback names the parameter
    return convert


def _metavar(kinds: list) -> str:
    if all(isinstance(k, Options) for k in kinds):
        return "{" + ",".join(str(v) for k in kinds for v in k.values) + "}"
    parts = []
    for kind in kinds:
        if kind is None:
            parts.append("none")
        elif isinstance(kind, Options):
            parts.extend(str(v) for v in kind.values)
        elif isinstance(kind, Boolean):
            parts.append("true|false")
        elif isinstance(kind, Integer):
            parts.append("INT")
        elif isinstance(kind, Real):
            parts.append("FLOAT")
        elif str in kind.types:
            parts.append("TEXT")
        else:
            parts.append("A,B,...")
    return "|".join(dict.fromkeys(parts))


_MARKUP = [
    (re.compile(r":\w+:`~?(?:[\w.]*\.)?([^`]+)`"), r"\1"),  # :class:`~a.b.C` -> C
    (re.compile(r"``([^`]*)``"), r"\1"),
    (re.compile(r"\s+"), " "),
]


def parameter_help(cls: type) -> dict[str, str]:
    """The first sentence of each parameter's description in the numpydoc ``Parameters``
    section of ``cls`` (or its type line when it has no description), markup removed."""
    lines = inspect.cleandoc(cls.__doc__ or "").splitlines()
    start = next(
        (
            i + 2
            for i in range(len(lines) - 1)
            if lines[i].strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}
        ),
        None,
    )
    if start is None:
        return {}
    entries: dict[str, tuple[str, list[str]]] = {}
    current: list[str] = []
    for i in range(start, len(lines)):
        line = lines[i]
        if i + 1 < len(lines) and lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"}:
            break  # the next section's title
        if line and not line[0].isspace():
            m = re.match(r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:\s*(.*)", line)
            current = []
            if m:
                for name in re.split(r"\s*,\s*", m.group(1)):
                    entries[name] = (m.group(2), current)
        elif line.strip():
            current.append(line.strip())
    out = {}
    for name, (type_line, description) in entries.items():
        text = " ".join(description) or re.split(r",\s*default\s*=", type_line)[0]
        for pattern, repl in _MARKUP:
            text = pattern.sub(repl, text)
        sentence = re.split(r"(?<=\.)\s+(?=[A-Z(`'\"])", text.strip())[0].rstrip(":")
        out[name] = sentence if len(sentence) <= 160 else sentence[:157] + "..."
    return out


def _parameters(cls: type) -> list[tuple[str, list]]:
    """``(name, constraints)`` of each parameter that a command line can give, in the order
    of the constructor's signature."""
    constraints = getattr(cls, "_parameter_constraints", {})
    out = []
    for name in inspect.signature(cls).parameters:
        allowed = constraints.get(name)
        if name in SKIPPED or not allowed:
            continue
        if [k for k in _text_kinds(allowed) if k is not None]:
            out.append((name, allowed))
    return out


def add_parameter_options(group, cls: type) -> list[str]:
    """Add one option per parameter of ``cls`` to the argparse ``group``; return the
    parameter names. Options not given stay out of the namespace (the class's defaults
    apply); the parameters ``cls`` requires (``_required_params``) are required options."""
    docs = parameter_help(cls)
    required = getattr(cls, "_required_params", {})
    signature = inspect.signature(cls).parameters
    names = []
    for name, allowed in _parameters(cls):
        kinds = _text_kinds(allowed)
        default = signature[name].default
        shown = "required" if name in required else f"default: {default!r}"
        text = docs.get(name, "").replace("%", "%%")  # argparse formats help with %
        help_text = f"{text} ({shown})" if text else f"({shown})"
        common = dict(dest=DEST + name, default=argparse.SUPPRESS, help=help_text)
        if all(isinstance(k, Boolean) for k in kinds):
            group.add_argument(option_name(name), action=argparse.BooleanOptionalAction, **common)
        else:
            group.add_argument(
                option_name(name),
                type=_converter(name, allowed),
                metavar=_metavar(kinds),
                required=name in required,
                **common,
            )
        names.append(name)
    return names


def given_params(args: argparse.Namespace) -> dict:
    """The estimator parameters given on the command line, by name."""
    return {k[len(DEST) :]: v for k, v in vars(args).items() if k.startswith(DEST)}
