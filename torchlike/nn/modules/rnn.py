"""Recurrent layers: RNN, LSTM, GRU and their cells.

Parameters are named and shaped as PyTorch's (``weight_ih_l0``,
``bias_hh_l1_reverse``, ``weight_hr_l0`` for LSTM projections), with the gate
blocks in PyTorch's order (LSTM: input, forget, cell, output; GRU: reset,
update, new), so state dicts move between the two libraries.  One direction
of one layer over the whole sequence is one op, ``_C._rnn_layer`` (the time
loop in C: the input projection of all steps as one GEMM, then per step one
GEMM and one fused gate kernel; src/nn/rnn); this driver stacks layers and
directions, with dropout between layers.  A PackedSequence runs on its data
rows and batch sizes as they are (no padding).

Legend: L sequence length, N batch, H hidden size, P projection size,
D = 2 if bidirectional else 1."""
import math
import numbers
import warnings

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._rnn_layer import MODES
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- one time step of each cell ----------------------------------------------------------
# ``gi`` is the input projection x W_ih^T + b_ih (N, G*H), precomputed for the
# whole sequence; ``h``/``c`` the previous state (N, H).  Per step: one GEMM
# for the hidden projection, then one fused kernel (src/nn/rnn) for the gates,
# which adds b_hh itself (GRU: b_hn inside r * (.), as PyTorch).

def _rnn_step(gi, h, w_hh, b_hh, relu):
    return _C._fused_rnn_cell(gi, F.linear(h, w_hh), None, b_hh, relu)


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    h, c, _ = _C._thnn_fused_lstm_cell(gi, F.linear(h, w_hh), c, None, b_hh)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh, b_hh):
    return _C._thnn_fused_gru_cell(gi, F.linear(h, w_hh), h, None, b_hh)[0]


def _check_cell_shapes(input, hx, input_size, hidden_size):
    """input (N, input_size) and each state in hx (N, hidden_size), in
    PyTorch's words (hidden0 is h, hidden1 the LSTM's c); shared by the cell
    modules and the functional rnn_*_cell / lstm_cell / gru_cell."""
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                           f"expected {input_size}")
    for i, h in enumerate(hx):
        if h.ndim != 2:
            raise RuntimeError(f"Expected 2D hidden{i} (batch x hidden_size), but got "
                               f"{h.ndim}D tensor")
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} "
                               f"batch size {h.shape[0]}")
        if h.shape[1] != hidden_size:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, "
                               f"expected {hidden_size}")


def _any_autocast_enabled():
    from ...amp.autocast_mode import is_autocast_enabled
    return is_autocast_enabled("cpu") or is_autocast_enabled("cuda")


