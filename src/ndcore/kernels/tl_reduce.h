/* tl_reduce.h - the reduction engine's private interface (reduce.c, the
 * kernel files, reduce_index.c, scan.c).
 *
 * A reduction pass folds an input into an accumulator tensor `acc` laid out
 * like the output with keepdim (contiguous), with stride 0 along the reduced
 * dims.  Its inner loops have the elementwise signature (tl_iter.h):
 *
 *   args[0] acc, args[1] input (in the pass's loop dtype), args[2] aux,
 *   args[3] the second input of TL_RK_SUMPROD (input's layout and dtype)
 *   steps[0] == 0   the whole row folds into the one accumulator *args[0]
 *   steps[0] != 0   accumulators advance with the input: acc[i] op= x[i]
 *
 * `aux` (var's mean, logsumexp's max) has acc's layout, so its step is 0
 * exactly when acc's is.  A pass's kernel is chosen by (kind, loop dtype);
 * the accumulator dtype follows from both (tl_reduce_acc_dtype).          */
#ifndef TL_REDUCE_H
#define TL_REDUCE_H

#include "ndcore/dispatch/tl_op.h"

/* The engine's summation order, which decides a float sum's bits; the
 * plane means of adaptive average pooling (src/nn/pool/pool_cpu.c) follow
 * it to give mean's bits, so it is stated once, here.
 *   LANES, BLOCK   a row sums into 16 lanes (element k into lane k % 16),
 *                  added in halves; rows past 2048 are split at an even
 *                  block and the halves' sums added (kernels_reduce.c)
 *   SHORT_INNER    a reduced inner dim shorter than this goes outermost when
 *                  the longest kept dim is at least 4 times it (reduce.c)
 *   GRAIN, MIN_OUTPUTS  below GRAIN elements one thread; with fewer outputs
 *                  than MIN_OUTPUTS the reduced dim is split across threads */
#define TL_REDUCE_LANES 16
#define TL_REDUCE_BLOCK 2048
#define TL_REDUCE_SHORT_INNER 16
#define TL_REDUCE_GRAIN 32768
#define TL_REDUCE_MIN_OUTPUTS 16

typedef enum {
  TL_RK_SUM,          /* acc += x */
  TL_RK_NANSUM,       /* acc += x, NaN skipped */
  TL_RK_PROD,         /* acc *= x */
  TL_RK_MAX,          /* NaN wins */
  TL_RK_MIN,
  TL_RK_ALL,          /* x != 0 for every x (any real dtype) */
  TL_RK_ANY,
  TL_RK_COUNT,        /* int64 count of x != 0 */
  TL_RK_COUNT_NOTNAN, /* int64 count of non-NaN (nanmean) */
  TL_RK_COUNT_ZERO,   /* int64 count of x == 0 (all() of non-bool dtypes) */
  TL_RK_SQDEV,        /* acc += |x - aux|^2 (var) */
  TL_RK_EXPSUM,       /* acc += exp(x - aux) (logsumexp) */
  TL_RK_ABSSUM,       /* acc += |x|      (1-norm) */
  TL_RK_SQSUM,        /* acc += |x|^2    (2-norm) */
  TL_RK_ABSMAX,       /* max |x|         (inf-norm) */
  TL_RK_ABSMIN,       /* min |x|         (-inf-norm) */
  TL_RK_NONZERO,      /* acc += x != 0   (0-norm, as a float) */
  TL_RK_POWSUM,       /* acc += |x|^p    (p-norm; data -> double p) */
  TL_RK_SUMPROD,      /* acc += x * y    (einsum; y is args[3], tl_reduce_sumprod) */
  TL_RK_COUNT_
} tl_rkind;

/* Inner loops, by (kind, loop dtype of the input); NULL where there is none. */
extern tl_loop_fn tl_reduce_loops[TL_RK_COUNT_][TL_DTYPE_COUNT];
void tl_cpu_reduce_kernels_init(void);

/* The dtype a pass accumulates in, and the dtype of its aux operand. */
tl_dtype tl_reduce_acc_dtype(tl_rkind kind, tl_dtype loop);
tl_dtype tl_reduce_aux_dtype(tl_rkind kind, tl_dtype loop);
/* Store the kind's identity (the accumulator's start) as one `acc` element. */
void tl_reduce_identity(tl_rkind kind, tl_dtype acc, char *dst);
/* The kind whose loop combines two accumulators of this kind elementwise. */
tl_rkind tl_reduce_merge_kind(tl_rkind kind);

/* The signed zero PyTorch's CPU max/min (hi) over all of the n contiguous
 * elements at x, of float dtype, returns when its value is zero: its
 * max()/min() kernel's choice, or with amax_kernel its amax()/amin()'s,
 * split over `threads` threads (reduce_zero_sign.c). */
