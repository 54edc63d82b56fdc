"""Recurrent layers: RNN, LSTM, GRU and their cells.

Parameters are named and shaped as PyTorch's (``weight_ih_l0``,
``bias_hh_l1_reverse``, ``weight_hr_l0`` for LSTM projections), with the gate
blocks in PyTorch's order (LSTM: input, forget, cell, output; GRU: reset,
update, new), so state dicts move between the two libraries.  The layer loop
runs over time in Python; the input projection of a whole sequence is one
matmul, and each step is one matmul plus one fused gate kernel.

Legend: L sequence length, N batch, H hidden size, P projection size,
D = 2 if bidirectional else 1."""
import math
import numbers

from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._rnn_layer import LSTMLayer
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


class RNNBase(Module):
    """The parameters and the layer/direction loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 \
                or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be an integer greater than zero")
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
    def all_weights(self):
        D = 2 if self.bidirectional else 1
        per = len(self._flat_weights_names) // (self.num_layers * D)
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

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

    def _run(self, input, hx, lengths=None):
        """input (L, N, in); hx: (h0,) or (h0, c0), each (layers * D, N, *).
        With ``lengths`` (packed input), sequence n only advances while
        t < lengths[n]: its state stays put and its output is zero after its
        end, and the reverse direction starts at its own last element.
        Returns output (L, N, D * out) and the final states in hx's layout."""
        D = 2 if self.bidirectional else 1
        is_lstm = self.mode == "LSTM"
        L = input.shape[0]
        running = None
        if lengths is not None:
            steps = _C.arange(L, device=input.device).unsqueeze(1)
            running = (steps < _C.tensor(lengths, device=input.device)).unsqueeze(2)  # L, N, 1
        layer_input = input
        finals = [[] for _ in hx]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(D):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, direction)
                state = [s[layer * D + direction] for s in hx]
                if is_lstm and w_hr is None and running is None and L:
                    # the whole direction as one node (_rnn_layer.py)
                    out, h, c = LSTMLayer.apply(layer_input, state[0], state[1], w_ih, w_hh,
                                                b_ih, b_hh, direction == 1)
                    outputs.append(out)
                    finals[0].append(h)
                    finals[1].append(c)
                    continue
                # L, N, G*H; unbound once, so that backward stacks the steps'
                # gradients in one op instead of scattering each into zeros
                gi_all = F.linear(layer_input, w_ih, b_ih).unbind(0)
                steps = range(L - 1, -1, -1) if direction == 1 else range(L)
                outs = [None] * L
                for t in steps:
                    gi = gi_all[t]
                    if is_lstm:
                        new = list(_lstm_step(gi, state[0], state[1], w_hh, b_hh, w_hr))
                    elif self.mode == "GRU":
                        new = [_gru_step(gi, state[0], w_hh, b_hh)]
                    else:
                        new = [_rnn_step(gi, state[0], w_hh, b_hh, self.mode == "RNN_RELU")]
                    if running is None:
                        state = new
                        outs[t] = new[0]
                    else:
                        state = [_C.where(running[t], n, s) for n, s in zip(new, state)]
                        outs[t] = _C.where(running[t], new[0], _C.zeros_like(new[0]))
                outputs.append(_C.stack(outs, 0) if L else
                               _C.zeros((0,) + tuple(state[0].shape), dtype=input.dtype))
                for k, s in enumerate(state):
                    finals[k].append(s)
            layer_input = outputs[0] if D == 1 else _C.cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, tuple(_C.stack(f, 0) for f in finals)

    def _prepare(self, input, hx, batch_first=None):
        """Bring input to (L, N, in) and hx to a tuple of (layers * D, N, *)."""
        batch_first = self.batch_first if batch_first is None else batch_first
        D = 2 if self.bidirectional else 1
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.ndim}D instead")
        unbatched = input.ndim == 2
        if unbatched:
            input = input.unsqueeze(1)
        elif batch_first:
            input = input.transpose(0, 1)
        if input.shape[2] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[2]}")
        N = input.shape[1]
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        sizes = [out_size] + ([self.hidden_size] if self.mode == "LSTM" else [])
        if hx is None:
            hx = tuple(_C.zeros((self.num_layers * D, N, s), dtype=input.dtype,
                                device=input.device) for s in sizes)
        else:
            hx = tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)
            if unbatched:
                hx = tuple(h.unsqueeze(1) for h in hx)
            for h, s in zip(hx, sizes):
                want = (self.num_layers * D, N, s)
                if tuple(h.shape) != want:
                    raise RuntimeError(f"Expected hidden size {want}, got {tuple(h.shape)}")
        return input, hx, unbatched

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence, pad_packed_sequence
        if isinstance(input, PackedSequence):
            packed = input
            padded, lengths = pad_packed_sequence(packed)    # caller's batch order
            padded, hx, _ = self._prepare(padded, hx, batch_first=False)
            output, finals = self._run(padded, hx, lengths.tolist())
            output = _repack(output, packed)
            return output, (finals if self.mode == "LSTM" else finals[0])
        input, hx, unbatched = self._prepare(input, hx)
        output, finals = self._run(input, hx)
        if unbatched:
            output = output.squeeze(1)
            finals = tuple(f.squeeze(1) for f in finals)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (finals if self.mode == "LSTM" else finals[0])


def _repack(output, like):
    """Pack the padded (L, N, *) ``output`` with the layout of the packed input
    ``like`` (same batch sizes and sort order)."""
    from ..utils.rnn import PackedSequence
    if like.sorted_indices is not None:
        output = output.index_select(1, like.sorted_indices)
    sizes = like.batch_sizes.tolist()
    data = _C.cat([output[t, :b] for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, like.batch_sizes, like.sorted_indices, like.unsorted_indices)


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
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _C.zeros((input.shape[0], self.hidden_size), dtype=input.dtype,
                             device=input.device)
            hx = (zeros,) * n_states
        else:
            hx = tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)
            if unbatched:
                hx = tuple(h.unsqueeze(0) for h in hx)
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
