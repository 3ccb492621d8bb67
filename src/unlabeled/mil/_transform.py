"""Bags through a scikit-learn transformer: the step before a multi-instance classifier in a
:class:`~sklearn.pipeline.Pipeline`, where a list of bags cannot go through a scaler."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from sklearn.base import TransformerMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import ArrayLike, Instance
from ..base import ValidatedEstimator
from ._base import BagsLike, as_instances, is_bags


@runtime_checkable
class _Transformer(Protocol):
    """What ``transformer`` must be: an object with ``fit`` and ``transform``."""

    def fit(self, X: Any) -> Any: ...

    def transform(self, X: Any) -> Any: ...


def _transformer_has(name):
    """For :func:`available_if`: the wrapped transformer has ``name`` (fitted or not)."""

    def check(self):
        getattr(self.transformer_ if hasattr(self, "transformer_") else self.transformer, name)
        return True

    return check


# auto_wrap_output_keys=None: scikit-learn's set_output wrapping would put a list of bags in one
# DataFrame; the wrapped transformer's own output setting is used instead (set_output below)
class BagTransformer(TransformerMixin, ValidatedEstimator, auto_wrap_output_keys=None):
    """A scikit-learn transformer applied to the instances of bags, bag by bag out.

    Fits ``transformer`` (cloned) on the instances of all the bags stacked, as a scaler of
    the instances would be fitted, and returns the bags transformed: a list of bags in, a list
    of the same bags transformed out (one 2-D array per bag, the instances in their order; a
    3-D array in, a 3-D array out). A 2-D ``X`` of instances (the layout with ``groups``) is
    transformed row by row as by ``transformer`` itself: its rows are independent, so it
    needs no bag ids. This makes ``make_pipeline(BagTransformer(StandardScaler()), MISVM())``
    work on a list of bags, where ``StandardScaler`` alone would refuse the list.

    The transformer must map instances to instances (one output row per input row):
    scalers, :class:`~sklearn.preprocessing.PolynomialFeatures`,
    :class:`~sklearn.decomposition.PCA`, ... A transformer that learns from ``y`` is given
    none (``y`` labels bags, not instances).

    Parameters
    ----------
    transformer : estimator with fit and transform
        The instance transformer, cloned at ``fit``.

    Attributes
    ----------
    transformer_ : estimator
        The fitted clone.
    n_features_in_ : int
        Features of the instances seen at ``fit``.
    feature_names_in_ : ndarray of str
        The column names of a 2-D ``X`` given as a DataFrame (the instance layout), when
        ``transformer`` records them.

    See Also
    --------
    MISVM, miSVM, MILWellSVM : The classifiers that take the bags.

    Notes
    -----
    In the instance layout (a 2-D ``X`` with ``groups``) a plain transformer works as well:
    ``Pipeline([("scale", StandardScaler()), ("mil", MISVM())])`` with
    ``sklearn.set_config(enable_metadata_routing=True)`` and ``pipe.fit(X, y, groups=ids)``
    (``predict(X, groups=ids)``, ``cross_val_score(pipe, X, y, params={"groups": ids})``):
    the classifiers request ``groups``, so that the pipeline routes it to them, and the
    scaler, which does not, never sees it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from unlabeled.mil import MISVM, BagTransformer
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(0, 1, (4, 2)) * [1, 1000] for _ in range(20)]  # unequal scales
    >>> for b in bags[:10]:
    ...     b[0, 0] += 5  # one key instance per positive bag
    >>> y = np.repeat([1, 0], 10)
    >>> scaled = BagTransformer(StandardScaler()).fit_transform(bags)
    >>> len(scaled), scaled[0].shape
    (20, (4, 2))
    >>> mil = MISVM(C=10.0, probability=True, random_state=0)
    >>> clf = make_pipeline(BagTransformer(StandardScaler()), mil).fit(bags, y)
    >>> float(clf.score(bags, y))
    1.0
    >>> clf.predict_proba(bags).shape  # per bag, columns in the order of classes_
    (20, 2)
    """

    _parameter_constraints: dict = {
        "transformer": [
            Instance(
                (_Transformer,),
                "a scikit-learn transformer with fit and transform (such as StandardScaler())",
            )
        ]
    }

    def __init__(self, transformer: Any) -> None:
        self.transformer = transformer

    def fit(self, X: BagsLike, y: ArrayLike | None = None) -> BagTransformer:
        """Fit the transformer on the instances of the bags ``X``.

        Parameters
        ----------
        X : list of array-like of shape (n_instances_i, n_features), or array-like of shape
            (n_instances, n_features)
            One 2-D array per bag, or the instances.
        y : ignored
            Bag labels, accepted for the pipeline's sake.

        Returns
        -------
        self
        """
        self._validate_params()
        stacked, _ = self._stack(X)
        transformer = clone(self.transformer).fit(stacked)
        self.transformer_ = transformer  # set last: a failed fit leaves self as it was
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(transformer, name):
                setattr(self, name, getattr(transformer, name))
            else:
                self.__dict__.pop(name, None)
        return self

    def transform(self, X: BagsLike) -> Any:
        """The bags ``X`` with every instance transformed.

        Parameters
        ----------
        X : list of array-like of shape (n_instances_i, n_features), or array-like of shape
            (n_instances, n_features)
            One 2-D array per bag (or a 3-D array), or the instances.

        Returns
        -------
        list of arrays, ndarray of shape (n_bags, n_instances, n_features_out), or the
        transformer's output of shape (n_instances, n_features_out)
            One transformed 2-D array per bag, in the order of ``X`` (new arrays: ``X`` is
            never changed), for a list of bags; a 3-D array for a 3-D array; what
            ``transformer`` returns for a 2-D ``X``.
        """
        check_is_fitted(self)
        stacked, sizes = self._stack(X)
        out = self.transformer_.transform(stacked)
        return self._unstack(X, out, sizes)

    @available_if(_transformer_has("inverse_transform"))
    def inverse_transform(self, X: BagsLike) -> Any:
        """The bags ``X`` mapped back by the transformer's ``inverse_transform``; layouts as
        for :meth:`transform`."""
        check_is_fitted(self)
        stacked, sizes = self._stack(X)
        return self._unstack(X, self.transformer_.inverse_transform(stacked), sizes)

    @available_if(_transformer_has("get_feature_names_out"))
    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """The transformer's output feature names (those of each instance).

        Parameters
        ----------
        input_features : array-like of str, optional
            As for the transformer's ``get_feature_names_out``.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self)
        return self.transformer_.get_feature_names_out(input_features)

    def set_output(self, *, transform: str | None = None) -> BagTransformer:
        """Set the output container of the transformer (``"default"``, ``"pandas"``,
        ``"polars"``): each bag of a list comes out in it, as does a 2-D ``X``.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None
            None leaves the setting unchanged.

        Returns
        -------
        self
        """
        if transform is not None:
            self.transformer.set_output(transform=transform)
            if hasattr(self, "transformer_"):
                self.transformer_.set_output(transform=transform)
        return self

    # ------------------------------------------------------------------ layouts
    @staticmethod
    def _stack(X):
        """The instances of ``X`` (one 2-D input for the transformer) and the size of each
        bag (None for a 2-D ``X``, passed through unchanged)."""
        if not is_bags(X):
            if isinstance(X, (list, tuple)) and len(X) == 0:
                raise ValueError("X is an empty list of bags: give at least one bag")
            return X, None
        stacked, bag, n_bags = as_instances(X)
        return stacked, np.bincount(bag, minlength=n_bags)

    @staticmethod
    def _unstack(X, out, sizes):
        if sizes is None:
            return out
        if isinstance(X, np.ndarray) and isinstance(out, np.ndarray):
            return out.reshape(X.shape[0], X.shape[1], -1)  # a 3-D array in, a 3-D array out
        bounds = np.cumsum(sizes)[:-1]
        if hasattr(out, "iloc"):  # pandas: the rows of each bag
            starts = np.r_[0, bounds]
            return [out.iloc[a : a + k] for a, k in zip(starts, sizes, strict=True)]
        if sp.issparse(out) or not isinstance(out, np.ndarray):
            starts = np.r_[0, bounds]
            return [out[int(a) : int(a + k)] for a, k in zip(starts, sizes, strict=True)]
        return np.split(out, bounds)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            inner = self.transformer.__sklearn_tags__()
        except AttributeError:
            return tags
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        tags.transformer_tags.preserves_dtype = inner.transformer_tags.preserves_dtype
        return tags
