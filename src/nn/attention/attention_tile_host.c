/* attention_tile_host.c - the row kernels of an attention tile
 * (tl_attn_device_ops: softmax, probs, dscores, rowdot) as host loops, the
 * emulated fake device's (src/nn/nn_emulate.c), so that the device-neutral
 * driver (attention_device.c) runs without a GPU.  They are
 * src/gpu/seq/attention.cu's kernels written serially, over the same
 * per-score rules (attention_tile.h): the same mask elements, the same
 * dropout words. */
#include <math.h>

#include "nn/attention/attention_tile.h"
#include "nn/attention/tl_attention.h"

/* score j of row w after the masks */
#define MASKED(T, t, w, j, x)                                                                     \
  do {                                                                                             \
    int64_t add_;                                                                                  \
    if (tl_attn_removed(t, w, j, &add_))                                                           \
      x = -(T)INFINITY;                                                                            \
    else if (add_ >= 0)                                                                            \
      x += ((const T *)(t)->mask)[add_];                                                           \
  } while (0)

#define TILE_LOOPS(T, EXP, LOG, softmax, probs, dscores, rowdot)                                   \
  static void softmax(const tl_attn_tile *t, T *s, T *lse)                                        \
  {                                                                                                \
    for (int64_t r = 0; r < t->rows; r++) {                                                        \
      tl_attn_where w = tl_attn_locate(t, r);                                                      \
      T *row = s + r * t->S, m = -(T)INFINITY, l = 0;                                              \
      for (int64_t j = 0; j < t->S; j++) {                                                         \
        MASKED(T, t, w, j, row[j]);                                                                \
        m = row[j] > m ? row[j] : m;                                                               \
      }                                                                                            \
      for (int64_t j = 0; j < t->S; j++) {                                                         \
        row[j] = row[j] == -(T)INFINITY ? 0 : EXP(row[j] - m);                                     \
        l += row[j];                                                                               \
      }                                                                                            \
      T inv = l > 0 ? 1 / l : 0;                                                                   \
      for (int64_t j = 0; j < t->S; j++)                                                           \
        row[j] = t->dropout_p > 0 ? row[j] * inv * (T)tl_attn_multiplier(t, w, j) : row[j] * inv;  \
      lse[w.at] = l > 0 ? m + LOG(l) : -(T)INFINITY;                                               \
    }                                                                                              \
  }                                                                                                \
  static void probs(const tl_attn_tile *t, T *s, const T *lse, T *pd)                             \
  {                                                                                                \
    for (int64_t e = 0; e < t->rows * t->S; e++) {                                                 \
      tl_attn_where w = tl_attn_locate(t, e / t->S);                                               \
      T x = s[e], l = lse[w.at];                                                                   \
      MASKED(T, t, w, e % t->S, x);                                                                \
      s[e] = l == -(T)INFINITY || x == -(T)INFINITY ? 0 : EXP(x - l);                              \
      if (pd)                                                                                      \
        pd[e] = s[e] * (T)tl_attn_multiplier(t, w, e % t->S);                                      \
    }                                                                                              \
  }                                                                                                \
  static void dscores(const tl_attn_tile *t, const T *p, T *dp, const T *d)                       \
  {                                                                                                \
    for (int64_t e = 0; e < t->rows * t->S; e++) {                                                 \
      tl_attn_where w = tl_attn_locate(t, e / t->S);                                               \
      T g = t->dropout_p > 0 ? dp[e] * (T)tl_attn_multiplier(t, w, e % t->S) : dp[e];              \
      dp[e] = p[e] * (g - d[w.at]);                                                                \
    }                                                                                              \
  }                                                                                                \
  static void rowdot(const T *a, const T *b, int64_t n, int64_t ev, T *d)                         \
  {                                                                                                \
    for (int64_t r = 0; r < n; r++) {                                                              \
      T s = 0;                                                                                     \
      for (int64_t x = 0; x < ev; x++)                                                             \
        s += a[r * ev + x] * b[r * ev + x];                                                        \
      d[r] = s;                                                                                    \
    }                                                                                              \
  }
TILE_LOOPS(float, expf, logf, softmax_f32, probs_f32, dscores_f32, rowdot_f32)
TILE_LOOPS(double, exp, log, softmax_f64, probs_f64, dscores_f64, rowdot_f64)

void tl_attn_tile_softmax_host(const tl_attn_tile *t, void *s, void *lse)
{
  if (t->f64)
    softmax_f64(t, s, lse);
  else
    softmax_f32(t, s, lse);
}

void tl_attn_tile_probs_host(const tl_attn_tile *t, void *s, const void *lse, void *pd)
{
  if (t->f64)
    probs_f64(t, s, lse, pd);
  else
    probs_f32(t, s, lse, pd);
}

void tl_attn_tile_dscores_host(const tl_attn_tile *t, const void *p, void *dp, const void *d)
{
  if (t->f64)
    dscores_f64(t, p, dp, d);
  else
    dscores_f32(t, p, dp, d);
}

void tl_attn_rowdot_host(bool f64, const void *a, const void *b, int64_t n, int64_t ev, void *d)
{
  if (f64)
    rowdot_f64(a, b, n, ev, d);
  else
    rowdot_f32(a, b, n, ev, d);
}
