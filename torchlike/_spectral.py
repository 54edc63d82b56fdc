"""torch.stft and torch.istft (and their Tensor methods): the short-time
Fourier transform and its least-squares inverse, with PyTorch's arguments,
checks and messages.

Legend: B batch (absent for a 1-d signal), L signal length, N n_fft,
F frequencies (N // 2 + 1 one-sided, else N), T frames, H hop_length.

    stft:   x (B, L) -pad-> (B, L + 2 (N // 2)) -unfold-> (B, T, N) * window
            -rfft/fft over N-> (B, T, F) -transpose-> (B, F, T)
    istft:  X (B, F, T) -transpose-> (B, T, F) -irfft/ifft-> (B, T, N) * window
            -overlap-add-> (B, N + H (T - 1)) / (overlap-added window^2)

Everything is composed of registry ops and torchlike.fft's transforms (no
FFT here), so gradients of any order and every device come from them.  The
one host read is istft's check that the window envelope never vanishes,
where PyTorch reads it too."""
import warnings

from . import _C
from . import fft as _fft
from .nn import functional as _F

__all__ = ["stft", "istft"]

Tensor = _C.Tensor


def _type_str(t):
    """PyTorch's legacy type name of t (torch.FloatTensor, torch.cuda.FloatTensor)."""
    return t.type().replace("torchlike.", "torch.")


def _window_repr(window):
    if window is None:
        return "None"
    return f"{_type_str(window)}{{{list(window.shape)}}}"


def _opt(v):
    return "None" if v is None else str(int(v))


def _centered_window(window, win_length, n_fft, like):
    """The window (ones when None) zero-padded on both sides to n_fft:
    (win_length,) -> (N,), the left pad (N - win_length) // 2."""
    if window is None:
        window = _C.ones(win_length, dtype=like.dtype, device=like.device)
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return _F.pad(window, (left, n_fft - win_length - left))


_stft_warned = False


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The STFT of a (L,) or (B, L) signal: (B?, F, T) complex, or
    (B?, F, T, 2) real when return_complex=False (deprecated, as in PyTorch)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if window is not None and not isinstance(window, Tensor):
        raise TypeError(f"stft(): argument 'window' must be Tensor, not {type(window).__name__}")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    global _stft_warned
    if window is None and not _stft_warned:
        _stft_warned = True   # once per process, as PyTorch
        warnings.warn("A window was not provided. A rectangular window will be applied,which is "
                      "known to cause spectral leakage. Other windows such as torch.hann_window "
                      "or torch.hamming_window are recommended to reduce spectral leakage.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    x = input
    if center:
        # (L,) or (B, L) viewed as (1, 1, L) or (1, B, L) for pad, as PyTorch does
        dim = x.ndim
        if pad_mode == "reflect" and dim <= 3 and x.ndim and x.shape[-1] == 0:
            shape = [1] * (3 - dim) + list(x.shape)
            raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 batch "
                               "size and other non-zero dimensions for input, but got: "
                               f"{shape}")
        if pad_mode not in ("constant", "reflect", "replicate", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
        pad = n_fft // 2
        x = _F.pad(x.reshape([1] * (3 - dim) + list(x.shape)), [pad, pad], pad_mode)
        x = x.reshape(x.shape[3 - dim:] if dim < 3 else x.shape)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    window_complex = window is not None and window.is_complex()
    want_complex = return_complex
    if want_complex is None:
        want_complex = x.is_complex() or window_complex
    if not want_complex:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)

    padded = x

    def fail(msg, exc=RuntimeError):
        raise exc(f"stft({_type_str(padded)}{list(padded.shape)}, n_fft={n_fft}, hop_length={hop}, "
                  f"win_length={win}, window={_window_repr(window)}, "
                  f"normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
                  f"return_complex={int(bool(want_complex))}, "
                  f"align_to_window={_opt(align_to_window)}) : {msg}")

    if not (x.is_floating_point() or x.is_complex()):
        fail("expected a tensor of floating point or complex values", NotImplementedError)
    if x.ndim not in (1, 2):
        fail("expected a 1D or 2D tensor")
    if x.dtype in (_C.float16, _C.bfloat16) and x.device.type == "cpu":
        raise NotImplementedError("MKL FFT doesn't support tensors of type: "
                                  + ("Half" if x.dtype == _C.float16 else "BFloat16"))
    batched = x.ndim == 2
    x = x if batched else x.unsqueeze(0)                     # (B, L)
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window "
             f"with size {list(window.shape)}")
    w = _centered_window(window, win, n_fft, x)              # (N,)
    if align_to_window:
        # the t-th window (not frame) begins at t * hop: frames start `left`
        # samples earlier, over a signal zero-padded by `left` on both sides
        left = (n_fft - win) // 2
        frames = 1 + (length - win) // hop
        x = _F.pad(x, (left, left))
        need = (frames - 1) * hop + n_fft
        if need > x.shape[1]:
            size = x.element_size()
            raise RuntimeError(
                f"setStorage: sizes [{x.shape[0]}, {frames}, {n_fft}], strides "
                f"[{x.shape[1]}, {hop}, 1], storage offset 0, and itemsize {size} requiring a "
                f"storage size of {((x.shape[0] - 1) * x.shape[1] + need) * size} are out of "
                f"bounds for storage of size {x.numel() * size}")
        x = x.narrow(1, 0, need)
    frames = x.unfold(1, n_fft, hop)                         # (B, T, N)
    if window is not None or win != n_fft:
        frames = _C.mul(frames, w)
    side = onesided if onesided is not None else not frames.is_complex()
    norm = "ortho" if normalized else "backward"
    if frames.is_complex():
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _fft.fft(frames, dim=-1, norm=norm)
    elif side:
        out = _fft.rfft(frames, dim=-1, norm=norm)
    else:
        out = _fft.fft(frames, dim=-1, norm=norm)
    out = out.transpose(1, 2)                                # (B, F, T)
    if not batched:
        out = out.squeeze(0)
    if want_complex:
        return out
    from ._composites import view_as_real
    return view_as_real(out)


