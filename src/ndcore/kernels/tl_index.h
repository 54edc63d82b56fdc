/* tl_index.h - indexing: index expressions (NumPy's basic and advanced rules),
 * the gather/scatter family, masks and nonzero.
 *
 * Every indexing op is built from two steps:
 *   1. tl_index_offsets: index tensors -> one int64 tensor of byte offsets,
 *      bounds-checked (and negatives wrapped) before anything is written;
 *   2. tl_index_move: over one iteration shape S, either gather
 *         data[s] = *(base[s] + off[s])
 *      or scatter into base
 *         *(base[s] + off[s]) (op)= data[s]
 *      where base is a restrided view (stride 0 along the indexed dims).
 * Scatters run in the index's C order, so with repeated indices the last
 * write wins, as in NumPy (threads may share a scatter out by the elements
 * it writes, each element's writes staying on one thread in that order). */
#ifndef TL_INDEX_H
#define TL_INDEX_H

#include "ndcore/tensor/tl_dtype.h"

/* ---- index expressions ------------------------------------------------------ */

typedef enum {
  TL_INDEX_INT,      /* value */
  TL_INDEX_SLICE,    /* start, stop, step as Python gives them (PySlice_Unpack) */
  TL_INDEX_NONE,     /* a new size-1 dim */
  TL_INDEX_ELLIPSIS,
  TL_INDEX_BOOL,     /* a Python True/False: a 0-d mask */
  TL_INDEX_TENSOR,   /* an integer index tensor or a bool mask (borrowed) */
} tl_index_kind;

typedef struct {
  tl_index_kind kind;
  int64_t value; /* INT; BOOL (0 or 1) */
  int64_t start, stop, step;
  const tl_tensor *tensor;
} tl_index_item;

/* The most items one index may hold (every dim, a None per dim, one Ellipsis). */
#define TL_INDEX_MAX_ITEMS (2 * TL_MAX_DIMS + 1)

/* self[items]: a view when every item is basic (*is_view set), a new tensor
 * otherwise (NumPy's advanced indexing). */
tl_status tl_index_get(tl_tensor *out, const tl_tensor *self, int n, const tl_index_item *items,
                       bool *is_view);
/* self[items] = value (broadcast, cast to self's dtype), or += with accumulate. */
tl_status tl_index_put(tl_tensor *self, int n, const tl_index_item *items, const tl_tensor *value,
                       bool accumulate);

/* ---- building blocks ----------------------------------------------------------- */

typedef enum {
  TL_INDEX_REDUCE_NONE, /* plain copy, last write wins */
  TL_INDEX_REDUCE_ADD,
  TL_INDEX_REDUCE_MUL,
  TL_INDEX_REDUCE_AMAX,
  TL_INDEX_REDUCE_AMIN,
  TL_INDEX_REDUCE_MEAN, /* scatter_reduce only: a sum, then a division by counts */
} tl_index_reduce;

/* off (allocated: int64, contiguous, ndim/shape) = sum over j of
 * idx[j] * strides[j], with idx[j] broadcast to shape and checked against
 * sizes[j] (negatives wrap when `wrap`).  A bad index raises `err` naming
 * the index, dims[j] and sizes[j]. */
tl_status tl_index_offsets(tl_tensor *off, int ndim, const int64_t *shape, int k,
                           const tl_tensor *const *idx, const int64_t *sizes,
                           const int64_t *strides_bytes, const int *dims, bool wrap,
                           tl_status err);
/* The move over S = data's shape: gather into data, or scatter data into base.
 * base has data's dtype and shape (element strides, 0 along indexed dims);
 * off is int64 with data's shape (byte offsets, 0 strides elsewhere). */
tl_status tl_index_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                        const tl_tensor *off, tl_index_reduce reduce);
/* tl_index_move's scatter into a base whose elements are distinct memory
 * (the caller has checked): the CPU may then split it across threads, with
 * the serial order's result, bit for bit. */
tl_status tl_index_scatter_disjoint(const tl_tensor *data, const tl_tensor *base,
                                    const tl_tensor *off, tl_index_reduce reduce);

/* ---- ops (index_ops.c) -----------------------------------------------------------
 * PyTorch's semantics and messages.  Index tensors are any integer dtype;
 * negative indices wrap, as in NumPy.  In-place ops check every index before
 * writing.  `src` tensors already have self's dtype (the Python layer checks
 * or casts); a 0-d src is broadcast (a fill value).                          */

/* (nnz, ndim) int64 coordinates of the nonzero elements, in C order. */
tl_status tl_index_nonzero(tl_tensor *out, const tl_tensor *in);
/* out[i][j] = in[index[i][j]][j] (dim 0; likewise for any dim). */
tl_status tl_index_gather(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index);
/* self[index[i][j]][j] (reduce)= src[i][j]; include_self=false starts every
 * scattered-to element from the reduction's identity (scatter_reduce). */
