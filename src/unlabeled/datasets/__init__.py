"""Data sets for PU learning: the USMO-paper UCI sets, an exact Poker-hand generator, PU
labelling of fully labeled data, and loaders for svmlight, CSV and NumPy files."""

from ._files import load_csv, load_file, load_npz, load_svmlight
from ._poker import make_poker_hands
from ._pu import make_pu_labels
from ._uci import UCI_SMALL_NAMES, load_uci_small

__all__ = [
    "UCI_SMALL_NAMES",
    "load_csv",
    "load_file",
    "load_npz",
    "load_svmlight",
    "load_uci_small",
    "make_poker_hands",
    "make_pu_labels",
]
