"""Sphinx configuration of the unlabeled documentation.

Build it from the repository root with the ``docs`` extra installed::

    pip install ".[docs]"
    python -m sphinx -W --keep-going -n -b html docs docs/_build/html

The build needs no network: no intersphinx inventories are fetched (references to NumPy,
SciPy and scikit-learn are written as plain text or full links), and the gallery's examples
use only the library's own generators and scikit-learn's bundled data.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the gallery draws off screen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# a source checkout whose engine was built in place (PYTHONPATH=src) or an installed package
if (ROOT / "src" / "unlabeled" / "_engine").is_dir() and "unlabeled" not in sys.modules:
    try:
        import unlabeled  # noqa: F401  (installed)
    except ImportError:
        sys.path.insert(0, str(ROOT / "src"))

from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402

sys.path.insert(0, str(HERE))  # docs/estimator_table.py
from estimator_table import estimator_table  # noqa: E402

import unlabeled  # noqa: E402

# -- project ------------------------------------------------------------------------------------

project = "unlabeled"
author = "the unlabeled developers"
copyright = "2026, the unlabeled developers"  # noqa: A001
release = unlabeled.__version__
version = ".".join(release.split(".")[:2])

# -- general ------------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.extlinks",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 from the PyPI wheel into _static: no CDN
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
]

templates_path = ["_templates"]
#: the committed benchmark tables: :bench:`mil.md` links to benchmarks/results/mil.md
REPOSITORY = "https://github.com/unlabeled-dev/unlabeled"
extlinks = {
    "bench": (f"{REPOSITORY}/blob/main/benchmarks/results/%s", "benchmarks/results/%s"),
    "repo": (f"{REPOSITORY}/blob/main/%s", "%s"),
}
exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    "auto_examples/*.md5",
    "**sg_execution_times.rst",
]
root_doc = "index"
default_role = "literal"  # `name` in a docstring renders as code, not as a broken reference
nitpicky = True
# type names that numpydoc writes from the docstrings' "Parameters" lines are not references;
# these are the few that Sphinx still tries to resolve (external classes in signatures)
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|torch|pandas|matplotlib|dask|joblib|skops)\..*"),
    (r"py:.*", r"(ArrayLike|MatrixLike|Self|Any|Sequence|Callable|Iterable|Mapping)"),
]

# -- autodoc / autosummary / numpydoc -----------------------------------------------------------

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc "Parameters" sections say the types
autodoc_member_order = "groupwise"
autoclass_content = "class"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters (one per method)."""
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return skip


# -- the API reference, generated from the public modules' __all__ ------------------------------

#: the public modules, in the order of the reference; an object re-exported by several of them
#: gets its page under the first (the top-level estimators under ``unlabeled``)
PUBLIC_MODULES = [
    "unlabeled",
    "unlabeled.pu",
    "unlabeled.pu.priors",
    "unlabeled.pu.sar",
    "unlabeled.metrics",
    "unlabeled.model_selection",
    "unlabeled.ssl",
    "unlabeled.mil",
    "unlabeled.cluster",
    "unlabeled.lupi",
    "unlabeled.generative",
    "unlabeled.datasets",
    "unlabeled.model_io",
    "unlabeled.exceptions",
    "unlabeled.base",
    "unlabeled.registry",
    "unlabeled.plotting",
]
#: what each public constant is (module-level data carry no docstring of their own)
DATA_DOCS = {
    "unlabeled.__version__": "The version of the package, as a string (model files record it).",
    "unlabeled.metrics.LOSSES": "The loss names that :func:`unlabeled.metrics.pu_risk` accepts.",
    "unlabeled.registry.FAMILIES": (
        "The families of estimators by name, one :class:`unlabeled.registry.Family` each: the "
        "data layouts that ``register(family=...)`` names."
    ),
    "unlabeled.metrics.SENSITIVITY_METRICS": (
        "The metric names that :func:`unlabeled.metrics.prior_sensitivity` accepts."
    ),
    "unlabeled.metrics.SCORING_NAMES": (
        "The metric names that :func:`unlabeled.metrics.make_pu_scorer` and "
        "``PUGridSearchCV(scoring=...)`` accept."
    ),
    "unlabeled.model_selection.DEFAULT_LAMS": (
        "The regularisation path of the default grid (walked from the largest value down)."
    ),
    "unlabeled.model_selection.DEFAULT_GAMMA_FACTORS": (
        'The kernel widths of the default grid, as multiples of ``gamma="scale"`` on the data '
        "given to ``fit``."
    ),
    "unlabeled.datasets.FCPS_NAMES": (
        "The FCPS shapes that :func:`unlabeled.datasets.load_fcps` reads."
    ),
    "unlabeled.datasets.MIL_NAMES": (
        "The multi-instance sets that :func:`unlabeled.datasets.load_mil` reads."
    ),
    "unlabeled.datasets.UCI_SMALL_NAMES": (
        "The 12 UCI sets of the papers' tables, read by :func:`unlabeled.datasets.load_uci_small`."
    ),
    "unlabeled.model_io.TRUSTED_TYPES": (
        "The types a model file may contain (by name): the public estimators, NumPy and SciPy "
        "containers. Anything else in a file is refused, not loaded."
    ),
    "unlabeled.base.ArrayLike": (
        "NumPy's ``numpy.typing.ArrayLike``: anything NumPy reads as an array."
    ),
    "unlabeled.base.MatrixLike": (
        "A data matrix: anything NumPy reads as a 2-D array, or a SciPy sparse matrix or array."
    ),
}


