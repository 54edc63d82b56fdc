#!/usr/bin/env python3
"""Write src/ndcore/kernels/sort_simd_net.h: the bitonic networks over 1 to
16 vectors that sort_simd_t.h uses (vectors of 16, 8 or 4 lanes: AVX-512's
32- and 64-bit keys, AVX2's 32-bit keys are 8 lanes too, its 64-bit ones 4), spelled out comparator by
comparator (GCC keeps the vectors in registers only when every index is a
constant, and will not unroll loops this deep by itself).

    python3 scripts/gen_sort_networks.py     (rewrites the header)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "ndcore", "kernels", "sort_simd_net.h")


def oddeven_merge_sort(P):
    """Batcher's odd-even merge sort on P (a power of two) inputs, as
    (i, j) comparators, i < j: the smaller to i."""
    comps = []
    p = 1
    while p < P:
        k = p
        while k >= 1:
            for j in range(k % p, P - k, 2 * k):
                for i in range(min(k, P - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        comps.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return comps


def check_sorts(comps, P):
    """The 0-1 principle: a network sorts every input if it sorts every 0-1 one."""
    for m in range(1 << P):
        v = [m >> i & 1 for i in range(P)]
        for i, j in comps:
            if v[i] > v[j]:
                v[i], v[j] = v[j], v[i]
        assert v == sorted(v), (P, m)


class Net:
    """One network's code and cost (vector instructions), with vectors known
    to hold only the largest key (None) resolved here: a comparator against
    one either does nothing or moves the other vector (a rename)."""

    def __init__(self, L):
        self.L, self.lines, self.cost = L, [], 0
        self.layers = {16: 4, 8: 3, 4: 2}[L]  # clean's comparator layers

    def emit(self, line, cost):
        self.lines.append("  " + line)
        self.cost += cost

    def cx(self, reg, p, q):
        if reg[q] is None:
            return
        if reg[p] is None:
            reg[p], reg[q] = reg[q], None
            return
        self.emit(f"TL_CX({reg[p]}, {reg[q]});", 2)

    def flip(self, reg, p, q):  # element k of p against element 2wL-1-k (q reversed)
        if reg[q] is None:
            return
        if reg[p] is None:
            self.emit(f"{reg[q]} = TL_SN(reverse)({reg[q]});", 1)
            reg[p], reg[q] = reg[q], None
            return
        self.emit(f"TL_FLIP({reg[p]}, {reg[q]});", 5)

    def merges(self, reg, w, P):
        """Runs of w vectors sorted: merge pairs of runs up to all P."""
        while w < P:
            for base in range(0, P, 2 * w):
                for j in range(w):
                    self.flip(reg, base + j, base + 2 * w - 1 - j)
                d = w // 2
                while d >= 1:
                    for k in range(base, base + 2 * w):
                        if (k - base) % (2 * d) < d:
                            self.cx(reg, k, k + d)
                    d //= 2
                for k in range(base, base + 2 * w):
                    if reg[k] is not None:
                        self.emit(f"{reg[k]} = TL_SN(clean)({reg[k]});", 3 * self.layers)
            w *= 2


def pow2(R):
    P = 1
    while P < R:
        P *= 2
    return P


def rows_first(R, L):
    """Each vector sorted alone (sort_vec), then bitonic merges."""
    P, net = pow2(R), Net(L)
    reg = [f"r{i}" if i < R else None for i in range(P)]
    for i in range(R):
        net.emit(f"TL_VT r{i} = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, {i}), "
                 f"src + {i} * TL_SL));", 3 * {16: 10, 8: 6, 4: 3}[L])
    net.merges(reg, 1, P)
    assert all(r is not None for r in reg[:R]) and all(r is None for r in reg[R:])
    return net, reg


def columns_first(R, L):
    """The columns sorted first (lane by lane across the vectors: a merge
    sort network of min/max only, no shuffles), then transposed so that
    each column is a sorted run of P / L vectors, then bitonic merges.
    For P = 16 vectors (and P = 8 of 8 lanes)."""
    P, net = pow2(R), Net(L)
    reg = [f"r{i}" if i < R else None for i in range(P)]
    for i in range(R):
        net.emit(f"TL_VT r{i} = TL_VSORTLOAD(ones, TL_SN(lanes)(n, {i}), src + {i} * TL_SL);", 0)
    comps = oddeven_merge_sort(P)
    for i, j in comps:
        net.cx(reg, i, j)
    net.emit(f"TL_VT c[{P}] = {{{', '.join(r or 'ones' for r in reg)}}};", 0)
    if L == 16:
        net.emit("TL_SN(transpose)(c);", 64)
        order = list(range(16))
    else:
        net.emit("TL_SN(transpose)(c);", 24)
        order = list(range(8))
        if P == 16:  # column j: vector j of each half
            net.emit("TL_SN(transpose)(c + 8);", 24)
            order = [h * 8 + j for j in range(8) for h in range(2)]
    for k, src in enumerate(order):
        net.emit(f"TL_VT s{k} = c[{src}];", 0)
    reg = [f"s{k}" for k in range(P)]
    net.merges(reg, P // L, P)
    return net, reg


def network(R, L):
    """The cheaper of the two forms for R vectors of L lanes (4 lanes: rows
    first only, there is no transpose of 4 lanes)."""
    net, reg = rows_first(R, L)
    P = pow2(R)
    if L != 4 and (P == 16 or (L == 8 and P == 8)):
        other, oreg = columns_first(R, L)
        if other.cost < net.cost:
            net, reg = other, oreg
    lines = [f"/* {R} vectors: about {net.cost} vector instructions */",
             f"TL_SIMD_FN static void TL_SN(network{R})(TL_ST *a, const TL_ST *src, int64_t n)",
             "{", "  const TL_VT ones = TL_VMAXKEY;",
             "  TL_VT x, y;", "  (void)x;", "  (void)y;", "  (void)ones;"]
    lines += net.lines
    for i in range(R):
        lines.append(f"  TL_VSTORE(a + {i} * TL_SL, TL_SN(lanes)(n, {i}), {reg[i]});")
    lines.append("}")
    return "\n".join(lines)


def networks():
    out = []
    for R in range(1, 17):
        a, b, c = network(R, 16), network(R, 8), network(R, 4)
        same = [x.replace("about", "") for x in (a, b, c)]
        if same[0] == same[1] == same[2]:
            out.append(a)
        else:
            out.append(f"#if TL_SL == 16\n{a}\n#elif TL_SL == 8\n{b}\n#else\n{c}\n#endif")
    return out


def dispatch():
    lines = ["/* The network for the n (2..16 * TL_SL) keys of src, into a. */",
             "TL_SIMD_FN static void TL_SN(network_any)(TL_ST *a, const TL_ST *src, int64_t n)",
             "{", "  switch ((n + TL_SL - 1) / TL_SL) {"]
    for R in range(1, 16):
        lines.append(f"  case {R}: TL_SN(network{R})(a, src, n); break;")
    lines += ["  default: TL_SN(network16)(a, src, n); break;", "  }", "}"]
    return "\n".join(lines)


def perm_tables():
    """AVX2's partition has no compress: for each compare mask m (bit k: lane
    k goes left), the lane order that puts those lanes first, then the
    others, each in order; 8 byte indices a row, which the code widens to a
    lane index vector.  32-bit lanes: 8 of them; 64-bit lanes: 4, given as
    the pairs of 32-bit lanes that make each (a permute of 8 x 32 bits)."""
    def order(m, L):
        return [k for k in range(L) if m >> k & 1] + [k for k in range(L) if not m >> k & 1]

    def row(idx):
        return "0x" + "".join(f"{i:02x}" for i in reversed(idx)) + "ull"

    rows8 = [row(order(m, 8)) for m in range(256)]
    rows4 = [row([2 * k + h for k in order(m, 4) for h in (0, 1)]) for m in range(16)]

    def table(name, rows):
        body = ",\n".join("  " + ", ".join(rows[i:i + 4]) for i in range(0, len(rows), 4))
        return f"static const uint64_t {name}[{len(rows)}] = {{\n{body}}};"
    return "\n".join(["/* The partition's lane orders (AVX2), once per file. */",
                      "#ifndef TL_SORT_PERM_TABLES", "#define TL_SORT_PERM_TABLES",
                      table("tl_sort_perm32", rows8), table("tl_sort_perm64", rows4), "#endif"])


def main():
    for P in (8, 16):
        check_sorts(oddeven_merge_sort(P), P)
    body = "\n\n".join(networks() + [dispatch(), perm_tables()])
    text = f"""/* sort_simd_net.h - bitonic networks sorting the n <= R * TL_SL keys at a
 * (read from src, which may be a) in R vectors held in registers (R = 1 to
 * 16: the network of the next power of two, less the comparators that only
 * involve missing vectors); part of the
 * sort_simd_t.h template.  Written by scripts/gen_sort_networks.py: edit
 * that, not this.
 *
 * Each vector is sorted alone (sort_vec), or, where it costs fewer
 * instructions (16 vectors, or 8 of 64-bit keys, mostly), the columns are
 * sorted across the vectors by a merge-sort network of min/max pairs and
 * transposed into sorted runs of 1 or 2 vectors; then runs of w vectors are
 * merged pairwise, w = 1, 2, 4 ...: the flip compares element p of the pair with
 * element 2w*L-1-p (TL_FLIP: one vector against the reverse of its
 * partner), after which each half holds the right elements in bitonic
 * order, and half-cleaners across vectors (TL_CX) then inside each vector
 * (clean) sort it.  Lanes past n load as the largest key (TL_VMAXKEY) and
 * are not stored. */

{body}
"""
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
