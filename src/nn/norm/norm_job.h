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
  double *batch_mean; /* forward, per channel training with half stats: the mean the
                       * running mean reads (C) */
  double *part;      /* backward, group stats but cols: (N, C, 2) sums of dy, dy*x */
  double *dw, *db;   /* backward, per-channel stats: the channels' sums (C) */
  bool cols;         /* backward, layer_norm / rms_norm (G == 1, S == 1) */
  /* channels-last batch norm (x, g, y laid out (N, S, C)): the tl_norm_cl_* steps */
  int cl_kind;       /* the sums tl_norm_cl_lines takes, what tl_norm_cl_reduce finishes */
  double *lines;     /* (N, C) per-sample line sums; (N, C, 2) for TL_NORM_CL_GRAD */
  void *coef;        /* (3, C) of the work type: a, c1, c2 of tl_norm_cl_apply */
  int64_t g_row;     /* backward, cols: g's elements per row (C, or 0: one row for all) */
  int64_t g_n, g_c;  /* backward, per channel with S > 1: g's line of S elements for
                      * sample n, channel c starts at n * g_n + c * g_c (0, 0: one line) */
} tl_norm_job;

/* Channels-last batch norm, in steps (norm_cpu.c runs them):
 *   forward, training:  lines(SUM), reduce (mean), lines(SQDEV), reduce (var,
 *                       rstd, coef), apply;   evaluation: reduce(NONE), apply;
 *   backward:           lines(GRAD), reduce (dw, db, coef), apply.
 * lines: rows (sample, block of TL_NORM_CL_BLOCK channels); apply: the N*S
 * positions.  Every value is the planar loops' (norm_loops.h). */
enum { TL_NORM_CL_BLOCK = 64 };
enum { TL_NORM_CL_NONE, TL_NORM_CL_SUM, TL_NORM_CL_SQDEV, TL_NORM_CL_GRAD };
void tl_norm_cl_lines_f32(const tl_norm_job *job, int64_t begin, int64_t end);
void tl_norm_cl_lines_f64(const tl_norm_job *job, int64_t begin, int64_t end);
void tl_norm_cl_reduce_f32(const tl_norm_job *job);
void tl_norm_cl_reduce_f64(const tl_norm_job *job);
void tl_norm_cl_apply_f32(const tl_norm_job *job, int64_t begin, int64_t end);
void tl_norm_cl_apply_f64(const tl_norm_job *job, int64_t begin, int64_t end);

/* forward: rows [begin, end) of statistics groups (N*G, or C per channel). */
void tl_norm_forward_f32(const tl_norm_job *job, int64_t begin, int64_t end);
void tl_norm_forward_f64(const tl_norm_job *job, int64_t begin, int64_t end);
/* backward: dx of rows [begin, end), and their sums into part; for cols,
 * the rows' dw and db terms added to acc (2C doubles: dw, db; NULL: none). */
void tl_norm_backward_f32(const tl_norm_job *job, int64_t begin, int64_t end, double *acc);
void tl_norm_backward_f64(const tl_norm_job *job, int64_t begin, int64_t end, double *acc);

#endif
