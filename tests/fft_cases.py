"""The torch.fft / torchlike.fft calls compared in tests/test_fft.py, shared with
scripts/golden_fft.py, which records PyTorch's answers to them.  Each case is
call(fft_module, tensor); `real(t)` gives the real part where a transform wants
a real input."""


def real(t):
    return t.real if t.is_complex() else t


CASES = {
    "fft": lambda f, t: f.fft(t),
    "fft_n_dim0": lambda f, t: f.fft(t, n=5, dim=0),
    "ifft_ortho": lambda f, t: f.ifft(t, norm="ortho"),
    "fft2_s": lambda f, t: f.fft2(t, s=(3, 8)),
    "fftn_forward": lambda f, t: f.fftn(t, norm="forward"),
    "ifftn_dim": lambda f, t: f.ifftn(t, dim=(0,)),
    "rfft": lambda f, t: f.rfft(real(t)),
    "rfft_n": lambda f, t: f.rfft(real(t), n=9),
    "irfft": lambda f, t: f.irfft(t),
    "irfft_n": lambda f, t: f.irfft(t, n=7, norm="ortho"),
    "rfftn": lambda f, t: f.rfftn(real(t)),
    "irfftn_s": lambda f, t: f.irfftn(t, s=(4, 9)),
    "rfft2": lambda f, t: f.rfft2(real(t), norm="forward"),
    "irfft2": lambda f, t: f.irfft2(t),
    "hfft": lambda f, t: f.hfft(t),
    "hfft_n": lambda f, t: f.hfft(t, n=8, norm="forward"),
    "ihfft": lambda f, t: f.ihfft(real(t)),
    "hfft2": lambda f, t: f.hfft2(t),
    "ihfftn": lambda f, t: f.ihfftn(real(t)),
    "fftshift": lambda f, t: f.fftshift(t),
    "ifftshift_dim": lambda f, t: f.ifftshift(t, dim=1),
}
