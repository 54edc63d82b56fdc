"""Padded sequences (``pad_sequence``) and the PackedSequence type."""
from collections import namedtuple

from ... import _C


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Sequences of different lengths packed time-step by time-step (the RNN
    layers do not take them yet)."""


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)),
    padding with ``padding_value``."""
    sequences = list(sequences)
    max_len = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        extra = max_len - s.shape[0]
        pads = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        rows.append(_C._pad(s, pads, "constant", padding_value) if extra else s)
    out = _C.stack(rows, 0)
    return out if batch_first else out.transpose(0, 1)