def _overlap_add(frames, hop, length):
    """(B, T, N) frames summed into (B, length) at offsets t * hop: the
    adjoint of unfold, by one index_add (differentiable on every device)."""
    b, t, n = frames.shape
    dev = frames.device
    idx = _C.add(_C.mul(_C.arange(t, device=dev), hop).unsqueeze(1),
                 _C.arange(n, device=dev).unsqueeze(0)).reshape(-1)        # (T N,)
    out = _C.zeros((b, length), dtype=frames.dtype, device=dev)
    return out.index_add(1, idx, frames.reshape(b, t * n))


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The least-squares inverse of stft: (B?, F, T) complex -> (B?, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if window is not None and not isinstance(window, Tensor):
        raise TypeError(f"istft(): argument 'window' must be Tensor, not {type(window).__name__}")
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise TypeError("istft requires a complex-valued input tensor matching the output "
                        "from stft with return_complex=True.")

    def fail(msg, sep=" : "):
        kind = input.device.type.upper() + _type_str(input).split(".")[-1].replace(
            "Tensor", "Type")
        raise RuntimeError(
            f"istft({kind}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_window_repr(window)}, center={int(bool(center))}, "
            f"normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
            f"length={_opt(length)}, return_complex={int(bool(return_complex))}){sep}{msg}")

    if input.ndim < 2:  # PyTorch reads dim -3 of view_as_real(input)
        n = input.ndim + 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         "but got -3)")
    n_frames = input.shape[-1]
    fft_size = input.shape[-2]
    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {input.ndim + 1}")
    side = onesided if onesided is not None else fft_size != n_fft
    if side and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not side and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    real_dtype = input.real.dtype
    w = _centered_window(window, win, n_fft, _C.empty(0, dtype=real_dtype,
                                                      device=input.device))     # (N,)
    batched = input.ndim == 3
    spec = (input if batched else input.unsqueeze(0)).transpose(1, 2)      # (B, T, F)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft.ifft(spec, dim=-1, norm=norm)                        # (B, T, N)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not side:
            spec = spec.narrow(-1, 0, n_fft // 2 + 1)
        frames = _fft.irfft(spec, n=n_fft, dim=-1, norm=norm)              # (B, T, N)
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(_C.mul(frames, w), hop, total)                       # (B, total)
    w2 = _C.mul(w, w).expand(1, n_frames, n_fft)
    envelope = _overlap_add(w2, hop, total)                               # (1, total)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = total - n_fft // 2
    else:
        end = total
    stop = min(end, total)
    y = y.narrow(1, start, max(stop - start, 0))
    envelope = envelope.narrow(1, start, max(stop - start, 0))
    if envelope.numel() == 0:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    # NOTE: PyTorch reads this flag on the host too (its NOLA check)
    if bool(_C.lt(_C.amin(_C.abs(envelope)), 1e-11).item()):
        fail("1\n[ CPUBoolType{} ]", sep=" window overlap add min: ")
    y = _C.div(y, envelope)
    if not batched:
        y = y.squeeze(0)
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        y = _F.pad(y, (0, end - total))
    return y


Tensor.stft = stft
Tensor.istft = istft
