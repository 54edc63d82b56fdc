/* conv_direct.c - 2-d convolution of stride 1 without columns (conv_direct.h).
 *
 * Legend as in conv_direct.h; per group Wd (Co, K), K = Ci*KH*KW, the weight
 * as a correlation reads it: Wd[co][ci][kh][kw].
 * The sample is copied once into a zero-padded plane Xp (G*Ci, Hp, Wp).  On
 * that plane's grid, output position p = oh*Wp + ow reads through kernel
 * offset k = (ci, kh, kw) the element Xp[ci][p + kh*dh*Wp + kw*dw]: one
 * constant offset per k, so a run of consecutive positions is one vector
 * load per k, with no columns and no packing of the image (what im2col and
 * the GEMM's own packing cost).  The zero gap between image rows is both a
 * row's right padding and the next one's left padding, and the last
 * Wp - Wo positions of every grid row are computed and dropped (they read
 * across into the next row), so the path is taken where they are a small
 * share.  Yp (G*Co, Pr) holds the padded-grid
 * result; its valid columns go to Y with the bias added.
 * Register tile: 8 output channels x 48 positions (fewer in a grid's last
 * tile), 24 zmm accumulators, the
 * weight packed [G][Co/8][K][8] so that a tile reads one stream of
 * broadcasts; the positions' tiles are the outer loop, so the plane rows a
 * tile reads stay in cache over every channel tile.
 * The weight gradient is the same sum read the other way:
 *   dWd[co][k] = sum_p gyp[co][p] * Xp[p + koff[k]]
 * with gyp the output gradient on the padded grid (zero in the dropped
 * columns).  It is vectorised over output channels: gyp is transposed to
 * (Pr, Cop) so that a position's channels are one vector, and a register
 * tile of 6 taps x 64 channels (24 accumulators) takes per position four
 * vector loads and six broadcasts of consecutive plane elements, over
 * blocks of positions that stay in L1.                                     */
#include <stdlib.h>
#include <string.h>

#include "nn/conv/conv_direct.h"
#include "ndcore/kernels/tl_simd_clones.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CONV_DIRECT 1
#include <immintrin.h>
#endif

enum { ROWS = 8, VECS = 3, LANES = 16, SPAN = VECS * LANES };
/* the weight gradient's tile: TAPS taps (WIDE_TAPS when at most two vectors
 * of channels, so that a broadcast feeds as many FMAs) x CVECS vectors of
 * channels, over blocks of PBLOCK positions */
enum { TAPS = 6, WIDE_TAPS = 12, CVECS = 4, PBLOCK = 64 };

static bool cpu_has_avx512(void)
{
#ifdef TL_CONV_DIRECT
  return tl_cpu_has_avx512();
#else
  return false;
#endif
}

