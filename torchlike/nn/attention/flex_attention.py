"""``flex_attention``: attention with a user's score modification and a
block-sparsity mask, computed densely.

PyTorch compiles ``score_mod``/``mask_mod`` into a fused kernel that skips
masked blocks.  Here both are evaluated once over the whole (B, H, L, S)
grid, with broadcast index tensors ``b`` (B,1,1,1), ``h`` (1,H,1,1),
``q_idx`` (1,1,L,1), ``kv_idx`` (1,1,1,S): functions written with tensor
ops (``torch.where``, arithmetic, indexing a bias table) give the same
values as under PyTorch's vmap.  Memory is O(B H L S).  Gradients flow
through q, k, v and any tensors the score_mod captures.

Legend: B batch, H heads, L query length, S key/value length, E head size."""
import operator
import typing
import warnings

from ... import _C
from ._math import repeat_kv_heads, scores, safe_softmax

__all__ = ["flex_attention", "create_block_mask", "create_mask", "BlockMask", "noop_mask",
           "and_masks", "or_masks", "AuxRequest", "AuxOutput"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


def _indices(B, H, L, S, device):
    """Broadcastable index grids b, h, q_idx, kv_idx (int64)."""
    def arange(n, shape):
        return _C.arange(n, dtype=_C.int64, device=device).reshape(shape)
    return (arange(B, (B, 1, 1, 1)), arange(H, (1, H, 1, 1)), arange(L, (1, 1, L, 1)),
            arange(S, (1, 1, 1, S)))


def noop_mask(b, h, q_idx, kv_idx):
    """Attend everywhere."""
    return _C.ones_like(q_idx + kv_idx, dtype=_C.bool) if isinstance(q_idx, _C.Tensor) else True


def _combine(mask_mods, start, op, name):
    """A mask_mod folding ``mask_mods``' masks with ``op`` from ``start``
    (ones or zeros), called ``name`` (as PyTorch's, in a BlockMask's repr)."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def mask(b, h, q_idx, kv_idx):
        result = start((), dtype=_C.bool, device=q_idx.device)
        for m in mask_mods:
            result = op(result, m(b, h, q_idx, kv_idx))
        return result
    mask.__name__ = mask.__qualname__ = name
    return mask


def and_masks(*mask_mods):
    """A mask_mod attending where all of ``mask_mods`` do."""
    return _combine(mask_mods, _C.ones, operator.and_, "and_mask")


def or_masks(*mask_mods):
    """A mask_mod attending where any of ``mask_mods`` does."""
    return _combine(mask_mods, _C.zeros, operator.or_, "or_mask")


def _dense_mask(mask_mod, B, H, L, S, device):
    """mask_mod over the grid: bool (B, H, L, S) (B, H of 1 broadcast)."""
    b, h, q_idx, kv_idx = _indices(B, H, L, S, device)
    m = mask_mod(b, h, q_idx, kv_idx)
    if not isinstance(m, _C.Tensor):
        m = _C.full((1, 1, 1, 1), bool(m), dtype=_C.bool, device=device)
    return m.to(_C.bool).expand(B, H, L, S)


class BlockMask:
    """Which (query block, key block) pairs attend, for ``flex_attention``.

    Holds the mask_mod and its dense (B, H, Q_LEN, KV_LEN) bool mask, from
    which PyTorch's block metadata is derived: a block (BLOCK_SIZE rows by
    columns, the last ones padded with masked-out positions) is *full* when
    every position in it attends, *partial* when some do.  Per query-block
    row, ``kv_num_blocks`` counts the partial key blocks and ``kv_indices``
    lists their indices first, ascending, then the other blocks' (int32,
    (B, H, Q blocks) and (B, H, Q blocks, KV blocks)); ``full_kv_*`` do the
    same for full blocks and ``q_*`` / ``full_q_*`` for the transposed
    grid.  ``to_dense()`` gives the block-level mask (1 where a block is
    partial or full), ``sparsity()`` the percentage of blocks skipped;
    str() draws the mask as PyTorch does."""

    def __init__(self, mask_mod, dense, BLOCK_SIZE):
        self.mask_mod = mask_mod
        self._dense = dense
        self.BLOCK_SIZE = BLOCK_SIZE

    @property
    def seq_lengths(self):
        return (self._dense.shape[-2], self._dense.shape[-1])

    @property
    def shape(self):
        return tuple(self._dense.shape)

    def numel(self):
        """The number of positions the mask covers (sparsity not counted)."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    def _block_counts(self):
        """Attending positions per block: (B, H, Q blocks, KV blocks) int64."""
        B, H, L, S = self._dense.shape
        bq, bk = self.BLOCK_SIZE
        nq, nk = -(-L // bq), -(-S // bk)
        padded = _C.zeros((B, H, nq * bq, nk * bk), dtype=_C.bool, device=self._dense.device)
        padded[:, :, :L, :S] = self._dense
        return padded.reshape(B, H, nq, bq, nk, bk).sum((3, 5))

    def _partial_full(self):
        counts = self._block_counts()
        whole = self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return (counts > 0) & (counts < whole), counts == whole

    @staticmethod
    def _ordered(blocks):
        """(count per row, the selected columns first then the rest), as int32."""
        dense = blocks.to(_C.int32)
        order = _C.argsort(dense, dim=-1, descending=True, stable=True)
        return dense.sum(-1).to(_C.int32), order.to(_C.int32)

    kv_num_blocks = property(lambda self: self._ordered(self._partial_full()[0])[0])
    kv_indices = property(lambda self: self._ordered(self._partial_full()[0])[1])
    full_kv_num_blocks = property(lambda self: self._ordered(self._partial_full()[1])[0])
    full_kv_indices = property(lambda self: self._ordered(self._partial_full()[1])[1])
    q_num_blocks = property(lambda self: self._ordered(self._partial_full()[0].mT)[0])
    q_indices = property(lambda self: self._ordered(self._partial_full()[0].mT)[1])
    full_q_num_blocks = property(lambda self: self._ordered(self._partial_full()[1].mT)[0])
    full_q_indices = property(lambda self: self._ordered(self._partial_full()[1].mT)[1])

    def to_dense(self):
        """Block-level mask (B, H, Q blocks, KV blocks), int32: 1 where a
        block has any position to attend."""
        return (self._block_counts() > 0).to(_C.int32)

    def sparsity(self):
        """Percentage of blocks that are skipped (have nothing to attend)."""
        dense = self.to_dense()
        return 100.0 * (1.0 - dense.sum().item() / max(dense.numel(), 1))

    def to(self, device):
        return BlockMask(self.mask_mod, self._dense.to(device), self.BLOCK_SIZE)

    def __getitem__(self, index):
        """A BlockMask of the selected batches, heads and query-block rows.
        Integers keep their dimension (as length-one slices); selected
        query-block rows are packed together, so a mask_mod that reads
        absolute query positions must be replaced by the caller."""
        index = index if isinstance(index, tuple) else (index,)
        if len(index) > 3:
            raise IndexError(f"BlockMask supports at most three indices (batch, head, query "
                             f"block), got {len(index)}")
        index = [slice(i, i + 1 if i != -1 else None) if isinstance(i, int) else i
                 for i in index]
        dense = self._dense[tuple(index[:2])]
        if len(index) == 3:
            L, bq = dense.shape[-2], self.BLOCK_SIZE[0]
            rows = range(-(-L // bq))[index[2]]
            dense = _C.cat([dense[:, :, r * bq:(r + 1) * bq] for r in rows], dim=2) if rows \
                else dense[:, :, :0]
        return BlockMask(self.mask_mod, dense, self.BLOCK_SIZE)

    def to_string(self, grid_size=(20, 20), limit=4):
        """The block mask drawn with two characters a cell: full blocks
        solid, partly attending cells shaded, empty ones blank; at most
        ``grid_size`` cells a side (blocks summarised), ``limit`` (batch,
        head) pairs."""
        dense = self.to_dense()
        B, H, rows, cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = rows, cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step, col_step = max(1, -(-rows // max_rows)), max(1, -(-cols // max_cols))
        drawings = []
        for n, (b, h) in enumerate((b, h) for b in range(B) for h in range(H)):
            if n == limit:
                drawings += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a specific "
                             "batch or head"]
                break
            lines = [f"{(b, h)}"]
            for r in range(0, rows, row_step):
                line = ""
                for c in range(0, cols, col_step):
                    share = dense[b, h, r:r + row_step, c:c + col_step].float().mean().item()
                    line += ("\u2588" if share == 1 else " " if share == 0 else "\u2591") * 2
                lines.append(line)
            drawings.append("\n".join(lines) + "\n")
        return "\n".join(drawings)

    def __str__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                f"{self.to_string().strip()}\n)")

    def __repr__(self):
        fields = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                  "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices"]
        lines = [f"    {f}={getattr(self, f).shape}," for f in fields]
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        lines += [f"    BLOCK_SIZE={self.BLOCK_SIZE},", f"    shape={self.shape},",
                  f"    sparsity={self.sparsity():.2f}%,", f"    mask_mod={name}"]
        return "BlockMask(\n" + "\n".join(lines) + "\n)"


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cuda", BLOCK_SIZE=128,
                      _compile=False):
    """The BlockMask of ``mask_mod(b, h, q_idx, kv_idx) -> bool`` over
    ``B x H x Q_LEN x KV_LEN`` (B or H None: one mask for all)."""
    B = 1 if B is None else B
    H = 1 if H is None else H
    bs = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    return BlockMask(mask_mod, _dense_mask(mask_mod, B, H, Q_LEN, KV_LEN, device), bs)


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device="cuda"):
    """The dense (B, H, Q_LEN, KV_LEN) bool mask of a mask_mod."""
    return _dense_mask(mod_fn, 1 if B is None else B, 1 if H is None else H, Q_LEN, KV_LEN,
                       device)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    """softmax(score_mod(Q K^T * scale) masked by block_mask) V.

    query (B, Hq, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev) ->
    (B, Hq, L, Ev); with ``return_lse`` also the log-sum-exp (B, Hq, L).
    A query row with nothing to attend gives zeros (lse -inf)."""
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"Expect query and key/value to have the same embedding dimension but "
                         f"got E={query.shape[-1]} and E={key.shape[-1]}.")
    if query.shape[0] != key.shape[0] and (block_mask is None or key.shape[0] != 1):
        raise ValueError(f"Expect query and key/value to have the same batch size, or non-none "
                         f"block_mask, but got block_mask={block_mask}, Bq={query.shape[0]}, "
                         f"and Bkv={key.shape[0]}.")
    if key.shape[1] != query.shape[1]:
        if not enable_gqa:
            raise ValueError(f"Expect query and key/value to have the same number of heads but "
                             f"got Hq={query.shape[1]} and Hkv={key.shape[1]}. Try setting "
                             f"enable_gqa=True for GQA.")
        if value.shape[1] != key.shape[1]:   # (PyTorch's flex_attention fails to broadcast them)
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in query")
        key, value = repeat_kv_heads(query, key, value)
    B, H, L = query.shape[:3]
    S = key.shape[2]
    s = scores(query, key, scale)                                 # B, H, L, S
    if score_mod is not None:
        b, h, q_idx, kv_idx = _indices(B, H, L, S, query.device)
        s = score_mod(s, b, h, q_idx, kv_idx)
        s = s.expand(B, H, L, S) if tuple(s.shape) != (B, H, L, S) else s
    if block_mask is not None:
        mask = block_mask._dense
        if tuple(mask.shape[-2:]) != (L, S):
            raise RuntimeError(f"block_mask was created for (Q_LEN, KV_LEN) = "
                               f"{tuple(mask.shape[-2:])}, but the inputs have ({L}, {S})")
        s = s.masked_fill(~mask, float("-inf"))
    weights, lse = safe_softmax(s)
    out = _C.matmul(weights, value).to(query.dtype)
    if return_lse:
        warnings.warn("return_lse is deprecated and will be removed in v2.10. Please use "
                      "return_aux=AuxRequest(lse=True) instead.", FutureWarning, stacklevel=2)
        return out, lse
    if return_aux is not None:
        return out, AuxOutput(lse=lse if return_aux.lse else None)
    return out


class AuxRequest(typing.NamedTuple):
    """What ``flex_attention(return_aux=...)`` returns besides the output."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(typing.NamedTuple):
    lse: typing.Any = None
    max_scores: typing.Any = None

