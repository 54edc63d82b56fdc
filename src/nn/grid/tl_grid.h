/* tl_grid.h - sampling grids: grid_sampler (grid_sample) and
 * affine_grid_generator (affine_grid), and their backward ops.
 *
 * Legend: n = 2 or 3 spatial dims.  input x (N, C, *in) with in = (H, W) or
 * (D, H, W); grid (N, *out, n) holding normalised coordinates in [-1, 1],
 * its last dim ordered (x, y[, z]) = (along W, along H[, along D]).
 *   grid_sampler(x, grid)[b, c, o] = sum over the taps t of position
 *       grid[b, o] of  w_t * x[b, c, p_t]  (taps outside the input read 0)
 * A coordinate g along a dim of size S is first unnormalised to pixels,
 *   align_corners: (g + 1) / 2 * (S - 1),  else ((g + 1) * S - 1) / 2,
 * then moved inside by the padding mode (border: clipped to [0, S - 1];
 * reflection: reflected about the edges (pixel centres with align_corners,
 * else the outer borders), then clipped; zeros: kept).  The taps:
 *   bilinear  2^n corners of the cell, weights the products of (1 - f, f);
 *   nearest   the nearest pixel (half to even), weight 1;
 *   bicubic   (n = 2 only) the 4 x 4 neighbours, Keys' cubic weights
 *             (a = -0.75) of the unpadded offset, each tap's position moved
 *             inside by the padding mode (PyTorch's get_value_bounded).
 * Backward: dx scatters w_t * g to p_t; dgrid = sum over c of g * x[p_t]
 * * dw_t/dcoord, times the derivative of the unnormalising and padding.
 *
 *   affine_grid_generator(theta (N, n, n + 1), size (N, C, *out))
 *       -> grid (N, *out, n), grid[b, o] = theta[b] @ (base(o), 1)
 * base(o) the normalised coordinates of output pixel o ((x, y[, z]), from
 * linspace(-1, 1) over each dim, scaled by (S - 1) / S unless
 * align_corners; 0 for a dim of size 1).  Its backward is the transpose:
 * dtheta[b] = sum over o of dgrid[b, o] (base(o), 1)^T. */
#ifndef TL_NN_GRID_H
#define TL_NN_GRID_H

#include "ndcore/dispatch/tl_dispatch.h"
#include "nn/grid/tl_grid_spec.h"

/* A device's kernels.  Operands come contiguous in the work dtype (float64
 * for float64, else float32); results are allocated by the entry points
 * (dx, dgrid: NULL when not wanted). */
typedef struct {
  tl_status (*sample)(const tl_grid_spec *s, const tl_tensor *x, const tl_tensor *grid,
                      tl_tensor *y);
  tl_status (*sample_backward)(const tl_grid_spec *s, const tl_tensor *g, const tl_tensor *x,
                               const tl_tensor *grid, tl_tensor *dx, tl_tensor *dgrid);
  /* transpose: dtheta (N, n, n + 1) from dgrid (N, *out, n) */
  tl_status (*affine)(int n, const int64_t *size, bool align_corners, bool transpose,
                      const tl_tensor *in, tl_tensor *out);
} tl_nn_grid_kernels;

/* The ops' entry points (mode, padding as PyTorch's integer codes). */
tl_status tl_nn_grid_sampler(const tl_tensor *x, const tl_tensor *grid, int64_t mode,
                             int64_t padding, bool align_corners, tl_tensor *y);
tl_status tl_nn_grid_sampler_backward(const tl_tensor *g, const tl_tensor *x,
                                      const tl_tensor *grid, int64_t mode, int64_t padding,
                                      bool align_corners, tl_tensor *dx, tl_tensor *dgrid);
/* size: (N, C, *out), 4 or 5 entries. */
tl_status tl_nn_affine_grid(const tl_tensor *theta, int nsize, const int64_t *size,
                            bool align_corners, tl_tensor *grid);
tl_status tl_nn_affine_grid_backward(const tl_tensor *grad, int nsize, const int64_t *size,
                                     bool align_corners, tl_tensor *dtheta);

/* The CPU's kernels (grid_cpu.c). */
extern const tl_nn_grid_kernels tl_cpu_grid_kernels;

#endif