bool tl_conv_direct_plan(tl_conv_direct *p, const tl_nn_conv_geom *g, bool transposed,
                         int64_t cin, int64_t cout)
{
  memset(p, 0, sizeof *p);
  p->transposed = transposed;
  if (g->nsp != 2 || g->stride[0] != 1 || g->stride[1] != 1 || !cpu_has_avx512())
    return false;
  p->G = g->groups;
  p->Ci = cin / p->G;
  p->Co = cout / p->G;
  p->KH = g->kernel[0];
  p->KW = g->kernel[1];
  p->dh = g->dilation[0];
  p->dw = g->dilation[1];
  int64_t span_h = p->dh * (p->KH - 1), span_w = p->dw * (p->KW - 1);
  if (transposed) { /* the flipped kernel over S, padded to give B's size */
    p->H = g->small[0];
    p->W = g->small[1];
    p->Ho = g->big[0];
    p->Wo = g->big[1];
    p->pt = span_h - g->padding[0];
    p->pl = span_w - g->padding[1];
  } else {
    p->H = g->big[0];
    p->W = g->big[1];
    p->Ho = g->small[0];
    p->Wo = g->small[1];
    p->pt = g->padding[0];
    p->pl = g->padding[1];
  }
  p->Hp = p->Ho + span_h;
  /* One gap of zeros between image rows serves as the right padding of a
   * row and the left padding of the next (a window reads past one side by
   * pl, the other by pr), so the grid drops fewer columns. */
  int64_t pr = p->Wo + span_w - p->W - p->pl, gap = pr > p->pl ? pr : p->pl;
  p->Wp = p->W + gap > p->Wo ? p->W + gap : p->Wo;
  p->K = p->Ci * p->KH * p->KW;
  /* Worth it: a kernel wider than 1x1 (a 1x1 one is a plain GEMM already),
   * a channel tile mostly used, few dropped columns, and some work per load. */
  if (p->pt < 0 || p->pl < 0 || p->Hp < p->pt + p->H || p->Wp < p->pl + p->W ||
      p->KH * p->KW == 1 || p->Co < ROWS || 4 * p->Wo < 3 * p->Wp || p->Ho <= 0 || p->Wo <= 0 ||
      p->K == 0)
    return false;
  p->P = p->Ho * p->Wp;
  p->Pr = (p->P + LANES - 1) / LANES * LANES;
  p->tiles = (p->Co + ROWS - 1) / ROWS;
  /* the last tile reads up to Pr - P positions and KW - 1 taps past the plane */
  p->xp_numel = p->G * p->Ci * p->Hp * p->Wp + (p->Pr - p->P) + span_w;
  p->scratch_numel = p->xp_numel + p->G * p->Co * p->Pr;
  p->Cop = (p->Co + LANES - 1) / LANES * LANES;
  p->Kr = (p->K + TAPS - 1) / TAPS * TAPS;
  p->weight_scratch_numel = p->xp_numel + p->Pr * p->Cop + p->G * p->Kr * p->Cop;
  return true;
}

bool tl_conv_direct_pack(tl_conv_direct *p, const float *weight)
{
  int64_t KK = p->KH * p->KW;
  p->wpk = weight ? malloc((size_t)(p->G * p->tiles * p->K * ROWS) * sizeof *p->wpk) : NULL;
  p->koff = calloc((size_t)p->Kr, sizeof *p->koff); /* the taps past K read offset 0 */
  if ((weight && !p->wpk) || !p->koff) {
    tl_conv_direct_free(p);
    return false;
  }
  for (int64_t k = 0; k < p->K; k++) {
    int64_t ci = k / KK, kh = k % KK / p->KW, kw = k % p->KW;
    p->koff[k] = ci * p->Hp * p->Wp + kh * p->dh * p->Wp + kw * p->dw;
  }
  for (int64_t gi = 0; gi < p->G && weight; gi++)
    for (int64_t t = 0; t < p->tiles; t++)
      for (int64_t k = 0; k < p->K; k++) {
        float *dst = p->wpk + ((gi * p->tiles + t) * p->K + k) * ROWS;
        int64_t ci = k / KK, kk = k % KK;
        for (int64_t r = 0; r < ROWS; r++) {
          int64_t co = t * ROWS + r;
          if (co >= p->Co)
            dst[r] = 0;
          else if (p->transposed) /* (G*Ci, Co, KH, KW), kernel flipped */
            dst[r] = weight[((gi * p->Ci + ci) * p->Co + co) * KK + (KK - 1 - kk)];
          else /* (G*Co, Ci, KH, KW) */
            dst[r] = weight[(gi * p->Co + co) * p->K + k];
        }
      }
  return true;
}

void tl_conv_direct_free(tl_conv_direct *p)
{
  free(p->wpk);
  free(p->koff);
  p->wpk = NULL;
  p->koff = NULL;
}

void tl_conv_direct_scratch_init(float *scratch, int64_t numel)
{
  memset(scratch, 0, (size_t)numel * sizeof *scratch);
}

