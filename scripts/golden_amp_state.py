"""Record PyTorch's autocast state functions for tests/test_amp.py: the
setters (set_autocast_enabled with and without a device type,
set_autocast_dtype, set_autocast_cache_enabled, the deprecated per-device
spellings), the nesting counters, what an op does under the state they set,
and the messages of bad arguments.  Each call restores the state it changed.

Run with an interpreter that has PyTorch:
    python scripts/golden_amp_state.py
writes tests/golden/amp_state.json ([call, outcome] pairs over T, the library)."""
import warnings

from golden_calls import record


def inputs(T):
    def under(set_calls, probe):
        """Apply the setters, read probe(), then restore the default state."""
        a = T.ones(2, 2)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for f, args in set_calls:
                    getattr(T, f)(*args)
                return probe(a)
        finally:
            T.set_autocast_enabled("cpu", False)
            T.set_autocast_enabled("cuda", False)
            T.set_autocast_dtype("cpu", T.bfloat16)
            T.set_autocast_dtype("cuda", T.float16)
            T.set_autocast_cache_enabled(True)

    def nesting():
        return [T.autocast_increment_nesting(), T.autocast_increment_nesting(),
                T.autocast_decrement_nesting(), T.autocast_decrement_nesting()]

    return {"T": T, "under": under, "nesting": nesting}


CALLS = [
    "under([('set_autocast_enabled', ('cpu', True))], lambda a: T.is_autocast_enabled('cpu'))",
    "under([('set_autocast_enabled', ('cpu', True))], lambda a: (a @ a).dtype)",
    "under([('set_autocast_enabled', ('cpu', True)), ('set_autocast_dtype', ('cpu', T.float16))],"
    " lambda a: (a @ a).dtype)",
    "under([('set_autocast_enabled', ('cpu', True)), ('set_autocast_enabled', ('cpu', False))],"
    " lambda a: (a @ a).dtype)",
    "under([('set_autocast_enabled', ('cpu', True))], lambda a: (a + a).dtype)",
    "under([('set_autocast_enabled', ('cpu', True))], lambda a: T.is_autocast_enabled('cuda'))",
    "under([('set_autocast_enabled', (True,))], lambda a: T.is_autocast_enabled())",
    "under([('set_autocast_dtype', ('cpu', T.float16))], lambda a: T.get_autocast_dtype('cpu'))",
    "under([('set_autocast_dtype', ('cpu', T.float16))], lambda a: (a @ a).dtype)",
    "under([('set_autocast_dtype', ('cuda', T.bfloat16))], lambda a: T.get_autocast_dtype('cuda'))",
    "under([('set_autocast_cache_enabled', (False,))], lambda a: T.is_autocast_cache_enabled())",
    "under([('set_autocast_cpu_enabled', (True,))], lambda a: T.is_autocast_enabled('cpu'))",
    "under([('set_autocast_cpu_dtype', (T.float16,))], lambda a: T.get_autocast_dtype('cpu'))",
    "under([('set_autocast_gpu_dtype', (T.bfloat16,))], lambda a: T.get_autocast_dtype('cuda'))",
    "under([('set_autocast_enabled', ('cpu', True))], lambda a: T.autocast('cpu') is not None and "
    "(a @ a).dtype)",
    "nesting()",
    "T.set_autocast_enabled('cpu', 1)", "T.set_autocast_enabled(1, True)",
    "T.set_autocast_dtype('cpu', 'float16')", "T.set_autocast_cache_enabled(1)",
    "T.set_autocast_enabled('cpu', True, 3)",
]


def describe(r):
    if type(r).__name__ == "dtype":
        return ["dtype", str(r).split(".")[-1]]
    return [type(r).__name__, r]


def main():
    record(CALLS, inputs, describe, "amp_state", messages=True)


if __name__ == "__main__":
    main()