class RNNBase(Module):
    """The parameters and the layer/direction loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        float(dropout)  # as PyTorch, which stores float(dropout) before checking it
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 \
                or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        # PyTorch's checks, in its order and words
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
            if kind is int and value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if not isinstance(num_layers, int):
            raise TypeError(f"'{type(num_layers).__name__}' object cannot be interpreted as an "
                            "integer")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        D = 2 if bidirectional else 1
        kw = dict(device=device, dtype=dtype)
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * D
            for direction in range(D):
                sfx = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                params = [("weight_ih" + sfx, (gate_size, layer_input)),
                          ("weight_hh" + sfx, (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih" + sfx, (gate_size,)), ("bias_hh" + sfx, (gate_size,))]
                if proj_size > 0:
                    params += [("weight_hr" + sfx, (proj_size, hidden_size))]
                for name, shape in params:
                    setattr(self, name, Parameter(_C.empty(shape, **kw)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _all_weights(self):
        """The parameter names per layer and direction (old weight-drop code
        reads them)."""
        D = 2 if self.bidirectional else 1
        per = len(self._flat_weights_names) // (self.num_layers * D)
        names = self._flat_weights_names
        return [names[i:i + per] for i in range(0, len(names), per)]

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (kept for code written against cuDNN's packed weights)."""

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _layer_weights(self, layer, direction):
        sfx = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = lambda n: getattr(self, n + sfx, None)   # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), \
            get("weight_hr")

    def _run(self, input, hx, batch_sizes=None):
        """input (L, N, in), or the (R, in) rows of a packed sequence with its
        batch_sizes; hx: (h0,) or (h0, c0), each (layers * D, N, *).
        Returns output ((L, N, D * out) or (R, D * out)) and the final states
        in hx's layout."""
        D = 2 if self.bidirectional else 1
        is_lstm = self.mode == "LSTM"
        layer_input = input
        finals = [[] for _ in hx]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(D):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction)
                state = [s[layer * D + direction] for s in hx]
                out, h, c, _ = _C._rnn_layer(layer_input, state[0], state[1] if is_lstm else None,
                                             w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes,
                                             MODES[self.mode], direction == 1)
                outputs.append(out)
                finals[0].append(h)
                if is_lstm:
                    finals[1].append(c)
            layer_input = outputs[0] if D == 1 else _C.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, tuple(_C.stack(f, 0) for f in finals)

    def _prepare(self, input, hx):
        """Bring input to (L, N, in) and hx to a tuple of (layers * D, N, *)."""
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.ndim}D{' tensor' if self.mode.startswith('RNN') else ''} "
                             "instead")
        unbatched = input.ndim == 2
        if hx is not None:
            hx = self._hx_states(hx)
            self._check_hx_ndim(hx[:2], 2 if unbatched else 3)
            if self.mode == "LSTM" and len(hx) != 2:
                raise RuntimeError("lstm expects two hidden states")
        self._check_dtype(input)
        if unbatched:
            input = input.unsqueeze(1)
            hx = None if hx is None else tuple(h.unsqueeze(1) for h in self._states(hx))
        elif self.batch_first:
            input = input.transpose(0, 1)
        self._check_input(input.shape[2])
        return input, self._hidden(hx, input.shape[1], input), unbatched

    def _hx_states(self, hx):
        """hx as PyTorch's forward reads it, with its errors: an LSTM indexes
        hx[0] and hx[1] (so a tensor is split along its first dim, and a
        1-tuple runs out of range); the other RNNs take one tensor."""
        if self.mode != "LSTM":
            if not isinstance(hx, _C.Tensor):
                raise AttributeError(f"'{type(hx).__name__}' object has no attribute 'dim'")
            return (hx,)
        if isinstance(hx, _C.Tensor):
            return (hx[0], hx[1])
        if len(hx) < 2:
            raise IndexError(f"{type(hx).__name__} index out of range")
        return tuple(hx)

    def _check_hx_ndim(self, hs, want):
        if all(h.ndim == want for h in hs):
            return
        kind = "unbatched 2-D" if want == 2 else "batched 3-D"
        if self.mode == "LSTM" and len(hs) == 2:
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                               f"({hs[0].ndim}-D, {hs[1].ndim}-D) tensors")
        raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                           f"{hs[0].ndim}-D tensor")

    def _check_dtype(self, input):
        w = self.weight_ih_l0
        if input.dtype != w.dtype and not _any_autocast_enabled():
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({input.dtype})")

    def _check_input(self, size):
        if size != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {size}")

    @staticmethod
    def _states(hx):
        return tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)

    def _hidden(self, hx, N, like):
        """hx as a tuple of (layers * D, N, *), zeros when None, shapes checked."""
        D = 2 if self.bidirectional else 1
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = [out_size] + ([self.hidden_size] if self.mode == "LSTM" else [])
        if hx is None:
            return tuple(_C.zeros((self.num_layers * D, N, s), dtype=like.dtype,
                                  device=like.device) for s in sizes)
        hx = self._states(hx)
        for i, (h, s) in enumerate(zip(hx, sizes)):
            want = (self.num_layers * D, N, s)
            if tuple(h.shape) != want:   # PyTorch names an LSTM's two states
                what = f"hidden[{i}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(f"Expected {what} size {want}, got {list(h.shape)}")
        return hx

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            # rows of the sequences sorted by length; hx in the caller's batch
            # order, so permuted to the sorted order and back (as PyTorch)
            data, batch_sizes = input.data, input.batch_sizes
            if data.ndim != 2:
                raise ValueError(f"{type(self).__name__}: Expected packed data to be 2D, got "
                                 f"{data.ndim}D instead")
            self._check_input(data.shape[1])
            self._check_dtype(data)
            N = int(batch_sizes[0]) if batch_sizes.numel() else 0
            if hx is not None and input.sorted_indices is not None:
                hx = tuple(h.index_select(1, input.sorted_indices.to(device=h.device))
                           for h in self._states(hx))
            hx = self._hidden(hx, N, data)
            output, finals = self._run(data, hx, batch_sizes)
            if input.unsorted_indices is not None:
                # the permutations are host tensors (pack_padded_sequence's)
                finals = tuple(f.index_select(1, input.unsorted_indices.to(device=f.device))
                               for f in finals)
            output = PackedSequence(output, batch_sizes, input.sorted_indices,
                                    input.unsorted_indices)
            return output, (finals if self.mode == "LSTM" else finals[0])
        input, hx, unbatched = self._prepare(input, hx)
        if input.shape[0] == 0:
            # (T, N, C) now: PyTorch's kernel refuses no time steps, after
            # the shape checks _prepare made
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, finals = self._run(input, hx)
        if unbatched:
            output = output.squeeze(1)
            finals = tuple(f.squeeze(1) for f in finals)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (finals if self.mode == "LSTM" else finals[0])


class RNN(RNNBase):
    r"""Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``
    (or relu with ``nonlinearity='relu'``)."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit; returns ``output, h_n``."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(_C.empty((num_chunks * hidden_size,), **kw))
            self.bias_hh = Parameter(_C.empty((num_chunks * hidden_size,), **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hx, n_states):
        """input as (N, in) and hx as n_states (N, H) tensors, checked with
        PyTorch's words (hidden0 is h, hidden1 the LSTM's c)."""
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if n_states == 1 and isinstance(hx, _C.Tensor) and hx.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
        if hx is None:
            _check_cell_shapes(input, (), self.input_size, self.hidden_size)
            zeros = _C.zeros((input.shape[0], self.hidden_size), dtype=input.dtype,
                             device=input.device)
            return input, (zeros,) * n_states, unbatched
        if n_states == 2 and not isinstance(hx, (tuple, list)):
            raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                            f"not {type(hx).__name__}")
        hx = tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)
        if n_states == 2 and len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        if unbatched:
            hx = tuple(h.unsqueeze(0) for h in hx)
        _check_cell_shapes(input, hx, self.input_size, self.hidden_size)
        return input, hx, unbatched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: (N, in), (N, H) -> (N, H)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), unbatched = self._batched(input, hx, 1)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = _rnn_step(gi, h, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """One LSTM step: (N, in), ((N, H), (N, H)) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        input, (h, c), unbatched = self._batched(input, hx, 2)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(gi, h, c, self.weight_hh, self.bias_hh, None)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step: (N, in), (N, H) -> (N, H)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, (h,), unbatched = self._batched(input, hx, 1)
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h = _gru_step(gi, h, self.weight_hh, self.bias_hh)
        return h.squeeze(0) if unbatched else h
