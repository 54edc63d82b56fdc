/* conv_direct.h - 2-d convolution of stride 1 without columns (conv_direct.c),
 * private to src/nn/conv: float32 on CPUs with AVX-512.
 *
 * Legend: per sample X (G*Ci, H, W) -> Y (G*Co, Ho, Wo), G groups of Ci
 * input and Co output channels, kernel KH x KW, dilation (dh, dw), stride 1.
 * It serves a convolution (weight (G*Co, Ci, KH, KW)) and, as the same
 * correlation with the kernel flipped and its channel dims swapped, a
 * transposed convolution of stride 1 (weight (G*Ci, Co, KH, KW)): the input
 * gradient of every stride-1 convolution.                                  */
#ifndef TL_NN_CONV_DIRECT_H
#define TL_NN_CONV_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "nn/conv/tl_conv.h"

typedef struct {
  int64_t G, Ci, Co, H, W, KH, KW, dh, dw;
  int64_t pt, pl;         /* zero rows / columns before the image */
  int64_t Hp, Wp, Ho, Wo; /* the padded plane; the output */
  int64_t P, Pr, K;       /* positions on the padded grid (Ho*Wp), rounded up to a tile; Ci*KH*KW */
  int64_t tiles;          /* tiles of output channels per group */
  int64_t xp_numel, scratch_numel; /* one sample's padded plane; it and the padded-grid output */
  int64_t Cop, Kr, weight_scratch_numel; /* Co rounded up to a vector, K to a tile of taps;
                                           * the weight gradient's scratch */
  float *wpk;             /* packed weight [G][tiles][K][8] */
  int64_t *koff;          /* per k = (ci, kh, kw): its offset in the padded plane (Kr entries) */
  bool transposed;        /* the weight is a transposed convolution's */
} tl_conv_direct;

/* Whether the direct path takes this geometry, filling p: g is the window
 * geometry (tl_conv.h); a convolution reads its big side (cin channels) and
 * writes the small one (cout), a transposed one (transposed) the reverse. */
bool tl_conv_direct_plan(tl_conv_direct *p, const tl_nn_conv_geom *g, bool transposed,
                         int64_t cin, int64_t cout);
/* Pack the weight (work float32; NULL for the weight gradient, which needs
 * only the offsets) and the offsets; false: out of memory. */
bool tl_conv_direct_pack(tl_conv_direct *p, const float *weight);
void tl_conv_direct_free(tl_conv_direct *p);
/* Zero a thread's scratch once (the padding of the plane stays zero, and the
 * weight gradient's sums start from it). */
void tl_conv_direct_scratch_init(float *scratch, int64_t numel);
/* One sample: x (G*Ci, H, W) -> y (G*Co, Ho, Wo) (+ bias (G*Co) when not NULL). */
void tl_conv_direct_sample(const tl_conv_direct *p, const float *x, const float *bias, float *y,
                           float *scratch);
/* The weight gradient of a convolution's plan (not transposed), one sample:
 * the sums in scratch (of weight_scratch_numel, initialised by scratch_init)
 * += gy (G*Co, Ho, Wo) correlated with x (G*Ci, H, W); a thread's samples
 * add into its scratch, and weight_flush adds the sums into dw
 * (G*Co, Ci*KH*KW) once, after its last. */
void tl_conv_direct_weight_sample(const tl_conv_direct *p, const float *x, const float *gy,
                                  float *scratch);
void tl_conv_direct_weight_flush(const tl_conv_direct *p, const float *scratch, float *dw);

#endif
