"""Peak memory of scaled_dot_product_attention forward + backward against the
sequence length: each length runs in a fresh process and reports the growth
of its peak resident set over the inputs alone.  The blocked kernel keeps no
T x T matrix, so the growth follows the operands (O(T)), not T^2 (which
would be 4 * 4 * T^2 bytes per head in float32: 1 GiB at T = 8192, 4 heads).

    python benchmarks/sdpa_memory.py"""
import os
import subprocess
import sys

CHILD = """
import resource, sys
import numpy as np
sys.path.insert(0, {root!r})
import torchlike as T
seq = {seq}
q, k, v = (T.randn(1, 4, seq, 64).requires_grad_() for _ in range(3))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
out.sum().backward()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((peak - base) / 1024)
"""


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"{'seq':>6} {'peak growth MiB':>16} {'T x T scores would be MiB':>26}")
    for seq in (1024, 2048, 4096, 8192):
        out = subprocess.run([sys.executable, "-c", CHILD.format(root=root, seq=seq)],
                             capture_output=True, text=True, check=True).stdout
        print(f"{seq:>6} {float(out):>16.1f} {4 * 4 * seq * seq / 2 ** 20:>26.0f}")


if __name__ == "__main__":
    main()
