"""Dynamically quantized recurrent modules (LSTM, GRU and the three cells)
with int8 or float16 weights, computed as PyTorch's CPU kernels do: a
layer's input projection is one dynamic linear over the whole sequence
(quantized once from its min and max), the hidden projection one per step
(each hidden state quantized on its own), then the float32 cell:

    LSTM  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the gates' quarters
          (gates = hidden projection + input projection)
          c' = f * c + i * g,  h' = o * tanh(c')
    GRU   r = sigmoid(hr + ir), z = sigmoid(hz + iz), n = tanh(in + r * hn)
          h' = (h - n) * z + n
    RNN   h' = tanh (or relu) of (hidden projection + input projection)

The biases live with the weights (b_ih in the input projection, b_hh in the
hidden one), as PyTorch packs them.  State dicts are PyTorch's:
``_all_weight_values.{k}.param`` (one CellParamsBase per layer and
direction) for LSTM/GRU, ``_packed_weight_ih`` / ``_packed_weight_hh``
(LinearPackedParamsBase) for the cells; see _quantized/script_object.py."""
from ..... import _C, _quantized as _q
from .....nn.modules.module import Module
from ....._quantized.script_object import pack_cell, unpack_cell, pack_linear, unpack_linear
from . import _DTYPES, _weight_quantizer, dynamic_linear

