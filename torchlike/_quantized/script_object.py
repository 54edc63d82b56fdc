"""torch.ScriptObject as it appears in PyTorch's state dicts of dynamically
quantized RNNs: PyTorch keeps their weights in TorchScript classes
(LinearPackedParamsBase, CellParamsBase) that pickle as

    GLOBAL torch ScriptObject; NEWOBJ (); BUILD (payload, qualified class name)

A ScriptObject here holds that payload and name only, so such a checkpoint
loads (``load(..., weights_only=False)``, as PyTorch needs too) and ours
pickles the same way (serialization.py); the modules unpack the payload.

    LinearPackedParamsBase  payload (weight, bias): weight qint8 (or float32
                            for float16 packing), bias float32 or None
    CellParamsBase          payload (tag, tensors, doubles, longs, packed):
                            'quantized_dynamic': tensors [b_ih, b_hh],
                            longs [reduce_range], packed [ih, hh] Linear ones;
                            'quantized_fp16': packed [ih, hh] only"""

LINEAR_PACKED = "__torch__.torch.classes.quantized.LinearPackedParamsBase"
CELL_PARAMS = "__torch__.torch.classes.rnn.CellParamsBase"


class ScriptObject:
    """A TorchScript object of a checkpoint: payload and class name."""

    def __init__(self, payload=None, qualified_name=""):
        self._payload, self._qualified_name = payload, qualified_name

    def __getstate__(self):
        return (self._payload, self._qualified_name)

    def __setstate__(self, state):
        if not (isinstance(state, tuple) and len(state) == 2 and isinstance(state[1], str)):
            raise RuntimeError(f"torch.ScriptObject: expected the state (payload, qualified "
                               f"class name), got {state!r:.200}")
        self._payload, self._qualified_name = state

    def _type(self):
        return self._qualified_name

    def __repr__(self):
        return f"<torch.ScriptObject {self._qualified_name}>"


def _expect(obj, name, what):
    if not isinstance(obj, ScriptObject) or obj._qualified_name != name:
        got = obj._qualified_name if isinstance(obj, ScriptObject) else type(obj).__name__
        raise RuntimeError(f"{what}: expected a torch.ScriptObject of {name.split('.')[-1]}, "
                           f"got {got}")
    return obj._payload


def pack_linear(weight, bias):
    return ScriptObject((weight, bias), LINEAR_PACKED)


def unpack_linear(obj, what="LinearPackedParamsBase"):
    """(weight, bias) of a packed Linear."""
    payload = _expect(obj, LINEAR_PACKED, what)
    if not (isinstance(payload, tuple) and len(payload) == 2):
        raise RuntimeError(f"{what}: a LinearPackedParamsBase holds (weight, bias), got "
                           f"{payload!r:.200}")
    return payload


def pack_cell(w_ih, w_hh, b_ih, b_hh, fp16):
    """PyTorch's CellParamsBase of one RNN layer and direction."""
    packed = [pack_linear(w_ih, b_ih), pack_linear(w_hh, b_hh)]
    if fp16:
        return ScriptObject(("quantized_fp16", [], [], [], packed), CELL_PARAMS)
    return ScriptObject(("quantized_dynamic", [b_ih, b_hh], [], [1], packed), CELL_PARAMS)


def unpack_cell(obj, what="CellParamsBase"):
    """(tag, w_ih, w_hh, b_ih, b_hh) of a CellParamsBase."""
    payload = _expect(obj, CELL_PARAMS, what)
    if not (isinstance(payload, tuple) and len(payload) == 5 and
            payload[0] in ("quantized_dynamic", "quantized_fp16") and len(payload[4]) == 2):
        raise RuntimeError(f"{what}: unsupported CellParamsBase {payload!r:.200} (torchlike reads "
                           f"'quantized_dynamic' and 'quantized_fp16' cells)")
    (w_ih, b_ih), (w_hh, b_hh) = (unpack_linear(p, what) for p in payload[4])
    return payload[0], w_ih, w_hh, b_ih, b_hh