def _public_objects():
    """(module, [(name, object, kind, canonical name)]) for each public module, in order."""
    import importlib
    import inspect
    import types

    canonical: dict[int, str] = {}
    sections = []
    for modname in PUBLIC_MODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            if modname == "unlabeled.plotting":
                continue
            raise
        rows = []
        for name in module.__all__:
            obj = getattr(module, name)
            full = f"{modname}.{name}"
            if isinstance(obj, types.ModuleType):
                kind = "module"
            elif full in DATA_DOCS:
                kind = "data"
            elif inspect.isclass(obj):
                kind = "class"
            elif callable(obj):
                kind = "function"
            else:
                kind = "data"
            if kind in ("class", "function"):
                first = canonical.setdefault(id(obj), full)
            else:
                first = full
            rows.append((name, obj, kind, first))
        sections.append((module, rows))
    return sections, canonical


_SECTIONS, CANONICAL = _public_objects()
#: documented name -> canonical name, for every re-exported class and function
ALIASES: dict[str, str] = {}


def _write_api() -> None:
    """docs/api/index.rst: one section per public module, one page per class and function."""
    out = HERE / "api"
    out.mkdir(exist_ok=True)
    lines = [
        ".. Generated by docs/conf.py from the public modules' __all__: do not edit.",
        "",
        ".. _api:",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of the package, by module. The main estimators are importable from",
        "``unlabeled`` itself and have their page there; their subpackages list them again.",
        "",
        *estimator_table(),
    ]
    missing = []
    for module, rows in _SECTIONS:
        modname = module.__name__
        title = f"``{modname}``"
        lines += [f".. _api-{modname}:", "", title, "-" * len(title), ""]
        lines += [f".. automodule:: {modname}", "   :no-members:", ""]
        own = [r for r in rows if r[2] in ("class", "function") and r[3] == f"{modname}.{r[0]}"]
        again = [r for r in rows if r[2] in ("class", "function") and r[3] != f"{modname}.{r[0]}"]
        subs = [r for r in rows if r[2] == "module"]
        data = [r for r in rows if r[2] == "data"]
        lines += [f".. currentmodule:: {modname}", ""]
        for label, group in (
            ("Classes", [r for r in own if r[2] == "class"]),
            ("Functions", [r for r in own if r[2] == "function"]),
        ):
            if group:
                lines += [
                    f"**{label}**",
                    "",
                    ".. autosummary::",
                    "   :toctree: generated/",
                    "   :nosignatures:",
                    "",
                ]
                lines += [f"   {name}" for name, *_ in sorted(group, key=lambda r: r[0].lower())]
                lines += [""]
        if again:
            lines += [
                "**Also here** (documented where they were first listed)",
                "",
                ".. autosummary::",
                "   :nosignatures:",
                "",
            ]
            for name, _, _, first in sorted(again, key=lambda r: r[0].lower()):
                ALIASES[f"{modname}.{name}"] = first
                lines += [f"   ~{first}"]
            lines += [""]
        if subs:
            lines += [
                "**Subpackages and modules**: "
                + ", ".join(f":ref:`{modname}.{n} <api-{modname}.{n}>`" for n, *_ in subs)
                + "",
                "",
            ]
        if data:
            lines += ["**Constants**", ""]
            for name, obj, _, _ in data:
                full = f"{modname}.{name}"
                if full not in DATA_DOCS:
                    missing.append(full)
                    continue
                lines += [f".. py:data:: {name}"]
                if isinstance(obj, (tuple, str)) and len(repr(obj)) < 200:
                    lines += [f"   :value: {obj!r}"]
                lines += ["", f"   {DATA_DOCS[full]}", ""]
    if missing:
        raise RuntimeError(f"docs/conf.py: describe these public constants in DATA_DOCS: {missing}")
    text = "\n".join(lines) + "\n"
    index = out / "index.rst"
    if not index.exists() or index.read_text() != text:
        index.write_text(text)


