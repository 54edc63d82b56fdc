"""ATen's whole-network recurrent forms at torch's top level: lstm, gru,
rnn_tanh and rnn_relu, each as (input, hx, params, has_biases, num_layers,
dropout, train, bidirectional, batch_first) and as the packed form (data,
batch_sizes, hx, params, has_biases, num_layers, dropout, train,
bidirectional).  They run the same per-layer op as nn.RNN/LSTM/GRU
(``_C._rnn_layer``, see nn/modules/_rnn_layer.py), so values and gradients
are those of the modules.

``params`` is flat, in PyTorch's order: per layer, per direction, w_ih,
w_hh, then b_ih, b_hh (has_biases), then w_hr (an LSTM whose h and c sizes
differ, i.e. with proj_size).  Legend: L steps, N batch, R rows of a packed
sequence, I input, H hidden, P output size (proj_size, else H), D 2 if
bidirectional else 1.

Unlike PyTorch, a 2-D ``input`` is refused (PyTorch's aten form reads it
as 1-D steps and broadcasts them oddly; the modules handle unbatched input
themselves)."""
from . import _C
from ._composites import _dtype_name, _need_tensor
from .nn import functional as F
from .nn.modules._rnn_layer import MODES

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def _split_params(name, params, has_biases, proj):
    """params as one (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction,
    with PyTorch's checks in PyTorch's order."""
    params = list(params)
    for i, p in enumerate(params):
        _need_tensor(name, f"params[{i}]", p, 4)
    per = (4 if has_biases else 2) + (1 if proj else 0)
    if len(params) % per:
        raise RuntimeError("got an incorrect number of RNN parameters")
    groups = []
    for k in range(0, len(params), per):
        w_ih, w_hh = params[k], params[k + 1]
        b_ih, b_hh = (params[k + 2], params[k + 3]) if has_biases else (None, None)
        groups.append((w_ih, w_hh, b_ih, b_hh, params[k + per - 1] if proj else None))
    return groups


def _stack(name, mode, input, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
           bidirectional):
    """The layers over (L, N, I) input, or packed (R, I) rows with batch_sizes.
    hx is (h0,) or (h0, c0), each (num_layers * D, N, *).  Returns output
    ((L, N, D * P) or (R, D * P)) and the stacked final states."""
    is_lstm = mode == "LSTM"
    D = 2 if bidirectional else 1
    # an LSTM with proj_size: h's last size (P) is not c's (H)
    proj = is_lstm and hx[0].ndim > 0 and hx[1].ndim > 0 and hx[0].shape[-1] != hx[1].shape[-1]
    groups = _split_params(name, params, has_biases, proj)
    if any(h.ndim != 3 or h.shape[0] != num_layers * D for h in hx) or num_layers < 1:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if len(groups) != num_layers * D:
        raise RuntimeError("Expected more weights in stacked_rnn")
    if train and dropout != 0 and not 0 <= dropout <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout:g}")
    layer_input = input
    finals = [[] for _ in hx]
    for layer in range(num_layers):
        outputs = []
        for direction in range(D):
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[layer * D + direction]
            h0 = hx[0][layer * D + direction]
            c0 = hx[1][layer * D + direction] if is_lstm else None
            out, h, c, _ = _C._rnn_layer(layer_input, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr,
                                         batch_sizes, MODES[mode], direction == 1)
            outputs.append(out)
            finals[0].append(h)
            if is_lstm:
                finals[1].append(c)
        layer_input = outputs[0] if D == 1 else _C.cat(outputs, -1)
        if train and dropout != 0 and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    return layer_input, tuple(_C.stack(f, 0) for f in finals)


def _states(name, mode, hx):
    if mode == "LSTM":
        if isinstance(hx, _C.Tensor) or len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        _need_tensor(name, "hx[0]", hx[0], 2)
        _need_tensor(name, "hx[1]", hx[1], 2)
        return tuple(hx)
    _need_tensor(name, "hx", hx, 2)
    return (hx,)


_INPUT_ARGS = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
               "bidirectional", "batch_first")
_DATA_ARGS = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout",
              "train", "bidirectional")


