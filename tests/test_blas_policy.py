"""The OpenBLAS core-type policy (torchlike/_blas_policy.py): the decision on
fake CPUID registers of known CPUs, and, in a fresh interpreter, that the
choice reaches OpenBLAS and leaves the environment as it was."""
import json
import os
import subprocess
import sys

import pytest

from torchlike import _blas_policy as policy
from torchlike import _cpuid

AVX512_EBX = (1 << 16) | (1 << 17) | (1 << 28) | (1 << 30) | (1 << 31)
AVX2_EBX = (1 << 5) | (1 << 3) | (1 << 8)
OSXSAVE = 1 << 27
XCR0_AVX512 = 0xE7  # x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
XCR0_AVX = 0x07


def fake_cpu(vendor, family, model=0, ebx7=AVX512_EBX, osxsave=True, xcr0=XCR0_AVX512,
             max_leaf=0x10):
    """(cpuid, xgetbv) answering as a CPU of this vendor and display family."""
    regs = [int.from_bytes(vendor[i:i + 4].encode(), "little") for i in (0, 4, 8)]
    base, ext = (family, 0) if family < 0xF else (0xF, family - 0xF)
    eax1 = (ext << 20) | ((model >> 4) << 16) | (base << 8) | ((model & 0xF) << 4)
    leaves = {
        (0, 0): (max_leaf, regs[0], regs[2], regs[1]),  # vendor in ebx, edx, ecx
        (1, 0): (eax1, 0, (OSXSAVE if osxsave else 0) | (1 << 28), 0),
        (7, 0): (0, ebx7, 0, 0),
    }

    def cpuid(leaf, subleaf=0):
        return leaves.get((leaf, subleaf), (0, 0, 0, 0))

    def xgetbv(index):
        assert osxsave, "xgetbv without OSXSAVE faults"
        return xcr0 if index == 0 else 0
    return cpuid, xgetbv


def test_zen5_with_avx512_gets_skylakex():
    assert policy.openblas_coretype(*fake_cpu("AuthenticAMD", 0x1A, 0x11), {}) == "SkylakeX"


def test_later_amd_and_hygon_families_get_skylakex():
    assert policy.openblas_coretype(*fake_cpu("AuthenticAMD", 0x1B), {}) == "SkylakeX"
    assert policy.openblas_coretype(*fake_cpu("HygonGenuine", 0x1A), {}) == "SkylakeX"


def test_a_user_setting_is_kept():
    cpu = fake_cpu("AuthenticAMD", 0x1A)
    assert policy.openblas_coretype(*cpu, {"OPENBLAS_CORETYPE": "Haswell"}) is None
    assert policy.openblas_coretype(*cpu, {"OPENBLAS_CORETYPE": ""}) is None


@pytest.mark.parametrize("vendor, family", [
    ("AuthenticAMD", 0x19),  # Zen 3/4: OpenBLAS knows them (SkylakeX/Cooperlake on Zen 4)
    ("AuthenticAMD", 0x17),  # Zen 1/2
    ("GenuineIntel", 0x6),   # Intel's AVX-512 parts are in OpenBLAS's table
    ("CentaurHauls", 0x7),
])
def test_cpus_openblas_knows_are_left_to_it(vendor, family):
    assert policy.openblas_coretype(*fake_cpu(vendor, family), {}) is None


@pytest.mark.parametrize("kwargs", [
    {"ebx7": AVX2_EBX},                            # no AVX-512 at all
    {"ebx7": AVX512_EBX & ~(1 << 31)},             # no AVX512VL
    {"ebx7": AVX512_EBX & ~(1 << 30)},             # no AVX512BW
    {"xcr0": XCR0_AVX},                            # the OS does not save ZMM state
    {"osxsave": False},                            # no XGETBV
    {"max_leaf": 6},                               # no leaf 7
])
def test_zen5_without_usable_avx512_is_left_to_openblas(kwargs):
    assert policy.openblas_coretype(*fake_cpu("AuthenticAMD", 0x1A, **kwargs), {}) is None


def test_no_cpuid_means_no_choice():
    assert policy.openblas_coretype(lambda leaf, sub=0: None, lambda i: None, {}) is None


def test_family_decoding():
    for family in (0x6, 0xF, 0x17, 0x19, 0x1A):
        cpuid, _ = fake_cpu("AuthenticAMD", family, model=0x44)
        assert policy._family(cpuid(1)[0]) == family


def test_this_machines_registers_decode():
    leaf0 = _cpuid.cpuid(0)
    if leaf0 is None:
        pytest.skip("not an x86 CPU")
    assert len(leaf0) == 4 and all(isinstance(r, int) and 0 <= r < 2 ** 32 for r in leaf0)
    assert policy._vendor(*leaf0[1:]).isprintable()
    assert isinstance(policy.has_avx512(_cpuid.cpuid, _cpuid.xgetbv), bool)


def _load(env_extra):
    """A fresh interpreter's view after importing torchlike."""
    code = ("import json, os, torchlike; print(json.dumps([torchlike._blas_policy.CORETYPE, "
            "torchlike._C._blas_corename(), os.environ.get('OPENBLAS_CORETYPE')]))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update(env_extra)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_choice_reaches_openblas_and_leaves_the_environment():
    chosen, corename, left = _load({})
    expected = policy.openblas_coretype(_cpuid.cpuid, _cpuid.xgetbv, {})
    assert chosen == expected
    if chosen is not None:
        assert corename.lower() == chosen.lower()
    assert left is None


def test_a_user_coretype_reaches_openblas():
    chosen, corename, left = _load({"OPENBLAS_CORETYPE": "Haswell"})
    assert chosen is None and corename == "Haswell" and left == "Haswell"