_write_api()


def _resolve_alias(app, env, node, contnode):
    """Resolve a reference to a public object under any of its public names.

    The docstrings name objects as users import them (``unlabeled.PUSVC``,
    ``unlabeled.pu.priors.TIcE``, or ``TIcE`` inside the ``pu`` package); each has one page,
    under its canonical name. A reference Sphinx cannot resolve is looked up by the object's
    identity: the name as written, then relative to the referring module, then by its last
    component when that is unique among the documented names.
    """
    import importlib

    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    modname = node.get("py:module") or ""
    clsname = node.get("py:class") or ""

    def lookup(path):
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            rest = parts[i:]
            prefix = None
            for j, part in enumerate(rest):
                try:
                    obj = getattr(obj, part)
                except AttributeError:
                    return None
                if id(obj) in CANONICAL and j < len(rest) - 1:
                    prefix = (CANONICAL[id(obj)], rest[j + 1 :])
            if id(obj) in CANONICAL:
                return CANONICAL[id(obj)]
            if prefix:
                return ".".join([prefix[0], *prefix[1]])
            return None
        return None

    tries = [target]
    if modname:
        tries += [f"{modname}.{clsname}.{target}" if clsname else "", f"{modname}.{target}"]
    found = None
    for t in filter(None, tries):
        found = lookup(t)
        if found:
            break
    if found is None and "." not in target:
        documented = {*CANONICAL.values(), *DATA_DOCS}
        matches = {c for c in documented if c.rsplit(".", 1)[-1] == target}
        if len(matches) == 1:
            found = matches.pop()
    if found is None:
        return _existing_private(node, contnode, target, modname)
    if found == node["reftarget"]:
        return None
    domain = env.get_domain("py")
    doc, builder = node["refdoc"], app.builder
    return (
        domain.resolve_xref(env, doc, builder, node["reftype"], found, node, contnode)
        or domain.resolve_xref(env, doc, builder, "obj", found, node, contnode)
        or _existing_private(node, contnode, target, modname)
    )


#: references to names that exist in the code but are not public (a private helper, a
#: module constant left out of ``__all__``): rendered as code, without a link, and listed at
#: the end of the build so that the docstrings can name public objects instead
PRIVATE_REFERENCES: set[str] = set()


def _existing_private(node, contnode, target, modname):
    import importlib
    import inspect

    from sphinx.util import logging

    parts = target.split(".")
    exists = any(p.startswith("_") and not p.startswith("__") for p in parts)
    if not exists:
        # a constant or helper of the package that __all__ leaves out
        for name, module in list(sys.modules.items()):
            if not name.startswith("unlabeled") or module is None:
                continue
            obj = module
            for part in parts:
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is not None:
                exists = True
                break
    if not exists and len(parts) == 1 and node.get("reftype") in ("meth", "attr", "obj"):
        # a method named without its class (a "See Also" entry of a base class)
        for modname_ in ("unlabeled",):
            module = importlib.import_module(modname_)
            exists = any(
                inspect.isclass(getattr(module, n)) and hasattr(getattr(module, n), target)
                for n in module.__all__
                if not n.startswith("_") and n[0].isupper()
            )
    if not exists:
        return None
    PRIVATE_REFERENCES.add(f"{node['refdoc']}: {node['reftarget']}")
    logging.getLogger(__name__).verbose("not a public name, shown as code: %s", node["reftarget"])
    return contnode


