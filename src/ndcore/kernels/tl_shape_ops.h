/* tl_shape_ops.h - shape manipulation that computes a new tensor: joining
 * (cat, stack), reordering (flip, roll, rot90), repeating, triangles and
 * diagonals, padding; plus the plans that split a dim into pieces and the
 * view-returning groups (meshgrid, broadcast_tensors).
 *
 * Every function fills `out` (a fresh contiguous tensor unless it says
 * "views") or returns a status with a message naming the shapes and dims.  */
#ifndef TL_SHAPE_OPS_H
#define TL_SHAPE_OPS_H

#include "ndcore/tensor/tl_dtype.h"

/* ---- joining ---- */
/* Concatenate along dim; dtypes promote; 1-d tensors of shape (0,) are skipped. */
tl_status tl_shape_cat(tl_tensor *out, int n, const tl_tensor *const *ins, int64_t dim);
/* Join along a new dim (all shapes equal). */
tl_status tl_shape_stack(tl_tensor *out, int n, const tl_tensor *const *ins, int64_t dim);
typedef enum {
  TL_STACK_H,      /* hstack: atleast_1d, cat dim 1 (dim 0 for 1-d) */
  TL_STACK_V,      /* vstack: atleast_2d, cat dim 0 */
  TL_STACK_D,      /* dstack: atleast_3d, cat dim 2 */
  TL_STACK_COLUMN, /* column_stack: 0-d/1-d as columns, cat dim 1 */
} tl_stack_kind;
tl_status tl_shape_stack_kind(tl_tensor *out, int n, const tl_tensor *const *ins,
                              tl_stack_kind kind);

/* ---- splitting: pieces (start, length) along a dim of `size` ----
 * *spans is malloc'ed by the function and freed by the caller.            */
typedef struct {
  int64_t start, length;
} tl_span;
tl_status tl_split_by_size(int64_t size, int64_t split_size, tl_span **spans, int64_t *n);
tl_status tl_split_by_sizes(int64_t size, int64_t n, const int64_t *sizes, tl_span **spans);
tl_status tl_split_chunks(int64_t size, int64_t chunks, tl_span **spans, int64_t *n);
tl_status tl_split_sections(int64_t size, int64_t sections, tl_span **spans, int64_t *n);
/* Python-slice semantics between consecutive indices (n indices, n + 1 pieces). */
tl_status tl_split_indices(int64_t size, int64_t n, const int64_t *indices, tl_span **spans);

/* ---- reordering ---- */
/* Reverse the dims whose bit is set (a copy, as torch.flip). */
tl_status tl_shape_flip(tl_tensor *out, const tl_tensor *in, uint64_t dims);
/* Roll by shifts[i] along dims[i]; dims NULL (n == 1): roll the flattened tensor. */
tl_status tl_shape_roll(tl_tensor *out, const tl_tensor *in, int n, const int64_t *shifts,
                        const int64_t *dims);
tl_status tl_shape_rot90(tl_tensor *out, const tl_tensor *in, int64_t k, int ndims,
                         const int64_t *dims);

/* ---- repeating ---- */
/* Tensor.repeat: n >= in->ndim repeats, the input padded with leading 1s. */
tl_status tl_shape_repeat(tl_tensor *out, const tl_tensor *in, int n, const int64_t *reps);
/* torch.tile: like repeat, but fewer reps than dims are padded with leading 1s. */
tl_status tl_shape_tile(tl_tensor *out, const tl_tensor *in, int n, const int64_t *reps);
/* Each element (along dim; of the flattened input when dim is NULL) repeated
 * `repeats` times, or repeats[i] times when `repeats_t` (an integer tensor) is given. */
tl_status tl_shape_repeat_interleave(tl_tensor *out, const tl_tensor *in,
                                     const tl_tensor *repeats_t, int64_t repeats,
                                     const int64_t *dim);

/* ---- triangles and diagonals ---- */
tl_status tl_shape_tril(tl_tensor *out, const tl_tensor *in, int64_t diagonal, bool upper);
/* torch.diag: 1-d -> a 2-d matrix with it on diagonal k; 2-d -> its diagonal k (a copy). */
tl_status tl_shape_diag(tl_tensor *out, const tl_tensor *in, int64_t k);
tl_status tl_shape_diag_embed(tl_tensor *out, const tl_tensor *in, int64_t offset, int64_t dim1,
                              int64_t dim2);

/* Matrices (0-d/1-d inputs as 1xN) along the diagonal of a zero matrix; dtypes promote. */
tl_status tl_shape_block_diag(tl_tensor *out, int n, const tl_tensor *const *ins);
/* The (2, N) int64 row/column indices of the lower (upper) triangle of a
 * row x col matrix from diagonal `offset`, row-major (torch.tril_indices). */
tl_status tl_shape_tri_indices(tl_tensor *out, int64_t row, int64_t col, int64_t offset,
                               bool upper);
/* Rows of every combination of the inputs' elements (1-d each), as torch.cartesian_prod. */
tl_status tl_shape_cartesian_prod(tl_tensor *out, int n, const tl_tensor *const *ins);

/* ---- the inverse of a view: a copy of `in` with src written into one view of it ---- */
typedef enum {
  TL_SCATTER_SELECT,   /* args: dim, index */
  TL_SCATTER_SLICE,    /* args: dim, start, end, step (start/end already clamped) */
  TL_SCATTER_DIAGONAL, /* args: offset, dim1, dim2 */
} tl_scatter_kind;
tl_status tl_shape_view_scatter(tl_tensor *out, const tl_tensor *in, const tl_tensor *src,
                                tl_scatter_kind kind, const int64_t *args);
/* A contiguous copy (narrow_copy and friends). */
tl_status tl_shape_clone(tl_tensor *out, const tl_tensor *in);

/* ---- padding (torch.nn.functional.pad) ----
 * pad holds (left, right) pairs starting from the last dim; negative amounts
 * crop.  `value` fills in constant mode.                                 */
typedef enum { TL_PAD_CONSTANT, TL_PAD_REFLECT, TL_PAD_REPLICATE, TL_PAD_CIRCULAR } tl_pad_mode;
tl_status tl_shape_pad(tl_tensor *out, const tl_tensor *in, int npad, const int64_t *pad,
                       tl_pad_mode mode, tl_scalar value);

/* ---- groups of views ---- */
/* outs[i]: ins[i] (0-d or 1-d) expanded over the grid; xy swaps the first two dims. */
tl_status tl_shape_meshgrid(tl_tensor *outs, int n, const tl_tensor *const *ins, bool xy);
/* outs[i]: ins[i] expanded to the common broadcast shape. */
tl_status tl_shape_broadcast_tensors(tl_tensor *outs, int n, const tl_tensor *const *ins);

#endif
