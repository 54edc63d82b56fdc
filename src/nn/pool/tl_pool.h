/* tl_pool.h - pooling and resampling over the trailing 1 to 3 spatial dims:
 * max/avg pooling, adaptive and fractional pooling, max_unpool, and
 * interpolation (nearest, nearest-exact, linear, cubic, antialiased).
 *
 * Legend: B = product of the leading (batch, channel) dims, n = number of
 * spatial dims (1..3), in[d] / out[d] the sizes of spatial dim d.
 *
 * Every op here is one of three kernels driven by per-dim tap tables
 * (tl_nn_taps): output position j of dim d reads the input positions
 * index[j*k .. j*k+k) of that dim (-1: a padding tap, read as nothing).
 *   window_max  out[b, j0, j1, j2] = max over the taps of every dim, and the
 *               flat input position of the first maximum (NaN wins), as
 *               PyTorch's max pooling; the taps say which pooling it is
 *               (sliding window, adaptive ranges, fractional intervals).
 *   weighted    out = the taps' weighted sum, one dim at a time: avg and
 *               adaptive avg pooling and every interpolation mode are
 *               separable (their weights are a product of per-dim weights),
 *               and `transpose` runs the same passes backwards as scatter-
 *               adds, which is their backward.
 *   scatter     out[b, idx[b, j]] (+)= src[b, j] over the flattened spatial
 *               dims: max pooling's backward (accumulate) and max_unpool.
 * The tap tables are host memory, built by taps.c from the op's arguments. */
#ifndef TL_NN_POOL_H
#define TL_NN_POOL_H

#include "ndcore/dispatch/tl_dispatch.h"

enum { TL_NN_POOL_MAX_DIMS = 3 };

/* One spatial dim's taps: out positions of k taps each. */
typedef struct {
  int64_t in, out, k;
  int64_t *index;       /* [out * k] input positions, -1 for none */
  double *weight;       /* [out * k] (weighted), NULL for window_max */
  int64_t plane_stride; /* window_max: plane b's taps start at index + b * plane_stride
                         * (fractional pooling draws intervals per plane); 0: shared */
  int precision;        /* > 0: uint8 resampling's fixed-point weights, integers
                         * scaled by 2^precision (PyTorch's int16 weights) */
} tl_nn_taps;

void tl_nn_taps_release(tl_nn_taps *taps, int n);

/* A device's kernels.  `in` and `out` have the same leading dims, the last n
 * dims sized taps[d].in and taps[d].out (transpose: the other way round);
 * out is allocated (contiguous, the work's dtype) by the entry points, or
 * channels-last (see channels_last). */
typedef struct {
  tl_status (*window_max)(const tl_tensor *in, int n, const tl_nn_taps *taps, tl_tensor *out,
                          tl_tensor *indices);
  tl_status (*weighted)(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                        tl_tensor *out);
  tl_status (*scatter)(const tl_tensor *src, const tl_tensor *indices, int n, bool accumulate,
                       tl_tensor *out);
  /* adaptive average pooling to size 1 (all n output sizes 1), which is
   * PyTorch's mean over the spatial dims, in the bits of torchlike's mean:
   * forward out[b] = the mean of plane b of in; transpose (the backward)
   * out[b, plane] = in[b] / the plane's size, in's dtype's division.  out
   * is allocated by the entry point (its planes in order, row-major or
   * channels-last alike).  *taken false: this input is not one the kernel
   * takes (then the entry point runs the generic ops); NULL: none is. */
  tl_status (*plane_mean)(const tl_tensor *in, int n, bool transpose, tl_tensor *out,
                          bool *taken);
  /* the kernels take an `out` (and indices) laid out channels-last, not
   * only contiguous: the entry points then allocate a result so when it
   * takes that layout, instead of laying a row-major one out after the
   * kernel. */
  bool channels_last;
} tl_nn_pool_kernels;

/* Sliding-window geometry of max/avg pooling (n dims). */
typedef struct {
  int n;
  int64_t kernel[TL_NN_POOL_MAX_DIMS], stride[TL_NN_POOL_MAX_DIMS];
  int64_t padding[TL_NN_POOL_MAX_DIMS], dilation[TL_NN_POOL_MAX_DIMS];
  bool ceil_mode, count_include_pad;
  int64_t divisor; /* divisor_override, 0: none */
} tl_nn_pool_window;

/* Interpolation modes of tl_nn_upsample. */
typedef enum {
  TL_NN_RESAMPLE_NEAREST,
  TL_NN_RESAMPLE_NEAREST_EXACT,
  TL_NN_RESAMPLE_LINEAR,
  TL_NN_RESAMPLE_CUBIC,
} tl_nn_resample_mode;

