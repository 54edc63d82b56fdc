/* grid_job.h - what grid_cpu.c hands the typed loops of grid_loops.h
 * (private to src/nn/grid).  Pointers are to contiguous data of the work
 * type `real` (float or double); see tl_grid.h for the legend. */
#ifndef TL_GRID_JOB_H
#define TL_GRID_JOB_H

#include "nn/grid/tl_grid.h"

typedef struct {
  tl_grid_spec s;
  const void *x, *grid, *g;
  void *y;     /* sample: the output */
  void *dx;    /* backward: (N, C, *in), zeroed by the caller; NULL: not wanted */
  void *dgrid; /* backward: the grid's gradient, or the partial sums below */
  int64_t cblocks; /* backward: channel blocks per sample (work items b * cblocks + k) */
  bool partial;    /* backward: dgrid holds cblocks partial sums per sample, summed after */
} tl_grid_job;

/* sample: output points [begin, end) of the N * prod(out) points. */
void tl_grid_sample_f32(const tl_grid_job *job, int64_t begin, int64_t end);
void tl_grid_sample_f64(const tl_grid_job *job, int64_t begin, int64_t end);
/* backward: work items [begin, end) ((sample, channel block) pairs). */
void tl_grid_backward_f32(const tl_grid_job *job, int64_t begin, int64_t end);
void tl_grid_backward_f64(const tl_grid_job *job, int64_t begin, int64_t end);

typedef struct {
  int n;
  int64_t N, out[3]; /* out: (D, H, W), D = 1 for n = 2 */
  bool align_corners;
  const void *in; /* theta (N, n, n + 1), or dgrid (N, *out, n) for transpose */
  void *out_data;
} tl_affine_job;

/* affine_grid: samples [begin, end) (forward: grid; transpose: dtheta). */
void tl_affine_grid_f32(const tl_affine_job *job, bool transpose, int64_t begin, int64_t end);
void tl_affine_grid_f64(const tl_affine_job *job, bool transpose, int64_t begin, int64_t end);

#endif
