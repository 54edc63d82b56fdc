"""What the CPU can do, as ``torch.cpu.get_capabilities()`` reports it: the
instruction-set features read from CPUID (``torchlike._cpuid``) and the
extended control register (a feature whose registers the OS does not save
on a context switch is reported absent), plus the architecture, core counts
and cache sizes the OS reports.

PyTorch asks the cpuinfo library; the names here are its names.  Where the
two may differ: ``cpu_name`` is the OS's model string shortened by a simpler
rule than cpuinfo's (trademarks, "Processor", "CPU" and the clock dropped);
off x86 only ``architecture``, the counts and the cache sizes are given."""
import os
import platform

# (leaf, subleaf, register index in (eax, ebx, ecx, edx), bit, name)
_BITS = [
    (1, 0, 3, 25, "sse"), (1, 0, 3, 26, "sse2"), (1, 0, 2, 0, "sse3"), (1, 0, 2, 9, "ssse3"),
    (1, 0, 2, 19, "sse4_1"), (1, 0, 2, 20, "sse4_2"), (1, 0, 2, 23, "popcnt"),
    (1, 0, 2, 25, "aes"), (1, 0, 3, 19, "clflush"),
    (1, 0, 2, 28, "avx"), (1, 0, 2, 12, "fma3"), (1, 0, 2, 29, "f16c"),
    (7, 0, 1, 3, "bmi"), (7, 0, 1, 5, "avx2"), (7, 0, 1, 8, "bmi2"), (7, 0, 1, 23, "clflushopt"),
    (7, 0, 1, 24, "clwb"), (7, 0, 1, 29, "sha"),
    (7, 0, 1, 16, "avx512_f"), (7, 0, 1, 17, "avx512_dq"), (7, 0, 1, 21, "avx512_ifma"),
    (7, 0, 1, 28, "avx512_cd"), (7, 0, 1, 30, "avx512_bw"), (7, 0, 1, 31, "avx512_vl"),
    (7, 0, 2, 1, "avx512_vbmi"), (7, 0, 2, 6, "avx512_vbmi2"), (7, 0, 2, 11, "avx512_vnni"),
    (7, 0, 2, 12, "avx512_bitalg"), (7, 0, 2, 14, "avx512_vpopcntdq"),
    (7, 0, 3, 2, "avx512_4vnniw"), (7, 0, 3, 3, "avx512_4fmaps"),
    (7, 0, 3, 8, "avx512_vp2intersect"), (7, 0, 3, 23, "avx512_fp16"),
    (7, 0, 3, 22, "amx_bf16"), (7, 0, 3, 24, "amx_tile"), (7, 0, 3, 25, "amx_int8"),
    (7, 1, 0, 4, "avx_vnni"), (7, 1, 0, 5, "avx512_bf16"), (7, 1, 0, 21, "amx_fp16"),
    (7, 1, 3, 4, "avx_vnni_int8"), (7, 1, 3, 5, "avx_ne_convert"),
    (7, 1, 3, 10, "avx_vnni_int16"),
    (0x80000001, 0, 2, 5, "lzcnt"), (0x80000001, 0, 2, 6, "sse4a"), (0x80000001, 0, 2, 16, "fma4"),
]

# Which registers the OS must save for a family to be usable (XCR0 bits):
# SSE and AVX state for the VEX families, opmask and ZMM state for AVX-512,
# tile config and data for AMX.
_XCR0_AVX, _XCR0_AVX512, _XCR0_AMX = 0x6, 0xE6, 0x60000
_AVX_FAMILY = {"avx", "fma3", "f16c", "avx2", "avx_vnni", "fma4", "avx_vnni_int8",
               "avx_ne_convert", "avx_vnni_int16"}


def _os_state(name):
    if name.startswith("avx512") or name.startswith("avx10"):
        return _XCR0_AVX512
    if name.startswith("amx"):
        return _XCR0_AMX
    return _XCR0_AVX if name in _AVX_FAMILY else 0


def _x86_features(cpuid, xgetbv):
    max_leaf = cpuid(0)[0]
    max_ext = cpuid(0x80000000)[0]
    osxsave = bool(cpuid(1)[2] >> 27 & 1)
    xcr0 = xgetbv(0) if osxsave else 0
    regs = {}

    def reg(leaf, sub):
        if (leaf, sub) not in regs:
            known = leaf <= max_ext if leaf >= 0x80000000 else leaf <= max_leaf
            if leaf == 7 and sub == 1:
                known = known and cpuid(7, 0)[0] >= 1
            regs[leaf, sub] = cpuid(leaf, sub) if known else (0, 0, 0, 0)
        return regs[leaf, sub]

    caps = {}
    for leaf, sub, r, bit, name in _BITS:
        need = _os_state(name)
        caps[name] = bool(reg(leaf, sub)[r] >> bit & 1) and (xcr0 & need) == need
    # AVX10: a flag in leaf 7.1 and the converged version in leaf 0x24
    avx10 = bool(reg(7, 1)[3] >> 19 & 1) and (xcr0 & _XCR0_AVX512) == _XCR0_AVX512
    version = reg(0x24, 0)[1] & 0xFF if avx10 and max_leaf >= 0x24 else 0
    caps["avx10_1"] = version >= 1
    caps["avx10_2"] = version >= 2
    return caps


def _cache_size(level, kind):
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            d = os.path.join(base, entry)
            with open(os.path.join(d, "level")) as f:
                lv = int(f.read())
            with open(os.path.join(d, "type")) as f:
                ty = f.read().strip()
            if lv == level and ty in kind:
                with open(os.path.join(d, "size")) as f:
                    s = f.read().strip()
                scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
                return int(s.rstrip("KMG")) * scale
    except (OSError, ValueError):
        pass
    return 0


def _topology():
    """(logical cores, physical cores, sockets, model name) as the OS says."""
    logical = os.cpu_count() or 1
    cores, sockets, name = set(), set(), platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            phys = core = None
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "physical id":
                    phys = value
                    sockets.add(value)
                elif key == "core id":
                    core = value
                    cores.add((phys, core))
                elif key == "model name":
                    name = value
    except OSError:
        pass
    return logical, len(cores) or logical, len(sockets) or 1, _short_name(name)


def _short_name(name):
    """The model string without trademarks, "Processor"/"CPU" and the clock,
    as cpuinfo shortens it ("Intel(R) Xeon(R) Processor" -> "Intel Xeon")."""
    name = name.split("@")[0]
    for mark in ("(R)", "(r)", "(TM)", "(tm)"):
        name = name.replace(mark, " ")
    words = [w for w in name.split() if w not in ("Processor", "CPU")]
    return " ".join(words)


def capabilities():
    arch = platform.machine().lower()
    arch = {"amd64": "x86_64", "aarch64": "arm64"}.get(arch, arch)
    caps = {"architecture": arch}
    if arch in ("x86_64", "i386", "i686", "x86"):
        from .. import _cpuid
        caps.update(_x86_features(_cpuid.cpuid, _cpuid.xgetbv))
    logical, physical, sockets, name = _topology()
    caps.update(num_logical_cores=logical, num_physical_cores=physical, num_sockets=sockets,
                cpu_name=name, l1d_cache_size=_cache_size(1, ("Data", "Unified")),
                l2_cache_size=_cache_size(2, ("Unified", "Data")))
    return caps