_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])([A-Za-z]\w*?)_(?=[,)\s]|$)")
_FIELD_LINE = re.compile(r"^(\s*\w+ : )(.*)$")


def _escape_fitted_names(app, what, name, obj, options, lines):
    """Escape ``name_`` in the type part of ``name : type`` lines (``shape (n_iter_,)``),
    which docutils would read as a reference to a target ``n_iter``."""
    for i, line in enumerate(lines):
        m = _FIELD_LINE.match(line)
        if m and "`" not in m.group(2):
            lines[i] = m.group(1) + _TRAILING_UNDERSCORE.sub(r"\1\\_", m.group(2))


# -- sphinx-gallery -----------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],  # relative to this folder
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py|/_",
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "subsection_order": ExplicitOrder(
        [
            f"../examples/{name}"
            for name in (
                "pu",
                "semi_supervised",
                "multi_instance",
                "clustering",
                "privileged",
                "generative",
                "workflow",
            )
        ]
    ),
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "backreferences_dir": "api/generated/backreferences",
    "doc_module": ("unlabeled",),
    "show_memory": False,
    # (its pages load jQuery, DataTables and Bootstrap from CDNs: the site must read offline)
    "write_computation_times": False,
    "min_reported_time": 1,
    "plot_gallery": os.environ.get("UNLABELED_DOCS_PLOT", "True"),
}

# -- html ---------------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"unlabeled {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_show_sourcelink = False
html_theme_options = {
    "github_url": REPOSITORY,
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}
# single pages without sub-pages: no empty "Section Navigation" column beside them
html_sidebars = {"index": [], "getting_started": [], "which_method": []}

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True


def _report_private_references(app, exception):
    """List, after the build, the references shown as code for want of a public target."""
    if exception is None and PRIVATE_REFERENCES:
        from sphinx.util import logging

        logging.getLogger(__name__).info(
            "references to names outside the public API, shown as code (%d): %s",
            len(PRIVATE_REFERENCES),
            "; ".join(sorted(PRIVATE_REFERENCES)),
        )


#: what a page needs to be read (scripts, style sheets, images, fonts) at an address outside
#: the site; links the reader may follow (a canonical URL, GitHub, the papers) are not needed
_EXTERNAL_RESOURCE = re.compile(
    r"""<script\b[^>]*\bsrc=["'](?:https?:)?//"""
    r"""|<link\b(?=[^>]*\brel=["'](?:stylesheet|preload|modulepreload)["'])"""
    r"""[^>]*\bhref=["'](?:https?:)?//"""
    r"""|<img\b[^>]*\bsrc=["'](?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def _check_offline(app, exception):
    """Fail the build where a page would need the network to be read: every script, style
    sheet, image and font must be served from the site itself (issue 46: the maths was
    rendered by MathJax from a CDN, raw LaTeX offline)."""
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from sphinx.errors import SphinxError

    out = Path(app.outdir)
    found = []
    for path in sorted([*out.rglob("*.html"), *out.rglob("*.css")]):
        m = _EXTERNAL_RESOURCE.search(path.read_text(encoding="utf-8", errors="replace"))
        if m:
            found.append(f"{path.relative_to(out)}: {m.group(0)}")
    if found:
        raise SphinxError(
            f"{len(found)} files need a resource outside the site to be read: "
            + "; ".join(found[:10])
        )


def setup(app):
    app.connect("build-finished", _report_private_references)
    app.connect("build-finished", _check_offline, priority=900)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _resolve_alias)
    app.connect("autodoc-process-docstring", _escape_fitted_names, priority=100)
