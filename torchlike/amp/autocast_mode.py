"""Automatic mixed precision: ``torchlike.autocast``.

Inside an enabled autocast region, the listed ops cast their floating-point
inputs before running, following PyTorch's per-device op lists:

* ``lower``: run in the region's dtype (matmul, mm, bmm, addmm, linear,
  conv*, ...);
* ``fp32``: run in float32 (losses, linear algebra, fft on the CPU; exp, log,
  pow, softplus, layer_norm, ... on CUDA);
* ``fp32_set_opt_dtype``: run in float32 unless an explicit ``dtype=`` is
  given (CUDA: softmax, log_softmax, sum, prod, cumsum, ...);
* ``promote``: run in the widest floating type among the inputs (cat, stack,
  index_copy on the CPU; more on CUDA);
* ``banned``: refuse (CUDA binary_cross_entropy, as PyTorch).

Every other op runs on whatever dtypes it is given, by the ordinary
promotion rules. float64 tensors and tensors on another device are never
cast; in-place variants and calls with ``out=`` are not autocast.

How the hook sits in the call path: while at least one autocast region is
active in any thread, the listed callables of ``torchlike``, ``torchlike._C``,
``torchlike.Tensor`` (methods and ``@``), ``torchlike.nn.functional``,
``torchlike.linalg`` and ``torchlike.fft`` are replaced by wrappers that
consult the calling thread's autocast state; when the last region exits the
originals are put back, so autocast costs nothing when it is off. Inside a
listed op autocast is suspended (as PyTorch excludes its dispatch key), so
a composite op's inner steps keep the dtypes the op chose. A reference taken
before the region (``mm = torchlike.mm``) bypasses the wrapper."""
import functools
import threading
import warnings

import torchlike

__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype",
           "is_autocast_cache_enabled", "clear_autocast_cache"]

_DEVICE_TYPES = ("cpu", "cuda")
_DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": "float16"}
_SUPPORTED = {"cpu": ("bfloat16", "float16"), "cuda": ("float16", "bfloat16")}

# ---- PyTorch's op lists, by namespace ------------------------------------------------------
# Namespaces: "torch" (torchlike and torchlike._C), "Tensor", "F" (nn.functional),
# "linalg", "fft".
_MATMULS = ["torch.mm", "torch.matmul", "torch.bmm", "torch.baddbmm", "torch.addmm", "torch.addbmm",
            "Tensor.mm", "Tensor.matmul", "Tensor.bmm", "Tensor.baddbmm", "Tensor.addmm",
            "Tensor.addbmm", "Tensor.__matmul__", "Tensor.__rmatmul__", "linalg.matmul",
            "linalg.vecdot", "F.linear", "F.conv1d", "F.conv2d", "F.conv3d", "F.conv_transpose1d",
            "F.conv_transpose2d", "F.conv_transpose3d", "F.prelu", "F.scaled_dot_product_attention"]
_LOWER = {
    "cpu": _MATMULS,
    "cuda": _MATMULS + ["torch.addmv", "torch.addr", "torch.mv", "torch.einsum", "torch.chain_matmul",
                        "Tensor.addmv", "Tensor.addr", "Tensor.mv", "linalg.multi_dot"],
}
_LOSSES = ["F.mse_loss", "F.l1_loss", "F.smooth_l1_loss", "F.huber_loss", "F.nll_loss",
           "F.cross_entropy", "F.binary_cross_entropy_with_logits", "F.kl_div", "F.soft_margin_loss",
           "F.margin_ranking_loss", "F.hinge_embedding_loss", "F.poisson_nll_loss",
           "F.cosine_embedding_loss", "F.triplet_margin_loss", "F.multi_margin_loss",
           "F.multilabel_margin_loss"]
_LINALG_FP32 = ["torch.cholesky", "torch.cholesky_inverse", "torch.cholesky_solve", "torch.inverse",
                "torch.pinverse", "torch.qr", "torch.svd", "Tensor.cholesky", "Tensor.cholesky_inverse",
                "Tensor.cholesky_solve", "Tensor.inverse", "Tensor.pinverse", "Tensor.qr", "Tensor.svd",
                "linalg.cond", "linalg.matrix_rank", "linalg.solve", "linalg.solve_ex", "linalg.cholesky",
                "linalg.cholesky_ex", "linalg.svdvals", "linalg.eigvals", "linalg.eigvalsh", "linalg.inv",
                "linalg.inv_ex", "linalg.householder_product", "linalg.tensorinv", "linalg.tensorsolve",
                "linalg.qr", "linalg.svd", "linalg.eig", "linalg.eigh", "linalg.lstsq", "linalg.lu_solve"]
