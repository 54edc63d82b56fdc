"""Which scaled-dot-product-attention backend runs, under ``sdpa_kernel``.

With no ``sdpa_kernel`` context and every backend switched on (the
torch.backends.cuda.enable_*_sdp switches), ``F.scaled_dot_product_attention``
runs the blocked (flash-style) kernel of src/nn/attention for every input.
Inside one, or with some switched off, the allowed backends are tried in
priority order:

- FLASH_ATTENTION: that blocked kernel, under the constraints PyTorch's CPU
  flash kernel has (4-d inputs, equal batch sizes and last dims, no
  dropout); on CUDA, FLASH, EFFICIENT and CUDNN all name the one fused kernel;
- MATH: softmax(Q K^T * scale + mask) V composed from matmul and a softmax
  (_math.py), any input;
- EFFICIENT_ATTENTION, CUDNN_ATTENTION, OVERRIDEABLE: no CPU kernel.

No allowed backend at all is PyTorch's "No viable backend" error; allowed
fused backends whose constraints fail (and no MATH) warn each reason and
raise PyTorch's "No available kernel" error."""
import contextvars
import enum
import warnings


class SDPBackend(enum.IntEnum):
    """The implementations of scaled dot-product attention."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self):
        return f"SDPBackend.{self.name}"


# PyTorch's default priority
_DEFAULT_ORDER = (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
                  SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE)
_FUSED = {"cpu": {SDPBackend.FLASH_ATTENTION},
          "cuda": {SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                   SDPBackend.CUDNN_ATTENTION}}
# the fake test device runs the CPU's fused kernel as its own
# (_C._fake_emulate_device), so with math switched off it still attends
_FUSED["fake"] = _FUSED["cpu"]

# (allowed backends, priority order) or None outside any sdpa_kernel
_state = contextvars.ContextVar("torchlike_sdpa_backends", default=None)

# the global switches (torch.backends.cuda.enable_*_sdp), read outside any
# sdpa_kernel; inside one, its allowed set is what is enabled
_enabled = {b: True for b in SDPBackend if b != SDPBackend.ERROR}


def backend_enabled(backend):
    """Whether ``backend`` may run now (the innermost sdpa_kernel's choice,
    else the global switch)."""
    state = _state.get()
    return backend in state[0] if state is not None else _enabled[backend]


def set_backend_enabled(backend, on):
    """Switch ``backend`` on or off: globally, or inside an sdpa_kernel for
    the rest of it (its exit restores what was before, as PyTorch's does)."""
    state = _state.get()
    if state is None:
        _enabled[backend] = bool(on)
    else:
        allowed = state[0] | {backend} if on else state[0] - {backend}
        _state.set((frozenset(allowed), state[1]))


def _flash_reasons(q, k, v, dropout_p, enable_gqa):
    """Why PyTorch's CPU flash kernel would refuse these inputs (empty: it runs)."""
    if dropout_p > 0.0:
        return ["Both fused kernels do not support non-zero dropout."]
    if not (q.ndim == k.ndim == v.ndim == 4):
        return [f"All fused kernels requires query, key and value to be 4 dimensional, but got "
                f"Query dim: {q.ndim}, Key dim: {k.ndim}, Value dim: {v.ndim} instead."]
    if not (q.shape[0] == k.shape[0] == v.shape[0]):
        return [f"For dense inputs, both fused kernels require query, key and value to have "
                f"the same batch_size. Got Query batch_size: {q.shape[0]}, Key batch_size: "
                f"{k.shape[0]}, Value batch_size: {v.shape[0]} instead. To broadcast dense "
                f"inputs, try using unsqueeze and expand_to before passing them into the "
                f"kernel."]
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return [f"Flash attention requires q,k,v to have the same last dimension. Got "
                f"Query.size(-1): {q.shape[-1]}, Key.size(-1): {k.shape[-1]}, Value.size(-1): "
                f"{v.shape[-1]} instead."]
    return []


def choose(query, key, value, dropout_p, enable_gqa):
    """"kernel", "math", or None (no context: the kernel); raises when no
    allowed backend can run these inputs."""
    state = _state.get()
    if state is None and all(_enabled.values()):
        return None
    if query.numel() == 0:
        return None   # (an empty query needs no backend: PyTorch returns the empty result)
    if state is None:   # some switched off globally
        state = (frozenset(b for b, on in _enabled.items() if on), _DEFAULT_ORDER)
    allowed, order = state
    fused = _FUSED.get(query.device.type, set())
    candidates = [b for b in order if b in allowed and (b == SDPBackend.MATH or b in fused)]
    if not candidates:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    refused = []
    for backend in candidates:
        if backend == SDPBackend.MATH:
            return "math"
        reasons = _flash_reasons(query, key, value, dropout_p, enable_gqa) \
            if query.device.type == "cpu" else []
        if not reasons:
            return "kernel"
        refused.append((backend, reasons))
    for backend, reasons in refused:
        name = "Flash attention" if backend == SDPBackend.FLASH_ATTENTION else \
            "Memory efficient" if backend == SDPBackend.EFFICIENT_ATTENTION else "CuDNN"
        warnings.warn(f"{name} kernel not used because:", UserWarning, stacklevel=4)
        for reason in reasons:
            warnings.warn(reason, UserWarning, stacklevel=4)
    raise RuntimeError("No available kernel.  Aborting execution.")


class sdpa_kernel:
    """Restrict ``F.scaled_dot_product_attention`` to ``backends`` (an
    SDPBackend or a list) inside a ``with`` block (or a decorated
    function); ``set_priority`` tries them in the order given."""

    def __init__(self, backends, set_priority=False):
        self.backends = [backends] if isinstance(backends, SDPBackend) else backends
        self.set_priority = set_priority
        self._tokens = []

    def __enter__(self):
        backends = self.backends
        if not isinstance(backends, (list, tuple, set)) or \
                not all(isinstance(b, int) and not isinstance(b, bool) for b in backends):
            raise AssertionError(f"Backend must be an instance of SDPBackend or a list of "
                                 f"SDPBackend instances, got {type(backends).__name__}")
        backends = [SDPBackend(b) for b in backends]
        order = tuple(backends) + tuple(b for b in _DEFAULT_ORDER if b not in backends) \
            if self.set_priority else _DEFAULT_ORDER
        self._tokens.append(_state.set((frozenset(backends), order)))
        return {}

    def __exit__(self, *exc):
        _state.reset(self._tokens.pop())
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return run