__all__ = ["LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def _lstm_step(projected, state, w_hh, b_hh):
    h, c = state
    gates = dynamic_linear(h, w_hh, b_hh) + projected
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(projected, h, w_hh, b_hh):
    ir, iz, in_ = projected.chunk(3, 1)
    hr, hz, hn = dynamic_linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = (hr + ir).sigmoid(), (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n


def _rnn_step(projected, h, w_hh, b_hh, relu):
    out = dynamic_linear(h, w_hh, b_hh) + projected
    return out.relu() if relu else out.tanh()


def _zero_weight(rows, cols, dtype):
    """A placeholder weight until from_float or a state dict sets the real one."""
    if dtype is _C.float16:
        return _C.zeros(rows, cols)
    return _q.quantize_per_tensor(_C.zeros(rows, cols), 1.0, 0, _C.qint8)


def _check_weight(w, dtype, what):
    int8 = dtype is _C.qint8
    ok = isinstance(w, _C.Tensor) and (w.dtype is _C.qint8 if int8 else
                                       (not w.is_quantized and w.dtype is _C.float32))
    if not ok:
        want = "qint8 quantized" if int8 else "float32"
        raise RuntimeError(f"{what}: a {dtype} module takes {want} weights, got "
                           f"{getattr(w, 'dtype', type(w).__name__)}")
    return w


def _check_dtype(dtype):
    if dtype not in _DTYPES:
        raise ValueError(f"Unsupported dtype for dynamic RNN quantization: {dtype}")


def _bias(b):
    return None if b is None else b.detach().float()


def _check_float_input(x, what):
    if not isinstance(x, _C.Tensor) or x.is_quantized or x.dtype is not _C.float32:
        raise RuntimeError(f"{what} expects a float32 input, got "
                           f"{getattr(x, 'dtype', type(x).__name__)}")


class _RNNBase(Module):
    """The layers' weights: self._cells[(layer, direction)] = (w_ih, w_hh,
    b_ih, b_hh), weights qint8 quantized tensors or float32 (float16 values)."""
    _version = 2
    _gates = 4

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=_C.qint8):
        super().__init__()
        _check_dtype(dtype)
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.dtype = bidirectional, dtype
        self.version = 2
        D = 2 if bidirectional else 1
        rows = self._gates * hidden_size
        self._cells = {}
        for layer in range(num_layers):
            cols = input_size if layer == 0 else hidden_size * D
            for d in range(D):
                self._cells[(layer, d)] = (
                    _zero_weight(rows, cols, dtype), _zero_weight(rows, hidden_size, dtype),
                    _C.zeros(rows) if bias else None, _C.zeros(rows) if bias else None)

    def _get_name(self):
        return f"DynamicQuantized{self.mode}"

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _check_forward(self, input, hx):
        _check_float_input(input, f"dynamic quantized {self.mode}")
        if input.ndim != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.ndim}")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        expected = (self.num_layers * (2 if self.bidirectional else 1),
                    input.shape[0] if self.batch_first else input.shape[1], self.hidden_size)
        states = hx if self.mode == "LSTM" else (hx,)
        for i, h in enumerate(states):
            label = f"[{i}]" if self.mode == "LSTM" else ""
            if tuple(h.shape) != expected:
                raise RuntimeError(f"Expected hidden{label} size {expected}, got {list(h.shape)}")
            _check_float_input(h, f"dynamic quantized {self.mode} hidden{label}")

    def _step(self, projected, state, w_hh, b_hh):
        if self.mode == "LSTM":
            return _lstm_step(projected, state, w_hh, b_hh)
        return _gru_step(projected, state, w_hh, b_hh)

    def forward(self, input, hx=None):
        from .....nn.utils.rnn import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"dynamic quantized {self.mode} takes a float32 tensor or a "
                            f"PackedSequence, got {type(input).__name__}")
        D = 2 if self.bidirectional else 1
        batch = input.shape[0] if self.batch_first and input.ndim == 3 else \
            (input.shape[1] if input.ndim == 3 else 0)
        if hx is None:
            zeros = _C.zeros(self.num_layers * D, batch, self.hidden_size)
            hx = (zeros, zeros) if self.mode == "LSTM" else zeros
        self._check_forward(input, hx)
        x = input.transpose(0, 1) if self.batch_first else input
        lstm = self.mode == "LSTM"
        finals = []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                from .....nn import functional as F
                x = F.dropout(x, self.dropout, True)
            outputs = []
            for d in range(D):
                k = layer * D + d
                state = (hx[0][k], hx[1][k]) if lstm else hx[k]
                w_ih, w_hh, b_ih, b_hh = self._cells[(layer, d)]
                length = x.shape[0]
                projected = dynamic_linear(x.reshape(length * batch, -1), w_ih,
                                           b_ih).reshape(length, batch, -1)
                out = [None] * length
                for t in (range(length - 1, -1, -1) if d else range(length)):
                    state = self._step(projected[t], state, w_hh, b_hh)
                    out[t] = state[0] if lstm else state
                outputs.append(_C.stack(out))
                finals.append(state)
            x = _C.cat(outputs, 2) if D == 2 else outputs[0]
        output = x.transpose(0, 1) if self.batch_first else x
        if lstm:
            return output, (_C.stack([s[0] for s in finals]), _C.stack([s[1] for s in finals]))
        return output, _C.stack(finals)

    # ---- packed sequences: PyTorch's packed layers ---------------------------------------
    # A layer's input projection is one dynamic linear over all the packed rows
    # (quantized once); step t runs the batch_sizes[t] sequences still going, each
    # hidden projection quantizing those rows only.  Forward, a sequence's state
    # stops changing when it ends; reversed, a sequence joins with its initial
    # state at its last step.
    def _forward_packed(self, input, hx):
        from .....nn.utils.rnn import PackedSequence
        data, batch_sizes, sorted_indices, unsorted_indices = input
        _check_float_input(data, f"dynamic quantized {self.mode}")
        if data.ndim != 2 or data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {data.shape[-1]}")
        sizes = [int(b) for b in batch_sizes.tolist()]
        D, lstm = (2 if self.bidirectional else 1), self.mode == "LSTM"
        if hx is None:
            zeros = _C.zeros(self.num_layers * D, sizes[0], self.hidden_size)
            hx = (zeros, zeros) if lstm else zeros
        elif sorted_indices is not None:  # the caller's order -> the packed (sorted) one
            hx = tuple(h.index_select(1, sorted_indices) for h in hx) if lstm else \
                hx.index_select(1, sorted_indices)
        self._check_forward(_C.zeros(1, sizes[0], self.input_size), hx)
        offsets = [0]
        for b in sizes:
            offsets.append(offsets[-1] + b)
        x, finals = data, []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                from .....nn import functional as F
                x = F.dropout(x, self.dropout, True)
            outputs = []
            for d in range(D):
                k = layer * D + d
                w_ih, w_hh, b_ih, b_hh = self._cells[(layer, d)]
                projected = dynamic_linear(x, w_ih, b_ih)
                start = (hx[0][k], hx[1][k]) if lstm else hx[k]
                out, final = (self._packed_reverse if d else self._packed_forward)(
                    projected, start, sizes, offsets, w_hh, b_hh)
                outputs.append(out)
                finals.append(final)
            x = _C.cat(outputs, 1) if D == 2 else outputs[0]
        if lstm:
            hidden = (_C.stack([f[0] for f in finals]), _C.stack([f[1] for f in finals]))
            if unsorted_indices is not None:
                hidden = tuple(h.index_select(1, unsorted_indices) for h in hidden)
        else:
            hidden = _C.stack(finals)
            if unsorted_indices is not None:
                hidden = hidden.index_select(1, unsorted_indices)
        return PackedSequence(x, batch_sizes, sorted_indices, unsorted_indices), hidden

    def _rows(self, state, lo, hi):
        return tuple(s[lo:hi] for s in state) if self.mode == "LSTM" else state[lo:hi]

    def _join(self, a, b):
        if self.mode == "LSTM":
            return tuple(_C.cat([x, y]) for x, y in zip(a, b))
        return _C.cat([a, b])

    def _packed_forward(self, projected, state, sizes, offsets, w_hh, b_hh):
        out = []
        for t, bs in enumerate(sizes):
            new = self._step(projected[offsets[t]:offsets[t + 1]], self._rows(state, 0, bs),
                             w_hh, b_hh)
            out.append(new[0] if self.mode == "LSTM" else new)
            state = self._join(new, self._rows(state, bs, sizes[0]))
        return _C.cat(out), state

    def _packed_reverse(self, projected, initial, sizes, offsets, w_hh, b_hh):
        out = [None] * len(sizes)
        state = self._rows(initial, 0, sizes[-1])
        for t in range(len(sizes) - 1, -1, -1):
            have = (state[0] if self.mode == "LSTM" else state).shape[0]
            if sizes[t] > have:
                state = self._join(state, self._rows(initial, have, sizes[t]))
            state = self._step(projected[offsets[t]:offsets[t + 1]], state, w_hh, b_hh)
            out[t] = state[0] if self.mode == "LSTM" else state
        return _C.cat(out), state

    def _suffixes(self):
        for layer, d in self._cells:
            yield (layer, d), f"_l{layer}" + ("_reverse" if d else "")

    def _weight_bias(self):
        """PyTorch's {'weight': {'weight_ih_l0': ...}, 'bias': {'bias_ih_l0': ...}}."""
        out = {"weight": {}, "bias": {}}
        for key, sfx in self._suffixes():
            w_ih, w_hh, b_ih, b_hh = self._cells[key]
            out["weight"].update({"weight_ih" + sfx: w_ih, "weight_hh" + sfx: w_hh})
            out["bias"].update({"bias_ih" + sfx: b_ih, "bias_hh" + sfx: b_hh})
        return out

    def get_weight(self):
        return self._weight_bias()["weight"]

    def get_bias(self):
        return self._weight_bias()["bias"]

    def set_weight_bias(self, weight_bias_dict):
        """Takes get_weight()/get_bias()'s names ({'weight': {...}, 'bias': {...}})."""
        what = f"dynamic quantized {self.mode}.set_weight_bias"
        cells = {}
        weights, biases = weight_bias_dict["weight"], weight_bias_dict["bias"]
        for key, sfx in self._suffixes():
            cells[key] = (_check_weight(weights["weight_ih" + sfx], self.dtype, what),
                          _check_weight(weights["weight_hh" + sfx], self.dtype, what),
                          _bias(biases["bias_ih" + sfx]), _bias(biases["bias_hh" + sfx]))
        self._cells = cells

    # PyTorch's layout: one CellParamsBase per layer and direction, in order.
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        fp16 = self.dtype is _C.float16
        for k, key in enumerate(self._cells):
            name = f"{prefix}_all_weight_values.{k}.param"
            destination[name] = pack_cell(*self._cells[key], fp16)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        cells = {}
        for k, key in enumerate(self._cells):
            name = f"{prefix}_all_weight_values.{k}.param"
            if name not in state_dict:
                if strict:
                    missing_keys.append(name)
                continue
            try:
                tag, w_ih, w_hh, b_ih, b_hh = unpack_cell(state_dict.pop(name), name)
                dtype = _C.float16 if tag == "quantized_fp16" else _C.qint8
                if dtype is not self.dtype:
                    raise RuntimeError(f"{name}: the checkpoint's weights are {dtype}, the "
                                       f"module's {self.dtype}")
                cells[key] = (_check_weight(w_ih, dtype, name), _check_weight(w_hh, dtype, name),
                              _bias(b_ih), _bias(b_hh))
            except RuntimeError as e:
                error_msgs.append(str(e))
        self._cells.update(cells)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from .....nn.modules.rnn import LSTM as _FloatLSTM, GRU as _FloatGRU
        if type(mod) not in (_FloatLSTM, _FloatGRU):
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for nn.LSTM "
                                 "and nn.GRU")
        if getattr(mod, "proj_size", 0):
            # PyTorch drops the projection here and its module fails on its first call
            # ("The number of rows in the packB should be equal to K"); torchlike refuses
            raise NotImplementedError("dynamic quantized LSTM with proj_size is not supported "
                                      "(PyTorch's quantize_dynamic drops the projection and "
                                      "the module it makes cannot run)")
        dtype, quantize = _weight_quantizer(mod, "RNN")
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        out = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                  mod.dropout, mod.bidirectional, dtype)
        for key, sfx in out._suffixes():
            out._cells[key] = (quantize(getattr(mod, "weight_ih" + sfx)),
                               quantize(getattr(mod, "weight_hh" + sfx)),
                               _bias(getattr(mod, "bias_ih" + sfx)),
                               _bias(getattr(mod, "bias_hh" + sfx)))
        return out