_FFTS = ["fft." + n for n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                              "irfft2", "rfftn", "irfftn", "hfft", "ihfft")]
_FP32 = {
    "cpu": _LOSSES + _LINALG_FP32 + _FFTS + [
        "F.binary_cross_entropy", "F.ctc_loss", "F.avg_pool3d", "F.max_pool3d", "F.adaptive_avg_pool3d",
        "F.adaptive_max_pool3d", "F.max_unpool2d", "F.max_unpool3d", "F.grid_sample",
        "torch.prod", "torch.quantile", "torch.nanquantile", "torch.trace", "torch.cdist",
        "Tensor.prod", "Tensor.quantile", "Tensor.nanquantile", "Tensor.trace"],
    "cuda": _LOSSES + [
        "torch.acos", "torch.asin", "torch.cosh", "torch.erfinv", "torch.exp", "torch.expm1", "torch.log",
        "torch.log10", "torch.log2", "torch.log1p", "torch.reciprocal", "torch.rsqrt", "torch.sinh",
        "torch.tan", "torch.pow", "torch.cdist", "torch.dist", "torch.renorm", "torch.logsumexp",
        "torch.norm", "Tensor.acos", "Tensor.asin", "Tensor.cosh", "Tensor.erfinv", "Tensor.exp",
        "Tensor.expm1", "Tensor.log", "Tensor.log10", "Tensor.log2", "Tensor.log1p", "Tensor.reciprocal",
        "Tensor.rsqrt", "Tensor.sinh", "Tensor.tan", "Tensor.pow", "Tensor.__pow__", "Tensor.__rpow__",
        "Tensor.__rtruediv__", "Tensor.dist", "Tensor.renorm", "Tensor.logsumexp", "Tensor.norm",
        "F.softplus", "F.layer_norm", "F.group_norm", "F.normalize", "F.cosine_similarity", "F.pdist"],
}
_FP32_SET_OPT_DTYPE = {
    "cpu": [],
    "cuda": ["torch.prod", "torch.cumprod", "torch.cumsum", "torch.sum", "Tensor.prod", "Tensor.cumprod",
             "Tensor.cumsum", "Tensor.sum", "F.softmax", "F.log_softmax", "linalg.vector_norm",
             "linalg.matrix_norm"],
}
_PROMOTE = {
    "cpu": ["torch.stack", "torch.cat", "torch.index_copy", "Tensor.index_copy"],
    "cuda": ["torch.stack", "torch.cat", "torch.index_copy", "Tensor.index_copy", "torch.addcdiv",
             "torch.addcmul", "torch.atan2", "torch.cross", "torch.dot", "torch.tensordot",
             "torch.index_put", "torch.scatter_add", "Tensor.addcdiv", "Tensor.addcmul", "Tensor.atan2",
             "Tensor.cross", "Tensor.dot", "Tensor.index_put", "Tensor.scatter_add", "F.bilinear",
             "F.grid_sample"],
}
_BANNED = {"cpu": [], "cuda": ["F.binary_cross_entropy"]}


def _policies():
    """{qualified name: {device type: policy}}; a later list wins on overlap."""
    table = {}
    for policy, lists in (("lower", _LOWER), ("fp32", _FP32), ("fp32_set_opt_dtype", _FP32_SET_OPT_DTYPE),
                          ("promote", _PROMOTE), ("banned", _BANNED)):
        for device, names in lists.items():
            for name in names:
                table.setdefault(name, {})[device] = policy
    return table


_POLICY = _policies()


def op_policy(name, device_type):
    """The autocast policy of a qualified op name ("F.linear", "torch.mm",
    "Tensor.__matmul__") on a device type, or None for ops not listed."""
    return _POLICY.get(name, {}).get(device_type)


# ---- thread-local state -----------------------------------------------------------------------

class _State(threading.local):
    def __init__(self):
        self.enabled = {d: False for d in _DEVICE_TYPES}
        self.dtype = {d: getattr(torchlike, _DEFAULT_DTYPE[d]) for d in _DEVICE_TYPES}
        self.cache_enabled = True
        self.active = False  # any device enabled: the wrappers' fast exit
        self.nesting = 0
        self.suspended = False
        self.cache = {}
        self.set_on = set()  # device types set_autocast_enabled turned on (wrappers held)


_state = _State()


