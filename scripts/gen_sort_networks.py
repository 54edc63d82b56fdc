#!/usr/bin/env python3
"""Write src/ndcore/kernels/sort_simd_net.h: the bitonic networks over 1, 2,
4, 8 and 16 vectors that sort_simd_t.h uses, spelled out comparator by
comparator (GCC keeps the vectors in registers only when every index is a
constant, and will not unroll loops this deep by itself).

    python3 scripts/gen_sort_networks.py     (rewrites the header)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "ndcore", "kernels", "sort_simd_net.h")


def network(R):
    lines = [f"TL_SIMD_FN static void TL_SN(network{R})(TL_ST *a, int64_t n)", "{",
             "  const __m512i ones = _mm512_set1_epi32(-1);",
             "  __m512i x, y;", "  (void)x;", "  (void)y;"]
    for i in range(R):
        lines.append(f"  __m512i r{i} = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, {i}), "
                     f"a + {i} * TL_SL));")
    w = 1
    while w < R:
        for base in range(0, R, 2 * w):
            for j in range(w):
                lines.append(f"  TL_FLIP(r{base + j}, r{base + 2 * w - 1 - j});")
            d = w // 2
            while d >= 1:
                for k in range(base, base + 2 * w):
                    if (k - base) % (2 * d) < d:
                        lines.append(f"  TL_CX(r{k}, r{k + d});")
                d //= 2
            for k in range(base, base + 2 * w):
                lines.append(f"  r{k} = TL_SN(clean)(r{k});")
        w *= 2
    for i in range(R):
        lines.append(f"  TL_VSTORE(a + {i} * TL_SL, TL_SN(lanes)(n, {i}), r{i});")
    lines.append("}")
    return "\n".join(lines)


def main():
    body = "\n\n".join(network(R) for R in (1, 2, 4, 8, 16))
    text = f"""/* sort_simd_net.h - bitonic networks sorting the n <= R * TL_SL keys at a
 * in R vectors held in registers (R = 1, 2, 4, 8, 16); part of the
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
