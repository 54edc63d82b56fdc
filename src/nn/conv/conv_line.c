/* conv_line.c - 1-d convolution of stride 1 without columns (conv_line.h).
 *
 * Legend as in conv_line.h.  Where im2col + GEMM would build, for one
 * channel, an (Ci*K, Lo) matrix of copies and then run a product of a few
 * rows, this path reads the padded lines directly: output positions go in
 * blocks of BLOCK (four vectors), and over a block every tap (c, k) is one
 * unaligned vector load at offset k*d, multiplied into the accumulators of
 * up to four output channels (a broadcast weight each).  A block's lines
 * (BLOCK + (K-1)*d samples per channel) stay in L1 over every tap and every
 * channel tile.  Vectors are GCC vector types of 64 bytes; the entry points
 * are compiled for AVX-512, AVX2 and the baseline (TL_SIMD_CLONES), so the
 * same source gets the machine's widest registers.
 * The weight gradient runs over blocks of WBLOCK positions: per (o, c) and
 * four taps at a time, one load of gY and one of Xp per tap and vector,
 * reduced per block (so the lines of a block, not of the sample, are what
 * stays in cache).  gY is first copied into rows of Lr zero-padded
 * positions so that every block is whole vectors.                          */
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_simd_clones.h"
#include "nn/conv/conv_line.h"

enum { VBYTES = 64, BLOCK_VECS = 4, WBLOCK = 512 };

#define INLINE __attribute__((always_inline)) static inline

static int64_t round_up(int64_t n, int64_t m)
{
  return (n + m - 1) / m * m;
}

bool tl_conv_line_plan(tl_conv_line *p, const tl_nn_conv_geom *g, bool transposed,
                       bool weight_grad, int64_t cin, int64_t cout, bool f64)
{
  memset(p, 0, sizeof *p);
  if (g->nsp != 1 || g->stride[0] != 1 || g->groups <= 0)
    return false;
  p->transposed = transposed;
  p->f64 = f64;
  p->G = g->groups;
  p->Ci = cin / p->G;
  p->Co = cout / p->G;
  p->K = g->kernel[0];
  p->d = g->dilation[0];
  if (transposed) { /* the flipped kernel over S, padded to give B's length */
    p->L = g->small[0];
    p->Lo = g->big[0];
    p->pl = (p->K - 1) * p->d - g->padding[0];
  } else {
    p->L = g->big[0];
    p->Lo = g->small[0];
    p->pl = g->padding[0];
  }
  /* Worth it where the GEMM has few rows or a short inner dimension: there
   * its packing and the columns' copies cost more than the products.  Bounds
   * measured at 1 thread (docs/nn.md): (8, 16, 4096) x (32, 16, 5) stays
   * the GEMM's (Co 32: 2.1 ms against 2.5 ms float32), (16, 8, 3) and
   * (16, 4, 9) kernels run faster here, the weight gradient of Co 16 slower. */
  int64_t CK = p->Ci * p->K;
  bool few = p->Co <= 8 || CK <= 16 || (!weight_grad && p->Co <= 16 && CK <= 64);
  if (p->Lo <= 0 || p->Ci <= 0 || p->Co <= 0 || p->K <= 0 || !few)
    return false;
  int64_t lanes = VBYTES / (f64 ? 8 : 4);
  p->Lr = round_up(p->Lo, lanes * BLOCK_VECS);
  p->Lp = p->Lr + (p->K - 1) * p->d;
  p->scratch_numel = p->G * p->Ci * p->Lp + (weight_grad ? p->G * p->Co * p->Lr : 0);
  return true;
}

bool tl_conv_line_pack(tl_conv_line *p, const void *weight)
{
  if (!weight)
    return true;
  size_t es = p->f64 ? 8 : 4;
  int64_t n = p->G * p->Co * p->Ci * p->K;
  p->wk = malloc((size_t)n * es);
  if (!p->wk)
    return false;
  if (!p->transposed) { /* (G*Co, Ci, K): already the order the kernel reads */
    memcpy(p->wk, weight, (size_t)n * es);
    return true;
  }
  /* a transposed convolution's weight (G*Ci, Co, K), kernel flipped */
  for (int64_t gi = 0; gi < p->G; gi++)
    for (int64_t o = 0; o < p->Co; o++)
      for (int64_t c = 0; c < p->Ci; c++)
        for (int64_t k = 0; k < p->K; k++) {
          int64_t dst = ((gi * p->Co + o) * p->Ci + c) * p->K + k;
          int64_t src = ((gi * p->Ci + c) * p->Co + o) * p->K + (p->K - 1 - k);
          memcpy((char *)p->wk + dst * es, (const char *)weight + src * es, es);
        }
  return true;
}

