/* norm_job.h - what norm_cpu.c hands the typed loops of norm_loops.h
 * (private to src/nn/norm).  Pointers are to contiguous data of the work
 * type `real` (float or double); see tl_norm.h for the legend. */
#ifndef TL_NORM_JOB_H
#define TL_NORM_JOB_H

#include "nn/norm/tl_norm.h"

typedef struct {
  tl_norm_spec s;
  const void *x, *g, *w, *b;
  void *y;           /* forward: output; backward: dx */
  void *mean, *rstd; /* (N*G) or (C); read in backward and in evaluation */
  double *var;       /* forward, per channel training: biased batch variance (C) */
  double *part;      /* backward, group stats but cols: (N, C, 2) sums of dy, dy*x */
  double *dw, *db;   /* backward, per-channel stats: the channels' sums (C) */
  bool cols;         /* backward, layer_norm / rms_norm (G == 1, S == 1) */
  int64_t g_row;     /* backward, cols: g's elements per row (C, or 0: one row for all) */
  int64_t g_n, g_c;  /* backward, per channel with S > 1: g's line of S elements for
                      * sample n, channel c starts at n * g_n + c * g_c (0, 0: one line) */
} tl_norm_job;

/* forward: rows [begin, end) of statistics groups (N*G, or C per channel). */
void tl_norm_forward_f32(const tl_norm_job *job, int64_t begin, int64_t end);
void tl_norm_forward_f64(const tl_norm_job *job, int64_t begin, int64_t end);
/* backward: dx of rows [begin, end), and their sums into part; for cols,
 * the rows' dw and db terms added to acc (2C doubles: dw, db; NULL: none). */
void tl_norm_backward_f32(const tl_norm_job *job, int64_t begin, int64_t end, double *acc);
void tl_norm_backward_f64(const tl_norm_job *job, int64_t begin, int64_t end, double *acc);

#endif