#ifdef TL_CONV_DIRECT
/* The image x (G*Ci, H, W) into the interior of the zero-padded plane xp. */
static void fill_plane(const tl_conv_direct *p, const float *x, float *xp)
{
  int64_t plane = p->Hp * p->Wp;
  for (int64_t c = 0; c < p->G * p->Ci; c++)
    for (int64_t h = 0; h < p->H; h++)
      memcpy(xp + c * plane + (p->pt + h) * p->Wp + p->pl, x + (c * p->H + h) * p->W,
             (size_t)p->W * sizeof *x);
}

/* yp (rows x NV vectors of positions, row stride ld) = the tile's ROWS
 * channels from xp (the plane at the tile's first position); NV is a
 * constant in each caller, so that the accumulators stay in registers. */
__attribute__((always_inline, target("avx512f"))) static inline void
tile(const float *xp, const int64_t *koff, int64_t K, const float *w, float *yp, int64_t ld,
     int64_t rows, const int NV)
{
  __m512 acc[ROWS][VECS];
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; r++)
#pragma GCC unroll 3
    for (int v = 0; v < NV; v++)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; k++, w += ROWS) {
    const float *x = xp + koff[k];
    __m512 xv[VECS];
#pragma GCC unroll 3
    for (int v = 0; v < NV; v++)
      xv[v] = _mm512_loadu_ps(x + v * LANES);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; r++) {
      __m512 b = _mm512_set1_ps(w[r]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; v++)
        acc[r][v] = _mm512_fmadd_ps(b, xv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; r++)
    if (r < rows)
#pragma GCC unroll 3
      for (int v = 0; v < NV; v++)
        _mm512_storeu_ps(yp + r * ld + v * LANES, acc[r][v]);
}

#define TL_TILE(NV)                                                                           \
  __attribute__((target("avx512f"))) static void tile_##NV(                                   \
      const float *xp, const int64_t *koff, int64_t K, const float *w, float *yp, int64_t ld, \
      int64_t rows)                                                                           \
  {                                                                                           \
    tile(xp, koff, K, w, yp, ld, rows, NV);                                                   \
  }
TL_TILE(1)
TL_TILE(2)
TL_TILE(3)

typedef void (*tile_fn)(const float *, const int64_t *, int64_t, const float *, float *, int64_t,
                        int64_t);
static const tile_fn tiles[VECS + 1] = {NULL, tile_1, tile_2, tile_3};
#endif

void tl_conv_direct_sample(const tl_conv_direct *p, const float *x, const float *bias, float *y,
                           float *scratch)
{
#ifdef TL_CONV_DIRECT
  float *xp = scratch, *yp = scratch + p->xp_numel;
  int64_t plane = p->Hp * p->Wp;
  fill_plane(p, x, xp);
  for (int64_t gi = 0; gi < p->G; gi++) {
    const float *xg = xp + gi * p->Ci * plane;
    for (int64_t p0 = 0; p0 < p->Pr; p0 += SPAN) {
      int64_t nv = (p->Pr - p0) / LANES < VECS ? (p->Pr - p0) / LANES : VECS;
      for (int64_t t = 0; t < p->tiles; t++) {
        int64_t rows = p->Co - t * ROWS < ROWS ? p->Co - t * ROWS : ROWS;
        tiles[nv](xg + p0, p->koff, p->K, p->wpk + (gi * p->tiles + t) * p->K * ROWS,
                  yp + (gi * p->Co + t * ROWS) * p->Pr + p0, p->Pr, rows);
      }
    }
  }
  for (int64_t c = 0; c < p->G * p->Co; c++) /* the valid columns, plus the bias */
    for (int64_t h = 0; h < p->Ho; h++) {
      const float *src = yp + c * p->Pr + h * p->Wp;
      float *dst = y + (c * p->Ho + h) * p->Wo, b = bias ? bias[c] : 0.0f;
      for (int64_t i = 0; i < p->Wo; i++)
        dst[i] = src[i] + b;
    }
#else
  (void)p, (void)x, (void)bias, (void)y, (void)scratch;
#endif
}