void tl_conv_line_free(tl_conv_line *p)
{
  free(p->wk);
  p->wk = NULL;
}

/* rows lines of x (rows, L) into xp (rows, Lp), pl zeros before each. */
static void fill_lines(const tl_conv_line *p, const char *x, char *xp, int64_t rows, size_t es)
{
  int64_t lo = p->pl > 0 ? (p->pl < p->Lp ? p->pl : p->Lp) : 0, s0 = p->pl < 0 ? -p->pl : 0;
  int64_t n = p->L - s0 < p->Lp - lo ? p->L - s0 : p->Lp - lo;
  n = n < 0 ? 0 : n;
  for (int64_t r = 0; r < rows; r++) {
    char *dst = xp + (size_t)(r * p->Lp) * es;
    memset(dst, 0, (size_t)lo * es);
    if (n > 0) /* (a negative pl may skip past the whole line) */
      memcpy(dst + (size_t)lo * es, x + (size_t)(r * p->L + s0) * es, (size_t)n * es);
    memset(dst + (size_t)(lo + n) * es, 0, (size_t)(p->Lp - lo - n) * es);
  }
}

/* Vectors are handled by macros, not functions, so that no 64-byte vector
 * crosses a call (whose ABI would depend on the clone's target). */
#define VLOAD(VU, q) (*(const VU *)(q))
#define VSTORE(VU, q, v) (*(VU *)(q) = (v))
#define HSUM(T, v)                                                                               \
  __extension__({                                                                                \
    T s_ = 0;                                                                                    \
    for (int i_ = 0; i_ < (int)(sizeof(v) / sizeof(T)); i_++)                                    \
      s_ += (v)[i_];                                                                             \
    s_;                                                                                          \
  })