class LSTM(_RNNBase):
    """nn.LSTM with int8 or float16 weights: input (L, N, H_in) ((N, L, H_in)
    with batch_first; no unbatched input, as PyTorch's); returns output
    (L, N, D * H) and (h_n, c_n), each (num_layers * D, N, H)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """nn.GRU with int8 or float16 weights: returns output and h_n."""
    _gates = 3

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class _RNNCellBase(Module):
    """One step: the input projection and the hidden one are each a dynamic
    linear of this call's input and hidden state."""
    _chunks = 1
    _label = ""

    def __init__(self, input_size, hidden_size, bias=True, dtype=_C.qint8):
        super().__init__()
        _check_dtype(dtype)
        self.input_size, self.hidden_size, self.bias, self.weight_dtype = \
            input_size, hidden_size, bias, dtype
        rows = self._chunks * hidden_size
        self._w_ih, self._w_hh = _zero_weight(rows, input_size, dtype), \
            _zero_weight(rows, hidden_size, dtype)
        self._b_ih = self._b_hh = _C.zeros(rows) if bias else None

    def _get_name(self):
        return f"DynamicQuantized{type(self).__name__}"

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _zeros(self, input):
        return _C.zeros(input.shape[0], self.hidden_size)

    def _check(self, input, states):
        what = self._get_name()
        _check_float_input(input, what)
        if input.ndim != 2:
            raise RuntimeError(f"{what}: input must be (batch, input_size), got {input.ndim} "
                               f"dimensions {tuple(input.shape)}")
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]}, "
                               f"expected {self.input_size}")
        for i, h in enumerate(states):
            label = f"[{i}]" if len(states) > 1 else ""
            _check_float_input(h, f"{what} hidden{label}")
            if h.ndim != 2 or h.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} "
                                   f"batch size {h.shape[0] if h.ndim else tuple(h.shape)}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                                   f"{h.shape[1]}, expected {self.hidden_size}")

    def _projected(self, input):
        return dynamic_linear(input, self._w_ih, self._b_ih)

    def _weight_bias(self):
        return {"weight": {"weight_ih": self._w_ih, "weight_hh": self._w_hh},
                "bias": {"bias_ih": self._b_ih, "bias_hh": self._b_hh}}

    def get_weight(self):
        return self._weight_bias()["weight"]

    def get_bias(self):
        return self._weight_bias()["bias"]

    def set_weight_bias(self, weight_bias_dict):
        what = f"{self._get_name()}.set_weight_bias"
        w, b = weight_bias_dict["weight"], weight_bias_dict["bias"]
        self._w_ih = _check_weight(w["weight_ih"], self.weight_dtype, what)
        self._w_hh = _check_weight(w["weight_hh"], self.weight_dtype, what)
        self._b_ih, self._b_hh = _bias(b["bias_ih"]), _bias(b["bias_hh"])

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "_packed_weight_ih"] = pack_linear(self._w_ih, self._b_ih)
        destination[prefix + "_packed_weight_hh"] = pack_linear(self._w_hh, self._b_hh)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        names = [prefix + "_packed_weight_ih", prefix + "_packed_weight_hh"]
        present = [n in state_dict for n in names]
        if all(present):
            try:
                (w_ih, b_ih), (w_hh, b_hh) = (unpack_linear(state_dict.pop(n), n) for n in names)
                self.set_weight_bias({"weight": {"weight_ih": w_ih, "weight_hh": w_hh},
                                      "bias": {"bias_ih": b_ih, "bias_hh": b_hh}})
            except RuntimeError as e:
                error_msgs.append(str(e))
        elif strict:
            missing_keys.extend(n for n, p in zip(names, present) if not p)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def _from_float_args(cls, mod):
        return (mod.input_size, mod.hidden_size, mod.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from .....nn.modules import rnn
        if type(mod) is not getattr(rnn, cls.__name__):
            raise AssertionError("nn.quantized.dynamic.RNNCellBase.from_float only works for "
                                 "nn.LSTMCell, nn.GRUCell and nn.RNNCell")
        dtype, quantize = _weight_quantizer(mod, "RNN")
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        out = cls(*cls._from_float_args(mod), dtype=dtype)
        out.set_weight_bias({"weight": {"weight_ih": quantize(mod.weight_ih),
                                        "weight_hh": quantize(mod.weight_hh)},
                             "bias": {"bias_ih": mod.bias_ih, "bias_hh": mod.bias_hh}})
        return out


class RNNCell(_RNNCellBase):
    """h' = tanh (or relu) of (W_ih x + b_ih + W_hh h + b_hh), weights int8 or float16."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", dtype=_C.qint8):
        super().__init__(input_size, hidden_size, bias, dtype)
        self.nonlinearity = nonlinearity

    @classmethod
    def _from_float_args(cls, mod):
        return (mod.input_size, mod.hidden_size, mod.bias, mod.nonlinearity)

    def forward(self, input, hx=None):
        if hx is None:
            self._check(input, ())
            hx = self._zeros(input)
        self._check(input, (hx,))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return _rnn_step(self._projected(input), hx, self._w_hh, self._b_hh,
                         self.nonlinearity == "relu")


class LSTMCell(_RNNCellBase):
    """One LSTM step with int8 or float16 weights: returns (h', c')."""
    _chunks = 4

    def forward(self, input, hx=None):
        if hx is None:
            self._check(input, ())
            hx = (self._zeros(input), self._zeros(input))
        self._check(input, tuple(hx))
        return _lstm_step(self._projected(input), tuple(hx), self._w_hh, self._b_hh)


class GRUCell(_RNNCellBase):
    """One GRU step with int8 or float16 weights: returns h'."""
    _chunks = 3

    def forward(self, input, hx=None):
        if hx is None:
            self._check(input, ())
            hx = self._zeros(input)
        self._check(input, (hx,))
        return _gru_step(self._projected(input), hx, self._w_hh, self._b_hh)
