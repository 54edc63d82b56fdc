"""Which OpenBLAS kernels to run: the core type chosen before OpenBLAS loads.

The scipy-openblas32 library is built with DYNAMIC_ARCH: when it is loaded
(as torchlike._C is, which links it) it reads the CPU once and picks a kernel
set, unless ``OPENBLAS_CORETYPE`` names one.  Its 0.3.34 table has no entry
for AMD's family 0x1A (Zen 5), which has AVX-512, and gives it the AVX2
(Haswell) kernels; the AVX-512 (SkylakeX) kernels run its SGEMM in about
half the time.  So before ``_C`` is imported, ``openblas_coretype`` decides
from the CPU's own registers (``torchlike._cpuid``, a module linked to
nothing) and ``coretype_for_load`` sets the variable for the load only:

* a user's ``OPENBLAS_CORETYPE`` (any value, even empty) is left alone;
* an AMD or Hygon CPU of family 0x1A or later with usable AVX-512 (the
  F, DQ, CD, BW and VL instructions the SkylakeX kernels use, and the OS
  saving the mask and ZMM registers) gets ``SkylakeX``;
* every other CPU (Intel's AVX-512 parts and AMD's Zen 4 are recognised by
  OpenBLAS itself, and non-x86 machines have no CPUID) is left to OpenBLAS.

The variable is removed again once the library is loaded, so child
processes and other libraries see the environment as the user left it.
``CORETYPE`` records the choice (None: left to OpenBLAS), and
``torchlike._C._blas_corename()`` says which kernels OpenBLAS runs."""
import contextlib
import os

ENV = "OPENBLAS_CORETYPE"
CORETYPE = None

_AMD_VENDORS = ("AuthenticAMD", "HygonGenuine")
# cpuid(7, 0).ebx: AVX512F, AVX512DQ, AVX512CD, AVX512BW, AVX512VL
_AVX512_EBX = (1 << 16) | (1 << 17) | (1 << 28) | (1 << 30) | (1 << 31)
# XCR0: SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM state saved by the OS
_AVX512_XCR0 = (1 << 1) | (1 << 2) | (1 << 5) | (1 << 6) | (1 << 7)
_OSXSAVE = 1 << 27  # cpuid(1).ecx: XGETBV may be used
_FIRST_UNKNOWN_AMD_FAMILY = 0x1A


def _vendor(ebx, ecx, edx):
    return b"".join(r.to_bytes(4, "little") for r in (ebx, edx, ecx)).decode("latin-1")


def _family(eax):
    """The display family of cpuid(1).eax (base, plus extended when base is 0xF)."""
    base = (eax >> 8) & 0xF
    return base + ((eax >> 20) & 0xFF) if base == 0xF else base


def has_avx512(cpuid, xgetbv):
    """Whether the CPU runs OpenBLAS's SkylakeX kernels: the instructions and
    the OS's support for their registers."""
    max_leaf = cpuid(0)[0]
    ecx1 = cpuid(1)[2]
    if max_leaf < 7 or not ecx1 & _OSXSAVE:
        return False
    if cpuid(7, 0)[1] & _AVX512_EBX != _AVX512_EBX:
        return False
    return xgetbv(0) & _AVX512_XCR0 == _AVX512_XCR0


def openblas_coretype(cpuid, xgetbv, environ):
    """The OPENBLAS_CORETYPE to load OpenBLAS with, or None to leave its own
    choice.  ``cpuid(leaf, subleaf=0)`` returns (eax, ebx, ecx, edx) or None
    (no CPUID: not x86); ``xgetbv(index)`` returns XCR[index]."""
    if ENV in environ:
        return None
    leaf0 = cpuid(0)
    if leaf0 is None:
        return None
    if _vendor(*leaf0[1:]) not in _AMD_VENDORS or leaf0[0] < 1:
        return None
    if _family(cpuid(1)[0]) < _FIRST_UNKNOWN_AMD_FAMILY:
        return None
    return "SkylakeX" if has_avx512(cpuid, xgetbv) else None


@contextlib.contextmanager
def coretype_for_load(environ=os.environ):
    """Set OPENBLAS_CORETYPE (when the policy picks one) around the import
    that loads OpenBLAS, and take it away afterwards."""
    global CORETYPE
    try:
        from . import _cpuid
    except ImportError:  # a tree built before the module existed: OpenBLAS decides
        choice = None
    else:
        choice = openblas_coretype(_cpuid.cpuid, _cpuid.xgetbv, environ)
    CORETYPE = choice
    if choice is not None:
        environ[ENV] = choice
    try:
        yield choice
    finally:
        if choice is not None:
            environ.pop(ENV, None)
