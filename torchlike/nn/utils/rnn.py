"""Variable-length sequences: padding, and the PackedSequence that stores a
batch of them time step by time step.

A packed batch keeps, for each time step t, the entries of the sequences
still running at t (``batch_sizes[t]`` of them), the sequences sorted by
decreasing length; ``sorted_indices``/``unsorted_indices`` map between that
order and the caller's."""
from collections import namedtuple

import numpy as _np

from ... import _C

Tensor = _C.Tensor

__all__ = ["PackedSequence", "invert_permutation", "pad_sequence", "pack_padded_sequence",
           "pad_packed_sequence", "pack_sequence", "unpad_sequence", "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data (sum of lengths, *), batch_sizes (T,) int64 on the CPU."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The packed data converted (``Tensor.to``'s arguments); the index
        permutations follow the data to its device, the batch sizes stay."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device)
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cuda(self, *args, **kwargs):
        # a device among the arguments wins, else "cuda" is added (as PyTorch)
        probe = _C.empty((0,), dtype=self.data.dtype, device=self.data.device)
        if probe.to(*args, **kwargs).is_cuda:
            return self.to(*args, **kwargs)
        return self.to(*args, **{**kwargs, "device": "cuda"})

    def cpu(self, *args, **kwargs):
        probe = _C.empty((0,), dtype=self.data.dtype, device=self.data.device)
        if probe.to(*args, **kwargs).device.type == "cpu":
            return self.to(*args, **kwargs)
        return self.to(*args, **{**kwargs, "device": "cpu"})

    def double(self):
        return self.to(dtype=_C.float64)

    def float(self):
        return self.to(dtype=_C.float32)

    def half(self):
        return self.to(dtype=_C.float16)

    def long(self):
        return self.to(dtype=_C.int64)

    def int(self):
        return self.to(dtype=_C.int32)

    def short(self):
        return self.to(dtype=_C.int16)

    def char(self):
        return self.to(dtype=_C.int8)

    def byte(self):
        return self.to(dtype=_C.uint8)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def is_pinned(self):
        return self.data.is_pinned()

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _invert_permutation(perm):
    inverse = _C.empty_like(perm)
    inverse[perm] = _C.arange(perm.numel(), device=perm.device)
    return inverse


def invert_permutation(permutation):
    """The inverse of a 1-D index permutation (None stays None): turns a
    PackedSequence's sorted_indices into its unsorted_indices."""
    return None if permutation is None else _invert_permutation(permutation)


def _lengths_list(lengths):
    return [int(v) for v in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)),
    padding with ``padding_value``."""
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if not sequences:  # max() of nothing would say so in its own words
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    rows = []
    trailing = tuple(sequences[0].shape[1:])
    dtype = sequences[0].dtype  # PyTorch copies each into an output of the first's dtype
    for s in sequences:
        s = _to_trailing(s if s.dtype == dtype else s.to(dtype), trailing)
        extra = max_len - s.shape[0]
        pads = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        rows.append(_C._pad(s, pads, "constant", padding_value) if extra else s)
    out = _C.stack(rows, 0)
    return out if batch_first else out.transpose(0, 1)


def _to_trailing(s, trailing):
    """Sequence s (L, *) with the first sequence's trailing dims: PyTorch
    copies each sequence into an output shaped by the first, so dims of size
    1 (or missing on the left) broadcast and any other mismatch is its
    broadcasting error."""
    want = (s.shape[0],) + trailing
    have = tuple(s.shape)
    if have == want:
        return s
    n = max(len(have), len(want))
    a, b = (1,) * (n - len(want)) + want, (1,) * (n - len(have)) + have
    for i, (d, e) in enumerate(zip(a, b)):
        if d != e and d != 1 and e != 1:
            raise RuntimeError(f"The size of tensor a ({d}) must match the size of tensor b "
                               f"({e}) at non-singleton dimension {i}")
    if len(have) > len(want) or any(e > d for d, e in zip(a, b)):
        shape = [max(d, e) for d, e in zip(a, b)]
        raise RuntimeError(f"output with shape {list(want)} doesn't match the broadcast shape "
                           f"{shape}")
    return s.expand(*want)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of unpadded sequences (inverse of ``pad_sequence``)."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *)) of sequences of ``lengths``."""
    if enforce_sorted:
        # PyTorch reads the lengths as a CPU int64 tensor, which its kernel
        # wants 1-d (with enforce_sorted=False its sort and index_select
        # meet a 2-d one first, in their own words)
        ndim = lengths.ndim if isinstance(lengths, Tensor) else _np.ndim(lengths)
        if ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{ndim}D cpu Long tensor")
    lengths = _lengths_list(lengths)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if enforce_sorted:
        sorted_indices = None
        order = list(range(len(lengths)))
    else:
        # the batch is first cut to the listed sequences, as PyTorch's
        # index_select of the sorted order does
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = _C.tensor(order, dtype=_C.int64, device=input.device)
    # PyTorch's checks, in its order: the count, the last length, the order
    batch = input.shape[0 if batch_first else 1] if enforce_sorted else len(lengths)
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch})")
    if lengths and lengths[order[-1]] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if enforce_sorted and any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                           "to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    x = input.transpose(0, 1) if batch_first else input              # T, B, *
    if lengths and max(lengths) > x.shape[0]:
        # PyTorch's CPU kernel reads past the input here and returns a packed
        # sequence whose batch_sizes do not add up to its data (docs/nn.md)
        raise RuntimeError(f"pack_padded_sequence: a length of {max(lengths)} is longer than "
                           f"the input's {x.shape[0]} time steps")
    if sorted_indices is not None:
        x = x.index_select(1, sorted_indices)
    sorted_lengths = [lengths[i] for i in order]
    steps = sorted_lengths[0] if sorted_lengths else 0
    batch_sizes = [sum(1 for n in sorted_lengths if n > t) for t in range(steps)]
    data = _C.cat([x[t, :b] for t, b in enumerate(batch_sizes)], 0)
    # batch_sizes is a host buffer (PyTorch's too), whatever the default device
    return PackedSequence(data, _C.tensor(batch_sizes, dtype=_C.int64, device="cpu"),
                          sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack to a padded (T, B, *) batch (or (B, T, *)) in the caller's order;
    returns (padded, lengths)."""
    data, batch_sizes = sequence.data, _lengths_list(sequence.batch_sizes)
    T = len(batch_sizes)
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the "
                             f"longest sequence in input, but got total_length={total_length}"
                             f" and max sequence length being {T}")
        T = total_length
    B = batch_sizes[0] if batch_sizes else 0
    rest = tuple(data.shape[1:])
    rows, offset = [], 0
    for t in range(T):
        b = batch_sizes[t] if t < len(batch_sizes) else 0
        step = data[offset:offset + b]
        offset += b
        if b < B:
            fill = _C.full((B - b,) + rest, padding_value, dtype=data.dtype, device=data.device)
            step = _C.cat([step, fill], 0)
        rows.append(step)
    padded = _C.stack(rows, 0) if rows else _C.zeros((0, B) + rest, dtype=data.dtype,
                                                      device=data.device)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(B)]
    lengths = _C.tensor(lengths, dtype=_C.int64, device="cpu")  # on the host, as PyTorch's
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices.to(device=padded.device))
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) tensors."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences in a PackedSequence (inverse of ``pack_sequence``)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
