#!/usr/bin/env python3
"""Write src/ndcore/kernels/sort_simd_net.h: the bitonic networks over 1 to
16 vectors that sort_simd_t.h uses, spelled out comparator by
comparator (GCC keeps the vectors in registers only when every index is a
constant, and will not unroll loops this deep by itself).

    python3 scripts/gen_sort_networks.py     (rewrites the header)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "ndcore", "kernels", "sort_simd_net.h")


def network(R):
    """The network for R vectors: that of the next power of two P, with the
    P - R missing vectors known to hold only the largest key.  Comparators
    that involve one are decided here: against a real vector they either do
    nothing or move it (a rename), so only real vectors cost instructions."""
    P = 1
    while P < R:
        P *= 2
    reg = [f"r{i}" if i < R else None for i in range(P)]  # None: all largest keys
    lines = [f"TL_SIMD_FN static void TL_SN(network{R})(TL_ST *a, const TL_ST *src, int64_t n)",
             "{", "  const __m512i ones = _mm512_set1_epi32(-1);",
             "  __m512i x, y;", "  (void)x;", "  (void)y;"]
    for i in range(R):
        lines.append(f"  __m512i r{i} = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, {i}), "
                     f"src + {i} * TL_SL));")

    def flip(p, q):  # element k of p against element 2wL-1-k (q reversed)
        if reg[q] is None:
            return
        if reg[p] is None:
            lines.append(f"  {reg[q]} = TL_SN(reverse)({reg[q]});")
            reg[p], reg[q] = reg[q], None
            return
        lines.append(f"  TL_FLIP({reg[p]}, {reg[q]});")

    def cx(p, q):
        if reg[q] is None:
            return
        if reg[p] is None:
            reg[p], reg[q] = reg[q], None
            return
        lines.append(f"  TL_CX({reg[p]}, {reg[q]});")

    w = 1
    while w < P:
        for base in range(0, P, 2 * w):
            for j in range(w):
                flip(base + j, base + 2 * w - 1 - j)
            d = w // 2
            while d >= 1:
                for k in range(base, base + 2 * w):
                    if (k - base) % (2 * d) < d:
                        cx(k, k + d)
                d //= 2
            for k in range(base, base + 2 * w):
                if reg[k] is not None:
                    lines.append(f"  {reg[k]} = TL_SN(clean)({reg[k]});")
        w *= 2
    assert all(r is not None for r in reg[:R]) and all(r is None for r in reg[R:])
    for i in range(R):
        lines.append(f"  TL_VSTORE(a + {i} * TL_SL, TL_SN(lanes)(n, {i}), {reg[i]});")
    lines.append("}")
    return "\n".join(lines)


def dispatch():
    lines = ["/* The network for the n (2..16 * TL_SL) keys of src, into a. */",
             "TL_SIMD_FN static void TL_SN(network_any)(TL_ST *a, const TL_ST *src, int64_t n)",
             "{", "  switch ((n + TL_SL - 1) / TL_SL) {"]
    for R in range(1, 16):
        lines.append(f"  case {R}: TL_SN(network{R})(a, src, n); break;")
    lines += ["  default: TL_SN(network16)(a, src, n); break;", "  }", "}"]
    return "\n".join(lines)


def main():
    body = "\n\n".join([network(R) for R in range(1, 17)] + [dispatch()])
    text = f"""/* sort_simd_net.h - bitonic networks sorting the n <= R * TL_SL keys at a
 * (read from src, which may be a) in R vectors held in registers (R = 1 to
 * 16: the network of the next power of two, less the comparators that only
 * involve missing vectors); part of the
 * sort_simd_t.h template.  Written by scripts/gen_sort_networks.py: edit
 * that, not this.
 *
 * Each vector is sorted alone (sort_vec); then runs of w vectors are merged
 * pairwise, w = 1, 2, 4 ...: the flip compares element p of the pair with
 * element 2w*L-1-p (TL_FLIP: one vector against the reverse of its
 * partner), after which each half holds the right elements in bitonic
 * order, and half-cleaners across vectors (TL_CX) then inside each vector
 * (clean) sort it.  Lanes past n load as the largest key and are not
 * stored. */

{body}
"""
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