#ifdef TL_CONV_DIRECT
/* dwt[k][c] (ld Cop) += sum over positions [0, np) of gyt[p][c] * xp[koff[k] + p],
 * for NT taps and CV vectors of channels (constants in each caller, so that
 * the accumulators stay in registers). */
__attribute__((always_inline, target("avx512f"))) static inline void
weight_tile(const float *xp, const int64_t *koff, const float *gyt, const int CV, const int NT,
            int64_t Cop, int64_t np, float *dwt)
{
  __m512 acc[WIDE_TAPS][CVECS];
  const float *xk[WIDE_TAPS];
#pragma GCC unroll 12
  for (int t = 0; t < NT; t++) {
    xk[t] = xp + koff[t];
#pragma GCC unroll 4
    for (int v = 0; v < CV; v++)
      acc[t][v] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < np; i++, gyt += Cop) {
    __m512 g[CVECS];
#pragma GCC unroll 4
    for (int v = 0; v < CV; v++)
      g[v] = _mm512_loadu_ps(gyt + v * LANES);
#pragma GCC unroll 12
    for (int t = 0; t < NT; t++) {
      __m512 b = _mm512_set1_ps(xk[t][i]);
#pragma GCC unroll 4
      for (int v = 0; v < CV; v++)
        acc[t][v] = _mm512_fmadd_ps(b, g[v], acc[t][v]);
    }
  }
#pragma GCC unroll 12
  for (int t = 0; t < NT; t++)
#pragma GCC unroll 4
    for (int v = 0; v < CV; v++) {
      float *d = dwt + t * Cop + v * LANES;
      _mm512_storeu_ps(d, _mm512_add_ps(_mm512_loadu_ps(d), acc[t][v]));
    }
}

/* Rows r and r + 2^j of a 16 x 16 block with row bit j and column bit j
 * swapped (four such steps transpose it). */
__attribute__((always_inline, target("avx512f"))) static inline void
swap_bit(__m512 *lo, __m512 *hi, __m512i idx_lo, __m512i idx_hi)
{
  __m512 a = *lo, b = *hi;
  *lo = _mm512_permutex2var_ps(a, idx_lo, b);
  *hi = _mm512_permutex2var_ps(a, idx_hi, b);
}

/* gyt[(h*Wp + w)*Cop + c] = gy[c][h][w] for one group's Co channels: 16
 * channels x 16 positions at a time, transposed in registers.  Positions
 * and channels outside gy are not written (the caller's zeros). */
__attribute__((target("avx512f"))) static void transpose_grid(const tl_conv_direct *p,
                                                               const float *gy, float *gyt)
{
  __m512i idx[4][2];
  for (int j = 0; j < 4; j++) {
    int32_t lo[LANES], hi[LANES], b = 1 << j;
    for (int c = 0; c < LANES; c++) { /* from row r (c's bit j clear) or r + b (set) */
      lo[c] = c & b ? LANES + c - b : c;
      hi[c] = c & b ? LANES + c : c + b;
    }
    idx[j][0] = _mm512_loadu_si512(lo);
    idx[j][1] = _mm512_loadu_si512(hi);
  }
  int64_t HW = p->Ho * p->Wo;
  for (int64_t c0 = 0; c0 < p->Co; c0 += LANES) {
    int64_t nc = p->Co - c0 < LANES ? p->Co - c0 : LANES;
    for (int64_t h = 0; h < p->Ho; h++)
      for (int64_t w0 = 0; w0 < p->Wo; w0 += LANES) {
        int64_t nw = p->Wo - w0 < LANES ? p->Wo - w0 : LANES;
        __mmask16 m = (__mmask16)((1u << nw) - 1);
        __m512 r[LANES];
        for (int c = 0; c < LANES; c++) /* row c: channel c0 + c at 16 positions */
          r[c] = c < nc ? _mm512_maskz_loadu_ps(m, gy + (c0 + c) * HW + h * p->Wo + w0)
                        : _mm512_setzero_ps();
        for (int j = 0; j < 4; j++)
          for (int i = 0; i < LANES; i++)
            if (!(i & (1 << j)))
              swap_bit(&r[i], &r[i + (1 << j)], idx[j][0], idx[j][1]);
        float *dst = gyt + (h * p->Wp + w0) * p->Cop + c0;
        for (int64_t i = 0; i < nw; i++) /* row i: position w0 + i's 16 channels */
          _mm512_storeu_ps(dst + i * p->Cop, r[i]);
      }
  }
}

