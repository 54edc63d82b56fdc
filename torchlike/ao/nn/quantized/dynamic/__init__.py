"""Dynamically quantized modules (torch.ao.nn.quantized.dynamic): float in,
float out, int8 weights; each input is quantized on the fly with the scale
and zero point its own min and max choose (range reduced, as PyTorch's x86
engine does)."""
from ..... import _C
from .....nn.modules.module import Module
from ..modules import Linear as _StaticLinear, _quantize_weight
from .. import functional as qF

__all__ = ["Linear", "LSTM"]


def _weight_quantizer(mod):
    """A function quantizing a weight with a fresh observer of mod's qconfig
    (default_dynamic_qconfig's when it has none), which must give qint8."""
    from ....quantization.qconfig import default_dynamic_qconfig
    factory = (getattr(mod, "qconfig", None) or default_dynamic_qconfig).weight
    if factory().dtype is not _C.qint8:
        raise NotImplementedError(f"torchlike's dynamic {type(mod).__name__} takes qint8 weights "
                                  f"only (got {factory().dtype})")

    def quantize(weight):
        observer = factory()
        observer(weight)
        return _quantize_weight(weight.detach(), observer)
    return quantize


class Linear(_StaticLinear):
    """y = x W^T + b with W int8: x (*, in_features) float32 is quantized to
    uint8 per call, the product accumulated in int32 and returned as float32."""

    def __init__(self, in_features, out_features, bias_=True, dtype=_C.qint8):
        super().__init__(in_features, out_features, bias_, dtype)
        self.version = 4
        self.reduce_range = True

    def forward(self, x):
        if x.dtype is not _C.float32:
            raise RuntimeError(f"dynamic quantized linear expects a float32 input, got {x.dtype}")
        return qF.linear_dynamic(x, self._weight, self._bias, self.reduce_range)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._weight.dtype}, qscheme={self._weight.qscheme()}")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        out = cls(mod.in_features, mod.out_features)
        out.set_weight_bias(_weight_quantizer(mod)(mod.weight), mod.bias)
        return out


class LSTM(Module):
    """nn.LSTM with int8 weights (per tensor, one scale per matrix).  As in
    PyTorch, a layer's input projection is one dynamic linear over the whole
    sequence (quantized with its min and max), the hidden projection one per
    step (quantized step by step); then the float32 cell:

        i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the gates' quarters
        c' = f * c + i * g,  h' = o * tanh(c')

    input (L, N, H_in) ((N, L, H_in) with batch_first; PyTorch's dynamic
    LSTM takes no unbatched input); returns output (L, N, D * H) and
    (h_n, c_n), each (num_layers * D, N, H)."""
    _FLOAT_MODULE = None

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=_C.qint8):
        super().__init__()
        self.mode = "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.dtype = bidirectional, dtype
        self._cells = {}  # (layer, direction) -> (w_ih, w_hh, b_ih, b_hh)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.batch_first:
            s += ", batch_first=True"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    def _get_name(self):
        return "DynamicQuantizedLSTM"

    def _cell(self, projected, h, c, weights):
        """One step: projected is the step's input projection (N, 4H)."""
        _, w_hh, _, b_hh = weights
        gates = projected + qF.linear_dynamic(h, w_hh, b_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c.tanh(), c

    def forward(self, input, hx=None):
        if input.dtype is not _C.float32:
            raise RuntimeError(f"dynamic quantized LSTM expects a float32 input, got {input.dtype}")
        if input.ndim != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.ndim}")
        x = input.transpose(0, 1) if self.batch_first else input
        D = 2 if self.bidirectional else 1
        batch = x.shape[1]
        if hx is None:
            zeros = _C.zeros(self.num_layers * D, batch, self.hidden_size)
            hx = (zeros, zeros)
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for d in range(D):
                k = layer * D + d
                h, c = hx[0][k], hx[1][k]
                weights = self._cells[(layer, d)]
                length = x.shape[0]
                projected = qF.linear_dynamic(x.reshape(length * batch, -1), weights[0],
                                              weights[2]).reshape(length, batch, -1)
                steps = range(length - 1, -1, -1) if d else range(length)
                out = [None] * length
                for t in steps:
                    h, c = self._cell(projected[t], h, c, weights)
                    out[t] = h
                outputs.append(_C.stack(out))
                h_n.append(h)
                c_n.append(c)
            x = _C.cat(outputs, 2) if D == 2 else outputs[0]
        h_n, c_n = _C.stack(h_n), _C.stack(c_n)
        return (x.transpose(0, 1) if self.batch_first else x), (h_n, c_n)

    def _weight_bias(self):
        """{'weight_ih_l0': quantized weight, 'bias_ih_l0': float bias, ...}."""
        out = {}
        for (layer, d), (w_ih, w_hh, b_ih, b_hh) in self._cells.items():
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            out.update({"weight_ih" + sfx: w_ih, "weight_hh" + sfx: w_hh,
                        "bias_ih" + sfx: b_ih, "bias_hh" + sfx: b_hh})
        return out

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for name, value in self._weight_bias().items():
            destination[prefix + name] = value

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for key in list(self._cells):
            layer, d = key
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            names = [prefix + n + sfx for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            if all(n in state_dict for n in names):
                self._cells[key] = tuple(state_dict.pop(n) for n in names)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if getattr(mod, "proj_size", 0):
            raise NotImplementedError("dynamic quantized LSTM with proj_size is not supported "
                                      "by torchlike")
        quantize = _weight_quantizer(mod)
        out = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                  mod.dropout, mod.bidirectional)
        D = 2 if mod.bidirectional else 1
        for layer in range(mod.num_layers):
            for d in range(D):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                w_ih, w_hh = getattr(mod, "weight_ih" + sfx), getattr(mod, "weight_hh" + sfx)
                b_ih = getattr(mod, "bias_ih" + sfx) if mod.bias else None
                b_hh = getattr(mod, "bias_hh" + sfx) if mod.bias else None
                out._cells[(layer, d)] = (quantize(w_ih), quantize(w_hh),
                                          None if b_ih is None else b_ih.detach().float(),
                                          None if b_hh is None else b_hh.detach().float())
        return out