double tl_reduce_zero_sign(const void *x, tl_dtype dtype, int64_t n, bool hi, bool amax_kernel,
                           int threads);
/* The same for amax()/amin() down one column of a contiguous (R, cols)
 * block: x its first element, rows R, `stride` elements apart, `col` its
 * index among the block's `cols` columns. */
double tl_reduce_zero_sign_column(const void *x, tl_dtype dtype, int64_t rows, int64_t stride,
                                  int64_t col, int64_t cols);
/* amax()/amin() (hi: amax) of a float input of any layout (strides in
 * elements, none negative; x its first element) over the dims in mask, as
 * PyTorch's reduction iterator orders and runs it: every output, in the
 * contiguous order of the kept dims, into out (doubles), zeros signed as
 * PyTorch's; an output that holds a NaN is not PyTorch's (the caller keeps
 * only zeros). */
void tl_reduce_zero_sign_strided(const void *x, tl_dtype dtype, int ndim, const int64_t *shape,
                                 const int64_t *strides, uint64_t mask, bool keepdim, bool hi,
                                 int threads, double *out);

/* One pass: fold `in` over the dims in `mask` into acc (acc dtype, contiguous,
 * keepdim shape), which the pass first fills with the kind's identity.  The
 * input is cast to `loop` through buffers when its dtype differs.  aux may
 * be NULL.  Threads: see reduce.c. */
tl_status tl_reduce_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                         tl_tensor *acc, const tl_tensor *aux, void *data);

/* One TL_RK_SUMPROD pass on the host: acc (as tl_reduce_pass's, shaped
 * like `a` with the dims in `mask` at 1) += the products a * b summed over
 * those dims, in one pass with no product materialised.  a and b have one
 * shape (broadcast views with stride 0 welcome) and one dtype, read as
 * `loop` through cast buffers when it differs.  Same plan and threads as
 * tl_reduce_pass: the result does not depend on the thread count. */
tl_status tl_reduce_sumprod_pass(const tl_tensor *a, const tl_tensor *b, uint64_t mask,
                                 tl_dtype loop, tl_tensor *acc);

/* einsum's fused contraction (reduce_ops.c): out = (a * b).sum(dims in
 * mask), in a's dtype, for a and b of one dtype and rank whose dims are
 * equal or 1 (broadcast).  Accumulates as sum() does (int64, double,
 * complex128) and casts once; integers wrap.  Host memory only. */
tl_status tl_reduce_sumprod(const tl_tensor *a, const tl_tensor *b, uint64_t mask, tl_tensor *out);

/* A device's pass, for inputs host code cannot read: tl_reduce_pass hands
 * them to tl_reduce_device_pass[device type], which the device's kernel
 * registration sets (kernels_gpu.c for CUDA); NULL where a device has none.
 * The op layer (reduce_ops.c) is device-neutral for the ops such a device
 * registers: its finishing steps run as elementwise ops off the host. */
typedef tl_status (*tl_reduce_pass_fn)(tl_rkind kind, const tl_tensor *in, uint64_t mask,
                                       tl_dtype loop, tl_tensor *acc, const tl_tensor *aux,
                                       void *data);
extern tl_reduce_pass_fn tl_reduce_device_pass[TL_DEVICE_COUNT];

/* Values and/or indices of the max or min along one dim (reduce_index.c).
 * values or indices may be NULL; both are allocated here (keepdim shape). */
tl_status tl_reduce_index(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                          tl_tensor *indices);
/* Its pass: the lines of `in` (a dtype of the max/min passes: bool,
 * integers, float32/64) along dim into indices (int64) and values (in's
 * dtype, or NULL), both allocated, keepdim-shaped and contiguous; a device's
 * pass where host code cannot read them, as tl_reduce_pass. */
typedef tl_status (*tl_reduce_index_fn)(bool is_max, const tl_tensor *in, int dim,
                                        tl_tensor *values, tl_tensor *indices);
extern tl_reduce_index_fn tl_reduce_index_device[TL_DEVICE_COUNT];
tl_status tl_reduce_index_pass(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                               tl_tensor *indices);

/* cumsum/cumprod's pass (scan.c): each line of len elements, inner apart, of
 * the contiguous work tensor (int64, float64 or complex128) scanned in
 * place; a device's pass where host code cannot read it. */
typedef tl_status (*tl_scan_fn)(bool prod, tl_tensor *work, int64_t len, int64_t inner);
extern tl_scan_fn tl_scan_device[TL_DEVICE_COUNT];
tl_status tl_scan_pass(bool prod, tl_tensor *work, int64_t len, int64_t inner);

/* Register the reductions and scans of ops.def on a device type, with the
 * device-neutral op layer (register.c); the device sets the hooks above. */
void tl_reduce_serve(tl_device_type type);

#endif
