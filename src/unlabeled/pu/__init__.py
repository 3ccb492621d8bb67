"""Positive-unlabeled learning."""

from ._pusvc import PUSVC

__all__ = ["PUSVC"]