typedef struct {
  int n;
  tl_nn_resample_mode mode;
  bool align_corners, antialias;
  double scales[TL_NN_POOL_MAX_DIMS]; /* the user's scale factors, <= 0: none */
} tl_nn_resample;

/* ---- tap tables (taps.c); each returns TL_OK or an error naming the sizes ---- */
/* Output length of a sliding window along one dim (PyTorch's pooling_output_shape). */
int64_t tl_nn_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);
tl_status tl_nn_taps_window(tl_nn_taps *t, int64_t in, const tl_nn_pool_window *w, int d,
                            bool weighted);
tl_status tl_nn_taps_adaptive(tl_nn_taps *t, int64_t in, int64_t out, bool weighted);
tl_status tl_nn_taps_resample(tl_nn_taps *t, int64_t in, int64_t out, const tl_nn_resample *r,
                              int d, bool single);
/* uint8 bilinear/bicubic (antialiased or not): PyTorch's index ranges and
 * weights in double, rescaled to int16 at the precision its largest weight
 * allows; a dim of unchanged size gets identity taps (PyTorch skips it). */
tl_status tl_nn_taps_resample_fixed(tl_nn_taps *t, int64_t in, int64_t out,
                                    const tl_nn_resample *r, int d);
/* The weighted passes' order: a permutation of the n dims doing the least
 * work (the passes commute), from the sizes cur before them. */
void tl_nn_taps_pass_order(int n, const tl_nn_taps *taps, bool transpose, const int64_t *cur,
                           int *order);
/* The pass along dim d over B planes of sizes cur: its (outer, d, inner)
 * split, and cur[d] updated to the size after it. */
void tl_nn_taps_pass_step(int n, const tl_nn_taps *taps, bool transpose, int d, int64_t B,
                          int64_t *cur, int64_t *outer, int64_t *inner);
/* samples: [B * n] per-plane samples in [0, 1) (dim d of plane b at
 * samples[b * n + n - 1 - d], PyTorch's (w, h, t) order). */
tl_status tl_nn_taps_fractional(tl_nn_taps *t, int64_t in, int64_t out, int64_t k,
                                const double *samples, int64_t planes, int n, int d, bool single);

/* ---- entry points (pool.c) ---- */
/* The spatial shape of `in`'s last n dims checked against an op's needs:
 * at least n + 1 dims (batch) or n (unbatched, a single plane), non-empty
 * spatial dims, and a nonempty batch unless allow_empty. */
tl_status tl_nn_max_pool(tl_op op, const tl_tensor *in, const tl_nn_pool_window *w,
                         tl_tensor *out, tl_tensor *indices);
tl_status tl_nn_adaptive_max_pool(tl_op op, const tl_tensor *in, int n, const int64_t *out_size,
                                  tl_tensor *out, tl_tensor *indices);
tl_status tl_nn_fractional_max_pool(tl_op op, const tl_tensor *in, int n, const int64_t *kernel,
                                    const int64_t *out_size, const tl_tensor *samples,
                                    tl_tensor *out, tl_tensor *indices);
/* grad_output scattered (added) at indices into zeros of the spatial size
 * size (max pooling's backward), or values placed there (max_unpool). */
tl_status tl_nn_pool_scatter(tl_op op, const tl_tensor *src, const tl_tensor *indices, int n,
                             const int64_t *size, tl_tensor *out);
/* avg pooling (input_size NULL) or its backward (grad in, input_size the
 * forward input's spatial size). */
tl_status tl_nn_avg_pool(tl_op op, const tl_tensor *in, const tl_nn_pool_window *w,
                         const int64_t *input_size, tl_tensor *out);
tl_status tl_nn_adaptive_avg_pool(tl_op op, const tl_tensor *in, int n, const int64_t *size,
                                  tl_tensor *out);
/* size: the output size (forward) or the input size (backward). */
tl_status tl_nn_upsample(tl_op op, const tl_tensor *in, const tl_nn_resample *r,
                         const int64_t *size, tl_tensor *out);

/* Register `set` as device's kernels of every op of the family. */
void tl_nn_pool_register_set(tl_device_type device, const tl_nn_pool_kernels *set);
/* The scatter's error for an index outside the output's spatial volume. */
tl_status tl_nn_pool_bad_index(const tl_tensor *out, int n, int64_t bad);

/* The CPU's kernels (pool_cpu.c). */
tl_status tl_cpu_pool_window_max(const tl_tensor *in, int n, const tl_nn_taps *taps,
                                 tl_tensor *out, tl_tensor *indices);
tl_status tl_cpu_pool_weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                               tl_tensor *out);
tl_status tl_cpu_pool_scatter(const tl_tensor *src, const tl_tensor *indices, int n,
                              bool accumulate, tl_tensor *out);
tl_status tl_cpu_pool_plane_mean(const tl_tensor *in, int n, bool transpose, tl_tensor *out,
                                 bool *taken);

#endif