tl_status tl_index_scatter(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                           const tl_tensor *src, tl_index_reduce reduce, bool include_self);
/* in selected along dim by a vector index (index_select). */
tl_status tl_index_select(tl_tensor *out, const tl_tensor *in, int64_t dim, const tl_tensor *index);
/* index_copy_ (NONE), index_add_ (ADD; src already scaled by alpha), index_fill_
 * (0-d src): self's slices along dim at `index` receive src's. */
tl_status tl_index_put_along(const char *op, tl_tensor *self, int64_t dim, const tl_tensor *index,
                             const tl_tensor *src, tl_index_reduce reduce);
/* in.flatten()[index] (take) and self.flatten()[index] (+)= src (put_). */
tl_status tl_index_take(tl_tensor *out, const tl_tensor *in, const tl_tensor *index);
tl_status tl_index_put_flat(tl_tensor *self, const tl_tensor *index, const tl_tensor *src,
                            bool accumulate);
/* gather after broadcasting in and index except along dim; has_dim false:
 * both flattened. */
tl_status tl_index_take_along_dim(tl_tensor *out, const tl_tensor *in, const tl_tensor *index,
                                  int64_t dim, bool has_dim);
/* Masks: bool, broadcast to self (fill/scatter) or together with in (select). */
tl_status tl_index_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value);
tl_status tl_index_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src);
tl_status tl_index_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask);
/* out = src * alpha in src's dtype (index_add's alpha). */
tl_status tl_index_scaled(tl_tensor *out, const tl_tensor *src, tl_scalar alpha);

/* ---- device primitives (index_device.c) ------------------------------------------
 * The ops above are written once, for every device: they touch elements only
 * through the passes below, and read device data only through the backend
 * (nonzero's count, a 0-d mask).  On memory host code can read, a pass runs
 * the CPU's loops; on any other device it is that device's primitive, which
 * tl_index_register_device installs together with the ops' kernel set.
 * A device's offsets pass never raises for a bad index: it records the first
 * one in the device's error record (gpu/tl_device_errors.h), raised at the
 * next synchronization, and uses index 0 in its place.                      */

typedef struct {
  int64_t size, stride; /* the indexed dim: its size, and its stride in bytes */
  bool wrap, first;     /* negatives wrap; the first index writes off, others add to it */
  int dim;              /* the dim named in messages */
  tl_status err;        /* the error a bad index raises */
} tl_index_offsets_args;

typedef struct {
  /* off (int64, any strides) (+)= wrap(idx) * stride over off's shape (idx
   * broadcast to it; int64). */
  tl_status (*offsets)(const tl_tensor *off, const tl_tensor *idx, const tl_index_offsets_args *a);
  /* tl_index_move. */
  tl_status (*move)(bool scatter, const tl_tensor *data, const tl_tensor *base, const tl_tensor *off,
                    tl_index_reduce reduce);
  /* nonzero of a contiguous bool tensor: out (nnz, ndim) int64, allocated here. */
  tl_status (*nonzero)(tl_tensor *out, const tl_tensor *mask);
  /* self = mask ? value : self; mask bool with self's shape, value 0-d of
   * self's dtype, on self's device or the CPU. */
  tl_status (*masked_fill)(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value);
  /* self /= count where count > 0 (floor division for integers); count int64. */
  tl_status (*mean_divide)(tl_tensor *self, const tl_tensor *count);
  /* out = src * alpha, out allocated with src's shape and dtype. */
  tl_status (*scale)(tl_tensor *out, const tl_tensor *src, tl_scalar alpha);
} tl_index_device_kernels;

/* Give device type `type` the index ops (the kernel set of the ops above,
 * each naming itself for the device's error record) over its primitives. */
void tl_index_register_device(tl_device_type type, const tl_index_device_kernels *prims);
/* The primitives of a device type, or NULL with the kernel table's
 * NotImplementedError naming the op (`what`), device and dtype. */
const tl_index_device_kernels *tl_index_device_prims(const char *what, tl_device device,
                                                     tl_dtype dtype);

/* The CPU's passes, for a device whose kernels are the CPU's run on its
 * memory (the emulated fake device).  offsets reports a bad index in *bad
 * and *bad_value instead of raising. */
tl_status tl_cpu_index_offsets_pass(const tl_tensor *off, const tl_tensor *idx,
                                    const tl_index_offsets_args *a, bool *bad, int64_t *bad_value);
tl_status tl_cpu_index_masked_fill_pass(tl_tensor *self, const tl_tensor *mask,
                                        const tl_tensor *value);
tl_status tl_cpu_index_mean_divide(tl_tensor *self, const tl_tensor *count);
tl_status tl_cpu_index_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha);
tl_status tl_cpu_index_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                            const tl_tensor *off, tl_index_reduce reduce);
tl_status tl_cpu_index_nonzero_bool(tl_tensor *out, const tl_tensor *mask);

#endif