/* The kernels, once per work dtype T with vectors V (VU: unaligned). */
#define LINE_KERNELS(T, V, VU, SUF)                                                              \
  /* y rows 0..3 (stride ldy), one vector at xp's position: four output                       \
   * channels whose weights are w (rows of CK = Ci*K). */                                        \
  INLINE void tile4_##SUF(const T *xp, int64_t Lp, const T *w, int64_t Ci, int64_t K,          \
                          int64_t d, const T *bias, T *y, int64_t ldy)                          \
  {                                                                                              \
    int64_t CK = Ci * K;                                                                         \
    V a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                                    \
    if (bias) {                                                                                  \
      a0 += bias[0], a1 += bias[1], a2 += bias[2], a3 += bias[3];                                \
    }                                                                                            \
    for (int64_t c = 0; c < Ci; c++) {                                                           \
      const T *xc = xp + c * Lp, *wc = w + c * K;                                                \
      for (int64_t k = 0; k < K; k++) {                                                          \
        V x = VLOAD(VU, xc + k * d);                                                            \
        a0 += x * wc[k];                                                                         \
        a1 += x * wc[CK + k];                                                                    \
        a2 += x * wc[2 * CK + k];                                                                \
        a3 += x * wc[3 * CK + k];                                                                \
      }                                                                                          \
    }                                                                                            \
    VSTORE(VU, y, a0);                                                                          \
    VSTORE(VU, y + ldy, a1);                                                                    \
    VSTORE(VU, y + 2 * ldy, a2);                                                                \
    VSTORE(VU, y + 3 * ldy, a3);                                                                \
  }                                                                                              \
                                                                                                 \
  /* y (four vectors) of one output channel from xp's block. */                                  \
  INLINE void tile1_##SUF(const T *xp, int64_t Lp, const T *w, int64_t Ci, int64_t K,          \
                          int64_t d, const T *bias, T *y)                                        \
  {                                                                                              \
    const int64_t n = sizeof(V) / sizeof(T);                                                     \
    V a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                                    \
    if (bias) {                                                                                  \
      a0 += bias[0], a1 += bias[0], a2 += bias[0], a3 += bias[0];                                \
    }                                                                                            \
    for (int64_t c = 0; c < Ci; c++) {                                                           \
      const T *xc = xp + c * Lp, *wc = w + c * K;                                                \
      for (int64_t k = 0; k < K; k++) {                                                          \
        const T *q = xc + k * d;                                                                 \
        T wv = wc[k];                                                                            \
        a0 += VLOAD(VU, q) * wv;                                                                \
        a1 += VLOAD(VU, q + n) * wv;                                                            \
        a2 += VLOAD(VU, q + 2 * n) * wv;                                                        \
        a3 += VLOAD(VU, q + 3 * n) * wv;                                                        \
      }                                                                                          \
    }                                                                                            \
    VSTORE(VU, y, a0);                                                                          \
    VSTORE(VU, y + n, a1);                                                                      \
    VSTORE(VU, y + 2 * n, a2);                                                                  \
    VSTORE(VU, y + 3 * n, a3);                                                                  \
  }                                                                                              \
                                                                                                 \
  /* blocks [b0, b1) of positions of every output channel */                                   \
  TL_SIMD_CLONES static void sample_##SUF(const tl_conv_line *p, const T *xp, const T *bias,   \
                                          T *y, int64_t b0, int64_t b1)                          \
  {                                                                                              \
    enum { N = sizeof(V) / sizeof(T), B = N * BLOCK_VECS };                                      \
    T tail[4 * B]; /* a last, partial block's rows before they go to y */                       \
    const T *wk = p->wk;                                                                         \
    int64_t Ci = p->Ci, Co = p->Co, K = p->K, Lp = p->Lp, Lo = p->Lo;                            \
    for (int64_t t0 = b0 * B; t0 < Lo && t0 < b1 * B; t0 += B) {                                 \
      int64_t n = Lo - t0 < B ? Lo - t0 : B;                                                     \
      for (int64_t gi = 0; gi < p->G; gi++) {                                                    \
        const T *xg = xp + gi * Ci * Lp + t0, *wg = wk + gi * Co * Ci * K;                       \
        const T *bg = bias ? bias + gi * Co : NULL;                                              \
        T *yg = y + gi * Co * Lo + t0;                                                           \
        int64_t o = 0;                                                                           \
        for (; o + 4 <= Co; o += 4) {                                                            \
          T *dst = n == B ? yg + o * Lo : tail;                                                  \
          int64_t ld = n == B ? Lo : B;                                                          \
          for (int64_t v = 0; v < BLOCK_VECS; v++)                                               \
            tile4_##SUF(xg + v * N, Lp, wg + o * Ci * K, Ci, K, p->d, bg ? bg + o : NULL,        \
                        dst + v * N, ld);                                                        \
          for (int64_t r = 0; r < 4 && n < B; r++)                                               \
            memcpy(yg + (o + r) * Lo, tail + r * B, (size_t)n * sizeof(T));                      \
        }                                                                                        \
        for (; o < Co; o++) {                                                                    \
          T *dst = n == B ? yg + o * Lo : tail;                                                  \
          tile1_##SUF(xg, Lp, wg + o * Ci * K, Ci, K, p->d, bg ? bg + o : NULL, dst);           \
          if (n < B)                                                                             \
            memcpy(yg + o * Lo, tail, (size_t)n * sizeof(T));                                    \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
                                                                                                 \
  TL_SIMD_CLONES static void weight_##SUF(const tl_conv_line *p, const T *xp, const T *gyp,    \
                                          T *dw)                                                 \
  {                                                                                              \
    enum { N = sizeof(V) / sizeof(T) };                                                          \
    int64_t Ci = p->Ci, Co = p->Co, K = p->K, Lp = p->Lp, Lr = p->Lr, d = p->d;                  \
    for (int64_t t0 = 0; t0 < Lr; t0 += WBLOCK) {                                                \
      int64_t t1 = t0 + WBLOCK < Lr ? t0 + WBLOCK : Lr;                                          \
      for (int64_t gi = 0; gi < p->G; gi++)                                                      \
        for (int64_t o = 0; o < Co; o++)                                                         \
          for (int64_t c = 0; c < Ci; c++) {                                                     \
            const T *gr = gyp + (gi * Co + o) * Lr, *xc = xp + (gi * Ci + c) * Lp;               \
            T *dwc = dw + ((gi * Co + o) * Ci + c) * K;                                          \
            int64_t k = 0;                                                                       \
            for (; k + 4 <= K; k += 4) {                                                         \
              V a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                          \
              const T *q = xc + k * d;                                                           \
              for (int64_t t = t0; t < t1; t += N) {                                             \
                V gv = VLOAD(VU, gr + t);                                                       \
                a0 += gv * VLOAD(VU, q + t);                                                    \
                a1 += gv * VLOAD(VU, q + d + t);                                                \
                a2 += gv * VLOAD(VU, q + 2 * d + t);                                            \
                a3 += gv * VLOAD(VU, q + 3 * d + t);                                            \
              }                                                                                  \
              dwc[k] += HSUM(T, a0);                                                          \
              dwc[k + 1] += HSUM(T, a1);                                                      \
              dwc[k + 2] += HSUM(T, a2);                                                      \
              dwc[k + 3] += HSUM(T, a3);                                                      \
            }                                                                                    \
            for (; k < K; k++) {                                                                 \
              V a0 = {0}, a1 = {0};                                                              \
              const T *q = xc + k * d;                                                           \
              int64_t t = t0;                                                                    \
              for (; t + 2 * N <= t1; t += 2 * N) {                                              \
                a0 += VLOAD(VU, gr + t) * VLOAD(VU, q + t);                                    \
                a1 += VLOAD(VU, gr + t + N) * VLOAD(VU, q + t + N);                            \
              }                                                                                  \
              for (; t < t1; t += N)                                                             \
                a0 += VLOAD(VU, gr + t) * VLOAD(VU, q + t);                                    \
              dwc[k] += HSUM(T, a0 + a1);                                                     \
            }                                                                                    \
          }                                                                                      \
    }                                                                                            \
  }

typedef float vf32 __attribute__((vector_size(VBYTES)));
typedef float vf32u __attribute__((vector_size(VBYTES), aligned(4), may_alias));
typedef double vf64 __attribute__((vector_size(VBYTES)));
typedef double vf64u __attribute__((vector_size(VBYTES), aligned(8), may_alias));

LINE_KERNELS(float, vf32, vf32u, f32)
LINE_KERNELS(double, vf64, vf64u, f64)

typedef struct {
  const tl_conv_line *p;
  const void *xp, *bias;
  void *y;
} sample_job;

static void sample_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const sample_job *j = ctx;
  if (j->p->f64)
    sample_f64(j->p, j->xp, j->bias, j->y, begin, end);
  else
    sample_f32(j->p, j->xp, j->bias, j->y, begin, end);
}

/* A sample's blocks are split across the thread pool (one long line with
 * threads to spare); inside a job that already splits the batch the call
 * runs inline. */
void tl_conv_line_sample(const tl_conv_line *p, const void *x, const void *bias, void *y,
                         void *scratch)
{
  fill_lines(p, x, scratch, p->G * p->Ci, p->f64 ? 8 : 4);
  int64_t block = VBYTES / (p->f64 ? 8 : 4) * BLOCK_VECS, blocks = p->Lr / block;
  int64_t work = block * p->G * p->Co * p->Ci * p->K; /* multiply-adds per block */
  sample_job j = {.p = p, .xp = scratch, .bias = bias, .y = y};
  tl_parallel_for(blocks, work >= (1 << 16) ? 1 : (1 << 16) / work, sample_range, &j);
}

void tl_conv_line_weight_sample(const tl_conv_line *p, const void *x, const void *gy, void *dw,
                                void *scratch)
{
  size_t es = p->f64 ? 8 : 4;
  char *gyp = (char *)scratch + (size_t)(p->G * p->Ci * p->Lp) * es;
  fill_lines(p, x, scratch, p->G * p->Ci, es);
  for (int64_t r = 0; r < p->G * p->Co; r++) { /* gY's rows, zeros past Lo */
    memcpy(gyp + (size_t)(r * p->Lr) * es, (const char *)gy + (size_t)(r * p->Lo) * es,
           (size_t)p->Lo * es);
    memset(gyp + (size_t)(r * p->Lr + p->Lo) * es, 0, (size_t)(p->Lr - p->Lo) * es);
  }
  if (p->f64)
    weight_f64(p, scratch, (const double *)gyp, dw);
  else
    weight_f32(p, scratch, (const float *)gyp, dw);
}