#define TL_WEIGHT_TILE(CV, NT)                                                                \
  __attribute__((target("avx512f"))) static void weight_tile_##CV##_##NT(                     \
      const float *xp, const int64_t *koff, const float *gyt, int64_t Cop, int64_t np,        \
      float *dwt)                                                                             \
  {                                                                                           \
    weight_tile(xp, koff, gyt, CV, NT, Cop, np, dwt);                                         \
  }
TL_WEIGHT_TILE(1, 6)
TL_WEIGHT_TILE(2, 6)
TL_WEIGHT_TILE(3, 6)
TL_WEIGHT_TILE(4, 6)
TL_WEIGHT_TILE(1, 12)
TL_WEIGHT_TILE(2, 12)

typedef void (*weight_tile_fn)(const float *, const int64_t *, const float *, int64_t, int64_t,
                               float *);
/* [wide][vectors of channels] */
static const weight_tile_fn weight_tiles[2][CVECS + 1] = {
    {NULL, weight_tile_1_6, weight_tile_2_6, weight_tile_3_6, weight_tile_4_6},
    {NULL, weight_tile_1_12, weight_tile_2_12, NULL, NULL}};
#endif

void tl_conv_direct_weight_sample(const tl_conv_direct *p, const float *x, const float *gy,
                                  float *scratch)
{
#ifdef TL_CONV_DIRECT
  float *xp = scratch, *gyt = scratch + p->xp_numel;
  int64_t plane = p->Hp * p->Wp;
  fill_plane(p, x, xp);
  for (int64_t gi = 0; gi < p->G; gi++) {
    /* gyt (Pr, Cop): the group's gradient on the padded grid, transposed;
     * the dropped columns, the tail and the channels past Co stay zero */
    transpose_grid(p, gy + gi * p->Co * p->Ho * p->Wo, gyt);
    float *dwt = gyt + p->Pr * p->Cop + gi * p->Kr * p->Cop;
    const float *xg = xp + gi * p->Ci * plane;
    for (int64_t p0 = 0; p0 < p->P; p0 += PBLOCK) {
      int64_t np = p->P - p0 < PBLOCK ? p->P - p0 : PBLOCK;
      for (int64_t c0 = 0; c0 < p->Cop; c0 += CVECS * LANES) {
        int64_t cvecs = (p->Cop - c0) / LANES < CVECS ? (p->Cop - c0) / LANES : CVECS;
        for (int64_t k0 = 0, nt; k0 < p->K; k0 += nt) { /* past K: taps of offset 0, dropped */
          bool wide = cvecs <= 2 && k0 + WIDE_TAPS <= p->Kr;
          nt = wide ? WIDE_TAPS : TAPS;
          weight_tiles[wide][cvecs](xg + p0, p->koff + k0, gyt + p0 * p->Cop + c0, p->Cop, np,
                                    dwt + k0 * p->Cop + c0);
        }
      }
    }
  }
#else
  (void)p, (void)x, (void)gy, (void)scratch;
#endif
}

void tl_conv_direct_weight_flush(const tl_conv_direct *p, const float *scratch, float *dw)
{
  const float *dwt = scratch + p->xp_numel + p->Pr * p->Cop;
  for (int64_t gi = 0; gi < p->G; gi++, dwt += p->Kr * p->Cop)
    for (int64_t c = 0; c < p->Co; c++) { /* dw (Co, K) += dwt^T */
      float *d = dw + (gi * p->Co + c) * p->K;
      for (int64_t k = 0; k < p->K; k++)
        d[k] += dwt[k * p->Cop + c];
    }
}