def _bind(name, mode, args, kwargs):
    """The call's 9 arguments in order and whether it is the packed form.
    Positionally, as PyTorch tells the overloads apart: a Tensor second
    argument is lstm's batch_sizes (its input form takes a sequence of
    states); for gru/rnn_* a Tensor third argument (hx) makes it packed."""
    if "data" in kwargs or "batch_sizes" in kwargs:
        packed = True
    elif "input" in kwargs or "batch_first" in kwargs:
        packed = False
    elif len(args) >= 2 and isinstance(args[1], _C.Tensor) and \
            (mode == "LSTM" or len(args) >= 3 and isinstance(args[2], _C.Tensor)):
        packed = True
    else:
        packed = False
    names = _DATA_ARGS if packed else _INPUT_ARGS
    if len(args) > len(names):
        raise TypeError(f"{name}() takes 9 arguments: ({', '.join(_INPUT_ARGS)}) or "
                        f"({', '.join(_DATA_ARGS)}); got {len(args) + len(kwargs)}")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise TypeError(f"{name}() got an unexpected or repeated keyword argument '{k}'")
        bound[k] = v
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}' (the "
                        f"{'packed' if packed else 'input'} form takes ({', '.join(names)}))")
    return [bound[n] for n in names], packed


def _forward(name, mode, args, kwargs):
    (a, b, c, *rest), packed = _bind(name, mode, args, kwargs)
    if packed:
        # (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidi)
        data, batch_sizes, hx, params = a, b, c, rest[0]
        _need_tensor(name, "data", data, 1)
        _need_tensor(name, "batch_sizes", batch_sizes, 2)
        if batch_sizes.dtype != _C.int64:
            raise RuntimeError(f"expected scalar type Long but found "
                               f"{_dtype_name(batch_sizes.dtype)}")
        if data.ndim != 2:
            raise RuntimeError(f"{name}: expected packed data to be 2-D (rows, input_size), got "
                               f"{data.ndim}-D")
        sizes = batch_sizes.tolist()
        if sum(sizes) != data.shape[0]:
            raise RuntimeError(f"{name}: batch_sizes sum to {sum(sizes)} but data has "
                               f"{data.shape[0]} rows")
        hx = _states(name, mode, hx)
        out, finals = _stack(name, mode, data, batch_sizes.cpu(), hx, *rest)
        return (out,) + finals
    input, hx, params = a, b, c
    _need_tensor(name, "input", input, 1)
    has_biases, num_layers, dropout, train, bidirectional, batch_first = rest
    hx = _states(name, mode, hx)
    if input.ndim != 3:
        raise RuntimeError(f"{name}: expected input to be 3-D (seq_len, batch, input_size) or "
                           f"(batch, seq_len, input_size) with batch_first, got {input.ndim}-D")
    if batch_first:
        input = input.transpose(0, 1)
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    out, finals = _stack(name, mode, input, None, hx, params, has_biases, num_layers, dropout,
                         train, bidirectional)
    if batch_first:
        out = out.transpose(0, 1)
    return (out,) + finals


def lstm(*args, **kwargs):
    """(output, h_n, c_n): an LSTM network over input (L, N, I) ((N, L, I)
    with batch_first) from hx = (h_0 (num_layers * D, N, P), c_0
    (num_layers * D, N, H)); or, packed, over data (R, I) with batch_sizes.
    With proj_size (P != H) each group of params ends with w_hr (P, H)."""
    return _forward("lstm", "LSTM", args, kwargs)


def gru(*args, **kwargs):
    """(output, h_n): a GRU network (input, hx (num_layers * D, N, H), ...);
    see lstm for the two forms."""
    return _forward("gru", "GRU", args, kwargs)


def rnn_tanh(*args, **kwargs):
    """(output, h_n): an Elman network with tanh; see gru."""
    return _forward("rnn_tanh", "RNN_TANH", args, kwargs)


def rnn_relu(*args, **kwargs):
    """(output, h_n): an Elman network with relu; see gru."""
    return _forward("rnn_relu", "RNN_RELU", args, kwargs)
