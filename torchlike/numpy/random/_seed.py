"""Seeds and bit generators.

``SeedSequence`` is NumPy's own class: it turns any seed NumPy accepts (an int,
a sequence of ints, entropy from the OS) into well-mixed words and spawns
independent children.  Every bit generator here draws from torchlike's Philox
(docs/random.md); its class name (``PCG64``, ``MT19937`` ...) selects nothing
but how the seed is read: the Philox key is the first 64-bit word the seed
sequence generates, and the stream starts at offset 0.

A bit generator keeps one torchlike ``Generator`` per kind of device it has
drawn on (CUDA draws need a CUDA generator) and hands the 16 bytes of state
(key, offset) to the next one, so the draws of all devices are one stream."""
import threading

import numpy as _np

from ... import _C

SeedSequence = _np.random.SeedSequence

__all__ = ["SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"]


def _key_of(seed_seq):
    return int(seed_seq.generate_state(1, _np.uint64)[0])


class BitGenerator:
    """The state behind a ``Generator``: a Philox key and offset."""

    def __init__(self, seed=None):
        if hasattr(seed, "generate_state"):  # a SeedSequence (or NumPy's ISeedSequence)
            seed_seq = seed
        else:  # a tensor seed (a count the program computed: NumPy's integer scalar) as ints
            seed_seq = SeedSequence(seed.tolist() if isinstance(seed, _C.Tensor) else seed)
        self._seed_seq = seed_seq
        self.lock = threading.Lock()
        self._gens = {}
        self._last = None
        self._reset(_key_of(seed_seq))

    def _reset(self, key, offset=0):
        gen = _C.Generator()
        gen.set_state(_state_bytes(key, offset))
        self._gens = {"cpu": gen}
        self._last = gen

    @property
    def seed_seq(self):
        return self._seed_seq

    def _generator_for(self, device):
        """The torchlike generator that draws on ``device``, holding the stream's state."""
        kind = str(device) if device.type == "cuda" else "cpu"
        gen = self._gens.get(kind)
        if gen is None:
            gen = _C.Generator(device=device) if kind != "cpu" else _C.Generator()
            self._gens[kind] = gen
        if gen is not self._last:
            gen.set_state(self._last.get_state())
            self._last = gen
        return gen

    def _key_offset(self):
        raw = bytes(_np.asarray(self._last.get_state().cpu().tolist(), dtype=_np.uint8))
        return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")

    @property
    def state(self):
        """``{'bit_generator': name, 'state': {'key': int, 'offset': int}}``."""
        key, offset = self._key_offset()
        return {"bit_generator": type(self).__name__, "state": {"key": key, "offset": offset}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != type(self).__name__:
            raise ValueError(f"state must be for a {type(self).__name__} PRNG")
        inner = value.get("state")
        if not isinstance(inner, dict) or set(inner) != {"key", "offset"}:
            raise ValueError("state must hold 'key' and 'offset'")
        self._reset(int(inner["key"]), int(inner["offset"]))

    def spawn(self, n_children):
        """``n_children`` bit generators of this kind seeded by children of the seed sequence."""
        if not hasattr(self._seed_seq, "spawn"):
            raise TypeError("The underlying SeedSequence does not implement spawning.")
        return [type(self)(seq) for seq in self._seed_seq.spawn(n_children)]

    def __repr__(self):
        return f"{type(self).__name__}(torchlike Philox)"

    def __getstate__(self):
        return {"seed_seq": self._seed_seq, "state": self.state}

    def __setstate__(self, d):
        self.__init__(d["seed_seq"])
        self.state = d["state"]


def _state_bytes(key, offset):
    raw = (key % 2**64).to_bytes(8, "little") + (offset % 2**64).to_bytes(8, "little")
    return _C.tensor(list(raw), dtype=_C.uint8, device="cpu")


class PCG64(BitGenerator):
    """Named as NumPy's default; draws from torchlike's Philox (see the module)."""


class PCG64DXSM(BitGenerator):
    """Named as NumPy's; draws from torchlike's Philox (see the module)."""


class MT19937(BitGenerator):
    """Named as the legacy RandomState's; draws from torchlike's Philox (see the module)."""

    def _legacy_seeding(self, seed):
        """RandomState's rules: an int in [0, 2**32) or a non-empty 1-d sequence of them."""
        if seed is None:
            seq = SeedSequence()
        elif hasattr(seed, "generate_state"):
            seq = seed
        else:
            if isinstance(seed, (int, _np.integer)) and not isinstance(seed, bool):
                obj = int(seed)
                if not 0 <= obj <= 2**32 - 1:
                    raise ValueError("Seed must be between 0 and 2**32 - 1")
                entropy = obj
            else:
                obj = _np.asarray(seed)
                if obj.size == 0:
                    raise ValueError("Seed must be non-empty")
                obj = obj.astype(_np.int64, casting="safe")
                if obj.ndim > 1:
                    raise ValueError("Seed array must be 1-d")
                if ((obj > 2**32 - 1) | (obj < 0)).any():
                    raise ValueError("Seed must be between 0 and 2**32 - 1")
                entropy = [int(v) for v in obj.reshape(-1)]
            seq = SeedSequence(entropy)
        self._seed_seq = seq
        self._reset(_key_of(seq))


class Philox(BitGenerator):
    """torchlike's Philox4x32-10 itself, keyed by the seed sequence."""


class SFC64(BitGenerator):
    """Named as NumPy's; draws from torchlike's Philox (see the module)."""