def is_autocast_available(device_type):
    """Whether autocast knows the device type (it does for "cpu" and "cuda")."""
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` in this thread (CUDA when
    no device type is given, as PyTorch's legacy spelling)."""
    return _state.enabled[_check_device_type(device_type or "cuda")]


def get_autocast_dtype(device_type):
    """The lower-precision dtype autocast uses on ``device_type``."""
    return _state.dtype[_check_device_type(device_type)]


def is_autocast_cache_enabled():
    return _state.cache_enabled


def clear_autocast_cache():
    _state.cache.clear()


# ---- the state's setters (what the context manager does, one piece at a time) ----------------

def _need(fn, arg, pos, value, kind, name=None):
    if not isinstance(value, kind):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be "
                        f"{name or kind.__name__}, not {type(value).__name__}")


def set_autocast_enabled(*args):
    """``set_autocast_enabled(device_type, enabled)`` turns autocast on or off
    in this thread outside any region; ``set_autocast_enabled(enabled)`` is
    the legacy CUDA spelling."""
    if len(args) not in (1, 2):
        raise TypeError(f"set_autocast_enabled() takes 1 or 2 arguments ({len(args)} given)")
    device_type, enabled = ("cuda", args[0]) if len(args) == 1 else args
    _need("set_autocast_enabled", "device_type", 1, device_type, str)
    _need("set_autocast_enabled", "enabled", len(args), enabled, bool)
    st = _state
    st.enabled[_check_device_type(device_type)] = enabled
    st.active = any(st.enabled.values())
    # the op wrappers stay installed while any thread has a device turned on here
    if enabled and device_type not in st.set_on:
        st.set_on.add(device_type)
        _acquire()
    elif not enabled and device_type in st.set_on:
        st.set_on.discard(device_type)
        _release()


def set_autocast_dtype(device_type, dtype):
    """The lower-precision dtype autocast uses on ``device_type`` from now on."""
    _need("set_autocast_dtype", "device_type", 1, device_type, str)
    _need("set_autocast_dtype", "dtype", 2, dtype, torchlike.dtype, "torchlike.dtype")
    _state.dtype[_check_device_type(device_type)] = dtype


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def autocast_increment_nesting():
    """One more autocast region open in this thread; the new depth."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    """One region fewer; leaving the outermost clears the cast cache."""
    _state.nesting -= 1
    if _state.nesting == 0:
        _state.cache.clear()
    return _state.nesting


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


# ---- the casting wrappers ---------------------------------------------------------------------

def _first_device_type(values):
    for v in values:
        if isinstance(v, torchlike.Tensor):
            return "cuda" if v.is_cuda else "cpu"
        if isinstance(v, (list, tuple)):
            found = _first_device_type(v)
            if found is not None:
                return found
    return None


def _eligible(t, device_type):
    return (isinstance(t, torchlike.Tensor) and t.is_floating_point() and t.dtype != torchlike.float64
            and ("cuda" if t.is_cuda else "cpu") == device_type)


def _cast(value, dtype, device_type):
    if isinstance(value, torchlike.Tensor):
        if not _eligible(value, device_type) or value.dtype == dtype:
            return value
        # parameters (leaves that require grad) are cast once per region
        cacheable = _state.cache_enabled and value.is_leaf and value.requires_grad
        if cacheable:
            hit = _state.cache.get(id(value))
            if hit is not None and hit[0] is value and hit[1].dtype == dtype:
                return hit[1]
        out = value.to(dtype)
        if cacheable:
            _state.cache[id(value)] = (value, out)
        return out
    if isinstance(value, (list, tuple)) and any(isinstance(v, (torchlike.Tensor, list, tuple)) for v in value):
        return type(value)(_cast(v, dtype, device_type) for v in value)
    return value


def _widest(values, device_type, widest=None):
    for v in values:
        if isinstance(v, (list, tuple)):
            widest = _widest(v, device_type, widest)
        elif _eligible(v, device_type):
            widest = v.dtype if widest is None else torchlike.promote_types(widest, v.dtype)
    return widest


def _wrap(qualname, original, policies):
    @functools.wraps(original)
    def autocast_wrapper(*args, **kwargs):
        st = _state
        if not st.active or st.suspended or "out" in kwargs:
            return original(*args, **kwargs)
        device_type = _first_device_type(args) or _first_device_type(kwargs.values())
        policy = policies.get(device_type)
        if policy is None or not st.enabled.get(device_type, False):
            return original(*args, **kwargs)
        if policy == "banned":
            raise RuntimeError(
                f"{qualname} is unsafe to autocast on {device_type}: its inputs may be the "
                "lower-precision outputs of a sigmoid. Use binary_cross_entropy_with_logits, "
                "which combines the two and is safe to autocast.")
        if policy == "lower":
            dtype = st.dtype[device_type]
        elif policy == "promote":
            dtype = _widest(list(args) + list(kwargs.values()), device_type)
        elif policy == "fp32_set_opt_dtype" and kwargs.get("dtype") is not None:
            return original(*args, **kwargs)
        else:
            dtype = torchlike.float32
        if dtype is not None:
            args = tuple(_cast(a, dtype, device_type) for a in args)
            kwargs = {k: _cast(v, dtype, device_type) for k, v in kwargs.items()}
        st.suspended = True
        try:
            return original(*args, **kwargs)
        finally:
            st.suspended = False

    autocast_wrapper._autocast_original = original
    return autocast_wrapper


def _namespaces():
    import torchlike.fft
    import torchlike.linalg
    import torchlike.nn.functional
    return {"torch": (torchlike, torchlike._C), "Tensor": (torchlike.Tensor,),
            "F": (torchlike.nn.functional,), "linalg": (torchlike.linalg,), "fft": (torchlike.fft,)}


_install_lock = threading.Lock()
_install_count = 0
_saved = []  # (owner, attribute, original, was the owner's own attribute)


def _install():
    namespaces = _namespaces()
    for qualname, policies in _POLICY.items():
        prefix, attr = qualname.split(".", 1)
        for owner in namespaces[prefix]:
            own = attr in vars(owner)
            original = getattr(owner, attr, None)
            if original is None or hasattr(original, "_autocast_original"):
                continue
            _saved.append((owner, attr, vars(owner)[attr] if own else None, own))
            setattr(owner, attr, _wrap(qualname, original, policies))


def _uninstall():
    while _saved:
        owner, attr, original, own = _saved.pop()
        if own:
            setattr(owner, attr, original)
        else:
            delattr(owner, attr)


def _acquire():
    global _install_count
    with _install_lock:
        if _install_count == 0:
            _install()
        _install_count += 1


def _release():
    global _install_count
    with _install_lock:
        _install_count -= 1
        if _install_count == 0:
            _uninstall()


# ---- the context manager ------------------------------------------------------------------------

class autocast:
    """Run the ops of a region in mixed precision on ``device_type``.

    ``dtype`` defaults to bfloat16 on the CPU and float16 on CUDA. Used as a
    context manager or a decorator; regions nest, and ``enabled=False``
    turns autocast off inside an enclosing region. Without a GPU, a CUDA
    region warns and is disabled, as PyTorch on a CPU-only build."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _check_device_type(device_type)
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        name = str(self.fast_dtype).rsplit(".", 1)[-1]
        if enabled and device_type == "cuda" and not torchlike.cuda.is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            enabled = False
        if enabled and name not in _SUPPORTED[device_type]:
            # PyTorch's words, its supported dtypes listed in its order
            dev = device_type.upper()
            supported = ", ".join(f"torch.{d}" for d in _SUPPORTED[device_type])
            warnings.warn(f"In {dev} autocast, but the target dtype is not supported. Disabling "
                          f"autocast.\n{dev} Autocast only supports dtypes of {supported} "
                          f"currently.")
            enabled = False
        self._enabled = enabled
        self._stack = []
        self._acquired = []

    def __enter__(self):
        if not isinstance(self._enabled, bool):  # refused where PyTorch sets it
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be "
                            f"bool, not {type(self._enabled).__name__}")
        st = _state
        self._stack.append((st.enabled[self.device], st.dtype[self.device], st.cache_enabled))
        st.enabled[self.device] = self._enabled
        st.dtype[self.device] = self.fast_dtype
        st.cache_enabled = self._cache_enabled
        st.active = any(st.enabled.values())
        st.nesting += 1
        # a region that enables nothing needs no wrappers of its own
        self._acquired.append(self._enabled)
        if self._enabled:
            _acquire()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        st = _state
        st.nesting -= 1
        if st.nesting == 0:
            st.cache.clear()
        st.enabled[self.device], st.dtype[self.device], st.cache_enabled = self._stack.pop()
        st.active = any(st.enabled.values())
        if self._acquired.pop():
            _release()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        decorate_autocast.__autocast_instance = self
        return decorate_autocast


# ---- PyTorch's legacy per-device spellings ----------------------------------------------------

def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


# ---- custom autograd Functions under autocast --------------------------------------------------

def _cast_args(value, device_type, dtype):
    """custom_fwd's cast of a Function's arguments: floating tensors of the
    device type (float64 kept) to dtype, through lists, tuples and dicts."""
    if isinstance(value, torchlike.Tensor):
        return value.to(dtype) if _eligible(value, device_type) else value
    if isinstance(value, dict):
        return {k: _cast_args(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_args(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate a custom Function's ``forward``: record the autocast state for
    ``custom_bwd``; with ``cast_inputs``, inside an autocast region, cast the
    floating inputs to that dtype and run forward with autocast off.
    Outside a region it changes nothing."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    # As PyTorch's, the wrapper takes the first argument for the ctx (the
    # state goes on it as attributes) and casts it with the rest: decorating
    # a plain function, its first tensor is cast as well.
    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        enabled = is_autocast_enabled(device_type)
        if cast_inputs is None or not enabled:
            args[0]._fwd_used_autocast = enabled and cast_inputs is None
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        with autocast(device_type, enabled=False):
            return fwd(*_cast_args(args, device_type, cast_inputs),
                       **_cast_args(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate a custom Function's ``backward``: run it under the autocast
    state its ``custom_fwd`` forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(ctx, *args, **kwargs):
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(ctx, *args, **kwargs)
    return decorate_bwd
