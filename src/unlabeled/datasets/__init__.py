"""Data sets: the USMO-paper UCI sets, an exact Poker-hand generator, PU labelling of fully
labeled data, an RCV1-shaped sparse generator, loaders for svmlight, CSV and NumPy files, the
Mackey-Glass LUPI task, the five multi-instance sets, the CLSST data (the CAKE, TOES and G50C
generators and the FCPS shapes), and Adult- and Shuttle-shaped tabular generators."""

from .._files import load_csv, load_file, load_npz, load_svmlight
from ._clsst import FCPS_NAMES, load_fcps, make_cake, make_g50c, make_toes
from ._mackey_glass import make_mackey_glass
from ._mil import MIL_NAMES, load_mil
from ._poker import make_poker_hands
from ._pu import make_pu_labels
from ._rcv1 import make_rcv1_like
from ._tabular import make_adult_like, make_shuttle_like
from ._uci import UCI_SMALL_NAMES, load_uci_small

__all__ = [
    "FCPS_NAMES",
    "MIL_NAMES",
    "UCI_SMALL_NAMES",
    "load_csv",
    "load_fcps",
    "load_mil",
    "load_file",
    "load_npz",
    "load_svmlight",
    "load_uci_small",
    "make_adult_like",
    "make_cake",
    "make_g50c",
    "make_mackey_glass",
    "make_poker_hands",
    "make_pu_labels",
    "make_rcv1_like",
    "make_shuttle_like",
    "make_toes",
]
