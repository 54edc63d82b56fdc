/* conv_nhwc.c - 2-d convolutions on channels-last tensors (conv_nhwc.h).
 *
 * Legend as in conv_nhwc.h: B = (N, H, W, Cb) and S = (N, Ho, Wo, Cs) in
 * memory, K = KH*KW taps.  Two of the kernels are one correlation: output
 * pixel rows = patch rows @ a weight matrix, a patch row being the K
 * source pixels' channel runs, gathered from the source image:
 *   conv            B -> S, tap (ki, kj) of (y, x) at (y*s - p + ki*d, ...)
 *   conv_t stride 1 S -> B, tap (ki, kj) of (y, x) at (y + p - ki*d, ...)
 * (a stride-1 transposed convolution gathers instead of scattering: no
 * zeroing, no read-modify-write of B, and chunks that never overlap).  A
 * strided conv_t scatters S @ W' into B a sample at a time, and the weight
 * gradient is S^T @ patches(B).  Patch rows are made a chunk of output
 * pixels at a time (about CHUNK_BYTES, so that the product reads them back
 * from cache), or, for float32 on AVX-512, not made at all: the tiles read
 * each row's source runs in place through pointers (reads_runs).  The work is split across the thread pool by chunks (by
 * samples for the scatter, whose chunks of one sample add into the same
 * image), each slot with its own buffers and single-threaded products; with
 * one slot the products are OpenBLAS's to thread.                         */
#include "nn/conv/conv_nhwc.h"

#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_simd_clones.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/tl_nn_work.h"

/* About this many bytes of patch rows per chunk, but at least MIN_ROWS rows,
 * so that the weight, which the product reads again for every chunk, is
 * reused over enough rows. */
enum { CHUNK_BYTES = 1 << 19, MIN_ROWS = 128, ROW_TILE = 6 /* the tiles' rows, MR */,
       LANES_OF_TILES = 16 /* a vector of floats */ };

/* The correlation a gather reads: tap (ki, kj) of output pixel (y, x) reads
 * source pixel (y * st[0] + off[0] + ki * step[0], x * st[1] + ...) of an
 * sh x sw image of sc channels, zero outside it. */
typedef struct {
  const char *src;
  int64_t sh, sw, sc;
  int64_t st[2], off[2], step[2];
} taps;

typedef struct nhwc_job nhwc_job;
typedef void (*unit_fn)(const nhwc_job *j, int64_t unit, char *patches, char *acc);

struct nhwc_job {
  bool f64, tiles;  /* tiles: float work on the AVX-512 tiles */
  bool pointwise;   /* every output pixel reads one source pixel, itself: no patches */
  size_t es;
  int64_t N, H, W, Ho, Wo, Cb, Cs, KH, KW;
  taps tp;                  /* the gather's correlation (conv's for the scatter and weight) */
  int64_t gw, L, KR, OC;    /* output grid width and pixels; patch row; output channels */
  int64_t rows, chunks;     /* output pixels per chunk; chunks per sample */
  int64_t units, slots;
  const char *small, *w, *bias; /* S; the weight matrix; bias NULL or dense */
  char *out;                    /* the result: S, B, or (weight) NULL */
  char *scratch;                /* the zero run, then the slots */
  const char *zeros;            /* sc zeros: the source run of a tap in the padding */
  char *slots_base;             /* slots x (rows x KR patches or rows x K pointers, then
                                 * OC x KR sums) */
  int64_t slot_numel, acc_off;  /* a slot's share of scratch; its sums' offset in it */
  unit_fn unit;
};

/* Are t's strides those of a dense (N, H, W, C) block? */
static bool is_nhwc(const tl_tensor *t)
{
  int64_t strides[TL_MAX_DIMS];
  return t->ndim == 4 && tl_format_strides(TL_FORMAT_CHANNELS_LAST, t, strides) == TL_OK &&
         tl_tensor_has_strides(t, strides);
}

/* The geometries and dtypes this path serves (see the header): a, b the
 * kernel's operands, a channels-last. */
static bool fits(const tl_nn_conv_geom *g, const tl_tensor *a, const tl_tensor *b,
                 const tl_tensor *out)
{
  return g->nsp == 2 && g->groups == 1 &&
         (out->dtype == TL_DTYPE_F32 || out->dtype == TL_DTYPE_F64) && a->dtype == out->dtype &&
         b->dtype == out->dtype && is_nhwc(a);
}

static void *at(const nhwc_job *j, const void *base, int64_t elems)
{
  return (char *)base + (size_t)elems * j->es;
}

/* ---- float32 products on AVX-512 -------------------------------------------------------
 * OpenBLAS's sgemm measured about 100 GFLOP/s on these shapes (a narrow
 * output of Cs = 64 columns, or a short inner dim of 64), below the direct
 * row-major kernels (conv_direct.h).  These tiles keep a block of MR rows x
 * NV vectors of C in registers (6 x 4: 24 accumulators, four loads and six
 * broadcasts per step of k) and read A through two strides, so that S^T of
 * the weight gradient needs no transposed copy. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TL_CONV_NHWC_TILES 1
#include <immintrin.h>

/* KBLOCK steps of k at a time: a panel's KBLOCK rows of B (32 KiB) stay in
 * L1 while the tiles of MR rows sweep them */
enum { MR = 6, NVMAX = 4, LANES = 16, KBLOCK = 128 };

/* The helpers of the tiles below: an mr x nv block of c held in registers
 * (mr, nv constants in each clone), updated by one row of B at a time. */
__attribute__((always_inline, target("avx512f"))) static inline void
acc_load(__m512 acc[MR][NVMAX], const float *c, int64_t ldc, const __mmask16 *m, bool add,
         const int mr, const int nv)
{
#pragma GCC unroll 6
  for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      acc[r][v] = add ? _mm512_maskz_loadu_ps(m[v], c + r * ldc + v * LANES) : _mm512_setzero_ps();
}

/* acc row r += x[r] * B's row at b (nv vectors; only the last may be partial). */
__attribute__((always_inline, target("avx512f"))) static inline void
acc_fma(__m512 acc[MR][NVMAX], const float *x, const float *b, __mmask16 last, const int mr,
        const int nv)
{
  __m512 bv[NVMAX];
#pragma GCC unroll 4
  for (int v = 0; v < nv - 1; v++)
    bv[v] = _mm512_loadu_ps(b + v * LANES);
  bv[nv - 1] = _mm512_maskz_loadu_ps(last, b + (nv - 1) * LANES);
#pragma GCC unroll 6
  for (int r = 0; r < mr; r++) {
    __m512 xr = _mm512_set1_ps(x[r]);
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      acc[r][v] = _mm512_fmadd_ps(xr, bv[v], acc[r][v]);
  }
}

__attribute__((always_inline, target("avx512f"))) static inline void
acc_store(__m512 acc[MR][NVMAX], float *c, int64_t ldc, const __mmask16 *m, const int mr,
          const int nv)
{
#pragma GCC unroll 6
  for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      _mm512_mask_storeu_ps(c + r * ldc + v * LANES, m[v], acc[r][v]);
}

/* One clone of a tile per block shape (R rows, V vectors), so that mr and nv
 * are constants in each, and the table of the clones by shape. */
#define TL_NHWC_ARGS(...) __VA_ARGS__
#define TL_NHWC_CLONE(NAME, R, V, PARAMS, ARGS)                                                \
  __attribute__((target("avx512f"))) static void NAME##_##R##_##V PARAMS                        \
  {                                                                                             \
    NAME(TL_NHWC_ARGS ARGS, R, V);                                                              \
  }
#define TL_NHWC_CLONES_R(NAME, R, P, A)                                                         \
  TL_NHWC_CLONE(NAME, R, 1, P, A)                                                               \
  TL_NHWC_CLONE(NAME, R, 2, P, A) TL_NHWC_CLONE(NAME, R, 3, P, A) TL_NHWC_CLONE(NAME, R, 4, P, A)
#define TL_NHWC_CLONES(NAME, P, A)                                                              \
  TL_NHWC_CLONES_R(NAME, 1, P, A)                                                               \
  TL_NHWC_CLONES_R(NAME, 2, P, A) TL_NHWC_CLONES_R(NAME, 3, P, A)                               \
  TL_NHWC_CLONES_R(NAME, 4, P, A) TL_NHWC_CLONES_R(NAME, 5, P, A) TL_NHWC_CLONES_R(NAME, 6, P, A)
#define TL_NHWC_ROW(NAME, R) {NAME##_##R##_1, NAME##_##R##_2, NAME##_##R##_3, NAME##_##R##_4}
#define TL_NHWC_TABLE(NAME)                                                                     \
  {TL_NHWC_ROW(NAME, 1), TL_NHWC_ROW(NAME, 2), TL_NHWC_ROW(NAME, 3),                            \
   TL_NHWC_ROW(NAME, 4), TL_NHWC_ROW(NAME, 5), TL_NHWC_ROW(NAME, 6)}

/* c (mr x nv vectors, masks m) (+)= sum over k of a(r, k) * b row k, with
 * a(r, k) = a[r * sai + k * sak]. */
__attribute__((always_inline, target("avx512f"))) static inline void
tile(int64_t K, const float *a, int64_t sai, int64_t sak, const float *b, int64_t ldb, float *c,
     int64_t ldc, const __mmask16 *m, bool add, const int mr, const int nv)
{
  __m512 acc[MR][NVMAX];
  acc_load(acc, c, ldc, m, add, mr, nv);
  for (int64_t k = 0; k < K; k++, b += ldb, a += sak) {
    float x[MR];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
      x[r] = a[r * sai];
    acc_fma(acc, x, b, m[nv - 1], mr, nv);
  }
  acc_store(acc, c, ldc, m, mr, nv);
}

typedef void (*tile_fn)(int64_t, const float *, int64_t, int64_t, const float *, int64_t,
                        float *, int64_t, const __mmask16 *, bool);
TL_NHWC_CLONES(tile, (int64_t K, const float *a, int64_t sai, int64_t sak, const float *b,
                      int64_t ldb, float *c, int64_t ldc, const __mmask16 *m, bool add),
               (K, a, sai, sak, b, ldb, c, ldc, m, add))
static const tile_fn tiles[MR][NVMAX] = TL_NHWC_TABLE(tile);

/* The masks of the panel of columns [j0, j0 + NVMAX * LANES) of N (the
 * last vector's partial), and how many vectors it has. */
static int panel_masks(int64_t N, int64_t j0, __mmask16 m[NVMAX])
{
  int nv = 0;
  for (int64_t j = j0; j < N && nv < NVMAX; j += LANES, nv++)
    m[nv] = N - j >= LANES ? (__mmask16)0xFFFF : (__mmask16)((1u << (N - j)) - 1);
  return nv;
}

/* c (M x N, ldc) = A @ B (+ c when add), A(i, k) = a[i * sai + k * sak], B
 * (K x N, ldb) row-major: panels of NVMAX vectors of columns, each swept by
 * tiles of MR rows, KBLOCK steps of k at a time. */
static void tiled_gemm(int64_t M, int64_t N, int64_t K, const float *a, int64_t sai, int64_t sak,
                       const float *b, int64_t ldb, bool add, float *c, int64_t ldc)
{
  for (int64_t j0 = 0; j0 < N; j0 += NVMAX * LANES) {
    __mmask16 m[NVMAX];
    int nv = panel_masks(N, j0, m);
    for (int64_t k0 = 0; k0 < K; k0 += KBLOCK)
      for (int64_t i0 = 0; i0 < M; i0 += MR) {
        int mr = M - i0 < MR ? (int)(M - i0) : MR;
        int64_t kb = K - k0 < KBLOCK ? K - k0 : KBLOCK;
        tiles[mr - 1][nv - 1](kb, a + i0 * sai + k0 * sak, sai, sak, b + k0 * ldb + j0, ldb,
                              c + i0 * ldc + j0, ldc, m, add || k0 > 0);
      }
  }
}

/* The correlation's product without patch rows: row r's source pixels are
 * pointers, ind[r * K + t] for tap t (a zero run for one in the padding),
 * each a run of C channels; c (mr x nv vectors) (+)= sum over taps t < nt
 * and channels e < C of ind[r * K + t][e] * b row t * C + e. */
__attribute__((always_inline, target("avx512f"))) static inline void
tap_tile(int64_t nt, int64_t C, const float *const *ind, int64_t K, const float *zeros,
         const float *b, int64_t ldb, float *c, int64_t ldc, const __mmask16 *m, bool add,
         const int mr, const int nv)
{
  __m512 acc[MR][NVMAX];
  acc_load(acc, c, ldc, m, add, mr, nv);
  for (int64_t t = 0; t < nt; t++) {
    const float *p[MR];
    bool padding = true;
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
      p[r] = ind[r * K + t];
      padding = padding && p[r] == zeros;
    }
    if (padding) { /* every row's tap is in the padding (an image's first or last lines) */
      b += C * ldb;
      continue;
    }
#pragma GCC unroll 2
    for (int64_t e = 0; e < C; e++, b += ldb) {
      float x[MR];
#pragma GCC unroll 6
      for (int r = 0; r < mr; r++)
        x[r] = p[r][e];
      acc_fma(acc, x, b, m[nv - 1], mr, nv);
    }
  }
  acc_store(acc, c, ldc, m, mr, nv);
}

typedef void (*tap_tile_fn)(int64_t, int64_t, const float *const *, int64_t, const float *,
                            const float *, int64_t, float *, int64_t, const __mmask16 *, bool);
TL_NHWC_CLONES(tap_tile, (int64_t nt, int64_t C, const float *const *ind, int64_t K,
                          const float *zeros, const float *b, int64_t ldb, float *c, int64_t ldc,
                          const __mmask16 *m, bool add),
               (nt, C, ind, K, zeros, b, ldb, c, ldc, m, add))
static const tap_tile_fn tap_tiles[MR][NVMAX] = TL_NHWC_TABLE(tap_tile);

/* c (M x N, ldc) = (+ c when add) the rows' taps (ind: M x K pointers to runs
 * of C) @ b (K*C x N, ldb): as tiled_gemm, the taps a block of about
 * TAP_KBLOCK steps at a time.  That block is larger than tiled_gemm's: a
 * 3 x 3 window of 64 channels is one block, so that a tile's sums stay in
 * registers over the whole window instead of being stored and loaded again
 * every two taps; its rows of the weight (144 KiB) then come from L2, which
 * the four vector loads per step keep up with (measured 5% faster at
 * 64 -> 64 channels, 56 x 56, than blocks of 128 steps). */
enum { TAP_KBLOCK = 576 };

static void tap_gemm(int64_t M, int64_t N, int64_t K, int64_t C, const float *const *ind,
                     const float *zeros, const float *b, int64_t ldb, bool add, float *c,
                     int64_t ldc)
{
  int64_t tb = C < TAP_KBLOCK ? TAP_KBLOCK / C : 1;
  for (int64_t j0 = 0; j0 < N; j0 += NVMAX * LANES) {
    __mmask16 m[NVMAX];
    int nv = panel_masks(N, j0, m);
    for (int64_t t0 = 0; t0 < K; t0 += tb)
      for (int64_t i0 = 0; i0 < M; i0 += MR) {
        int mr = M - i0 < MR ? (int)(M - i0) : MR;
        int64_t nt = K - t0 < tb ? K - t0 : tb;
        tap_tiles[mr - 1][nv - 1](nt, C, ind + i0 * K + t0, K, zeros, b + t0 * C * ldb + j0, ldb,
                                  c + i0 * ldc + j0, ldc, m, add || t0 > 0);
      }
  }
}

/* The weight gradient's product without patch rows: c (mr x nv vectors)
 * += sum over k of a(r, k) * (brow[k * bstride] + boff), B's row k being
 * pixel k's source run of one tap (ind as tap_tile's), from channel boff. */
__attribute__((always_inline, target("avx512f"))) static inline void
run_tile(int64_t K, const float *a, int64_t sai, int64_t sak, const float *const *brow,
         int64_t bstride, int64_t boff, float *c, int64_t ldc, const __mmask16 *m, const int mr,
         const int nv)
{
  __m512 acc[MR][NVMAX];
  acc_load(acc, c, ldc, m, true, mr, nv);
  for (int64_t k = 0; k < K; k++, a += sak, brow += bstride) {
    float x[MR];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
      x[r] = a[r * sai];
    acc_fma(acc, x, *brow + boff, m[nv - 1], mr, nv);
  }
  acc_store(acc, c, ldc, m, mr, nv);
}

typedef void (*run_tile_fn)(int64_t, const float *, int64_t, int64_t, const float *const *,
                            int64_t, int64_t, float *, int64_t, const __mmask16 *);
TL_NHWC_CLONES(run_tile, (int64_t K, const float *a, int64_t sai, int64_t sak,
                          const float *const *brow, int64_t bstride, int64_t boff, float *c,
                          int64_t ldc, const __mmask16 *m),
               (K, a, sai, sak, brow, bstride, boff, c, ldc, m))
static const run_tile_fn run_tiles[MR][NVMAX] = TL_NHWC_TABLE(run_tile);

/* c (M x K*C, ldc) += A (M x R: a(i, k) = a[i * sai + k * sak]) @ the rows'
 * taps (ind: R x K pointers to runs of C): per tap, panels of NVMAX vectors
 * of its channels swept by tiles of MR rows. */
static void run_gemm(int64_t M, int64_t R, int64_t K, int64_t C, const float *a, int64_t sai,
                     int64_t sak, const float *const *ind, float *c, int64_t ldc)
{
  for (int64_t t = 0; t < K; t++)
    for (int64_t c0 = 0; c0 < C; c0 += NVMAX * LANES) {
      __mmask16 m[NVMAX];
      int nv = panel_masks(C, c0, m);
      for (int64_t i0 = 0; i0 < M; i0 += MR) {
        int mr = M - i0 < MR ? (int)(M - i0) : MR;
        run_tiles[mr - 1][nv - 1](R, a + i0 * sai, sai, sak, ind + t, K, c0,
                                  c + i0 * ldc + t * C + c0, ldc, m);
      }
    }
}
#endif

/* Does float work take the tiles here (else OpenBLAS's GEMM)? */
static bool use_tiles(const nhwc_job *j)
{
#ifdef TL_CONV_NHWC_TILES
  return !j->f64 && tl_cpu_has_avx512();
#else
  (void)j;
  return false;
#endif
}

/* c (M x N) (+)= A @ B as tiled_gemm's, on the tiles or through tl_nn_gemm
 * (A's strides then one of (lda, 1) or (1, lda)). */
static void product(const nhwc_job *j, int64_t M, int64_t N, int64_t K, const void *a, int64_t sai,
                    int64_t sak, const void *b, int64_t ldb, bool add, void *c, int64_t ldc)
{
#ifdef TL_CONV_NHWC_TILES
  if (j->tiles && K > 0) {
    tiled_gemm(M, N, K, a, sai, sak, b, ldb, add, c, ldc);
    return;
  }
#endif
  bool ta = sak != 1; /* A stored K x M; a single row's stride is never read (BLAS wants >= K) */
  int64_t lda = ta ? sak : M == 1 ? K : sai;
  tl_nn_gemm(j->f64, ta, false, M, N, K, a, lda, b, ldb, add ? 1.0 : 0.0, c, ldc);
}

/* ---- patches -------------------------------------------------------------------------- */

/* The source pixel of tap (ki, kj) of output pixel (y, x), false outside the image. */
static bool tap(const taps *t, int64_t y, int64_t x, int64_t ki, int64_t kj, int64_t *pixel)
{
  int64_t sy = y * t->st[0] + t->off[0] + ki * t->step[0];
  int64_t sx = x * t->st[1] + t->off[1] + kj * t->step[1];
  *pixel = sy * t->sw + sx;
  return sy >= 0 && sy < t->sh && sx >= 0 && sx < t->sw;
}

/* dst (p1 - p0, KR) = the patch rows of sample n's output pixels [p0, p1) */
static void gather(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, char *dst)
{
  const taps *t = &j->tp;
  size_t run = (size_t)t->sc * j->es;
  const char *xn = at(j, t->src, n * t->sh * t->sw * t->sc);
  for (int64_t p = p0; p < p1; p++) {
    int64_t y = p / j->gw, x = p % j->gw;
    for (int64_t ki = 0; ki < j->KH; ki++)
      for (int64_t kj = 0; kj < j->KW; kj++, dst += run) {
        int64_t pixel;
        if (tap(t, y, x, ki, kj, &pixel))
          memcpy(dst, at(j, xn, pixel * t->sc), run);
        else
          memset(dst, 0, run);
      }
  }
}

/* B[n] += the patch rows src (p1 - p0, KH*KW*Cb) of conv's output pixels [p0, p1) */
static void scatter(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, const char *src)
{
  char *xn = at(j, j->out, n * j->H * j->W * j->Cb);
  for (int64_t p = p0; p < p1; p++) {
    int64_t y = p / j->Wo, x = p % j->Wo;
    for (int64_t ki = 0; ki < j->KH; ki++)
      for (int64_t kj = 0; kj < j->KW; kj++, src += (size_t)j->Cb * j->es) {
        int64_t pixel;
        if (!tap(&j->tp, y, x, ki, kj, &pixel))
          continue;
        if (j->f64) {
          double *restrict d = at(j, xn, pixel * j->Cb);
          const double *restrict s = (const double *)src;
          for (int64_t c = 0; c < j->Cb; c++)
            d[c] += s[c];
        } else {
          float *restrict d = at(j, xn, pixel * j->Cb);
          const float *restrict s = (const float *)src;
          for (int64_t c = 0; c < j->Cb; c++)
            d[c] += s[c];
        }
      }
  }
}

/* rows x C at x (row-major) = bias broadcast over the rows (add: += it) */
static void put_bias(const nhwc_job *j, char *x, int64_t rows, int64_t C, bool add)
{
  for (int64_t r = 0; r < rows; r++) {
    if (j->f64) {
      double *p = (double *)x + r * C;
      const double *b = (const double *)j->bias;
      for (int64_t c = 0; c < C; c++)
        p[c] = add ? p[c] + b[c] : b[c];
    } else {
      float *p = (float *)x + r * C;
      const float *b = (const float *)j->bias;
      for (int64_t c = 0; c < C; c++)
        p[c] = add ? p[c] + b[c] : b[c];
    }
  }
}

/* Chunk `unit`: its sample and output pixels [p0, p1). */
static int64_t unit_pixels(const nhwc_job *j, int64_t unit, int64_t *p0, int64_t *p1)
{
  *p0 = (unit % j->chunks) * j->rows;
  *p1 = *p0 + j->rows < j->L ? *p0 + j->rows : j->L;
  return unit / j->chunks;
}

/* Does every tap of a window whose first tap reads (sy, sx) land inside
 * the image (steps may be negative: the stride-1 conv_t's gather)? */
static bool window_inside(const nhwc_job *j, int64_t sy, int64_t sx)
{
  const taps *t = &j->tp;
  int64_t ly = sy + (j->KH - 1) * t->step[0], lx = sx + (j->KW - 1) * t->step[1];
  return (sy < ly ? sy : ly) >= 0 && (sy > ly ? sy : ly) < t->sh && (sx < lx ? sx : lx) >= 0 &&
         (sx > lx ? sx : lx) < t->sw;
}

/* ind (p1 - p0, K) = the source runs of sample n's output pixels [p0, p1)
 * (the zero run for taps in the padding): tap_gemm's patch rows.  A window
 * wholly inside the image (most of them) is its first tap's run plus fixed
 * steps, with no test per tap. */
static void indirect(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, const void **ind)
{
  const taps *t = &j->tp;
  const char *xn = at(j, t->src, n * t->sh * t->sw * t->sc);
  int64_t row_step = t->step[0] * t->sw * t->sc, col_step = t->step[1] * t->sc; /* elements */
  int64_t y = p0 / j->gw, x = p0 % j->gw;
  for (int64_t p = p0; p < p1; p++) {
    int64_t sy = y * t->st[0] + t->off[0], sx = x * t->st[1] + t->off[1];
    if (window_inside(j, sy, sx)) {
      const char *first = at(j, xn, (sy * t->sw + sx) * t->sc);
      for (int64_t ki = 0; ki < j->KH; ki++)
        for (int64_t kj = 0; kj < j->KW; kj++)
          *ind++ = at(j, first, ki * row_step + kj * col_step);
    } else {
      for (int64_t ki = 0; ki < j->KH; ki++)
        for (int64_t kj = 0; kj < j->KW; kj++) {
          int64_t pixel;
          *ind++ = tap(t, y, x, ki, kj, &pixel) ? at(j, xn, pixel * t->sc) : j->zeros;
        }
    }
    if (++x == j->gw) {
      x = 0;
      y++;
    }
  }
}

/* The patch rows of a chunk: the source itself when pointwise, else gathered. */
static const char *patches_of(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, char *buf)
{
  if (j->pointwise)
    return at(j, j->tp.src, (n * j->L + p0) * j->tp.sc);
  gather(j, n, p0, p1, buf);
  return buf;
}

/* ---- the kernels' units ---------------------------------------------------------------- */

static void corr_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc);
static void weight_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc);

/* Do the tiles read the source runs through pointers (no patch rows)?  The
 * correlations always; the weight gradient when a run is whole vectors of
 * channels (its panels are per tap: fewer channels would leave lanes idle,
 * where the gathered rows pack the taps together). */
static bool reads_runs(const nhwc_job *j)
{
  if (!j->tiles || j->pointwise || j->tp.sc == 0)
    return false;
  return j->unit == corr_unit || (j->unit == weight_unit && j->tp.sc % LANES_OF_TILES == 0);
}

/* output rows (R, OC) = patches (R, KR) @ w (KR, OC) + bias */
static void corr_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc)
{
  (void)acc;
  int64_t p0, p1, n = unit_pixels(j, unit, &p0, &p1);
  char *y = at(j, j->out, (n * j->L + p0) * j->OC);
  if (j->bias) /* the product adds to it */
    put_bias(j, y, p1 - p0, j->OC, false);
#ifdef TL_CONV_NHWC_TILES
  if (reads_runs(j)) { /* the tiles read the source through pointers */
    const void **ind = (const void **)buf;
    indirect(j, n, p0, p1, ind);
    tap_gemm(p1 - p0, j->OC, j->KH * j->KW, j->tp.sc, (const float *const *)ind,
             (const float *)j->zeros, (const float *)j->w, j->OC, j->bias != NULL, (float *)y,
             j->OC);
    return;
  }
#endif
  const char *cols = patches_of(j, n, p0, p1, buf);
  product(j, p1 - p0, j->OC, j->KR, cols, j->KR, 1, j->w, j->OC, j->bias != NULL, y, j->OC);
}

/* B[n] = scatter(S[n] @ W' (Cs, K*Cb)) + bias, one sample (its chunks overlap in B[n]) */
static void scatter_unit(const nhwc_job *j, int64_t n, char *buf, char *acc)
{
  (void)acc;
  int64_t L = j->Ho * j->Wo, image = j->H * j->W, KC = j->KH * j->KW * j->Cb;
  char *xn = at(j, j->out, n * image * j->Cb);
  memset(xn, 0, (size_t)(image * j->Cb) * j->es);
  for (int64_t p0 = 0; p0 < L; p0 += j->rows) {
    int64_t p1 = p0 + j->rows < L ? p0 + j->rows : L;
    product(j, p1 - p0, KC, j->Cs, at(j, j->small, (n * L + p0) * j->Cs), j->Cs, 1, j->w, KC,
            false, buf, KC);
    scatter(j, n, p0, p1, buf);
  }
  if (j->bias)
    put_bias(j, xn, image, j->Cb, true);
}

/* the slot's sums (Cs, KR) += S rows^T (Cs, R) @ patches (R, KR) */
static void weight_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc)
{
  int64_t p0, p1, n = unit_pixels(j, unit, &p0, &p1);
#ifdef TL_CONV_NHWC_TILES
  if (reads_runs(j)) { /* the tiles read B's source runs through pointers */
    const void **ind = (const void **)buf;
    indirect(j, n, p0, p1, ind);
    run_gemm(j->Cs, p1 - p0, j->KH * j->KW, j->tp.sc,
             (const float *)at(j, j->small, (n * j->L + p0) * j->Cs), 1, j->Cs,
             (const float *const *)ind, (float *)acc, j->KR);
    return;
  }
#endif
  const char *cols = patches_of(j, n, p0, p1, buf);
  product(j, j->Cs, j->KR, p1 - p0, at(j, j->small, (n * j->L + p0) * j->Cs), 1, j->Cs, cols,
          j->KR, true, acc, j->KR);
}

static void slots_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const nhwc_job *j = ctx;
  for (int64_t s = begin; s < end; s++) {
    char *mine = at(j, j->slots_base, s * j->slot_numel);
    for (int64_t u = s * j->units / j->slots; u < (s + 1) * j->units / j->slots; u++)
      j->unit(j, u, mine, at(j, mine, j->acc_off));
  }
}

/* ---- set-up ---------------------------------------------------------------------------- */

/* The sizes from B's and S's shapes (both indexed (N, C, H, W)), and conv's
 * taps over B (the gather's unless set_grid changes them). */
static void job_dims(nhwc_job *j, const tl_nn_conv_geom *g, const tl_tensor *big,
                     const tl_tensor *small, unit_fn unit)
{
  j->f64 = big->dtype == TL_DTYPE_F64;
  j->es = j->f64 ? 8 : 4;
  j->N = big->shape[0];
  j->Cb = big->shape[1];
  j->H = big->shape[2];
  j->W = big->shape[3];
  j->Cs = small->shape[1];
  j->Ho = small->shape[2];
  j->Wo = small->shape[3];
  j->KH = g->kernel[0];
  j->KW = g->kernel[1];
  j->tp = (taps){.src = tl_tensor_data(big), .sh = j->H, .sw = j->W, .sc = j->Cb,
                 .st = {g->stride[0], g->stride[1]}, .off = {-g->padding[0], -g->padding[1]},
                 .step = {g->dilation[0], g->dilation[1]}};
  j->pointwise = j->KH == 1 && j->KW == 1 && g->stride[0] == 1 && g->stride[1] == 1 &&
                 g->padding[0] == 0 && g->padding[1] == 0;
  j->small = tl_tensor_data(small);
  j->unit = unit;
  j->tiles = use_tiles(j);
}

/* The output grid (gh x gw pixels per sample, OC channels), the patch rows
 * and the chunks over it. */
static void set_grid(nhwc_job *j, int64_t gh, int64_t gw, int64_t OC)
{
  j->gw = gw;
  j->L = gh * gw;
  j->OC = OC;
  j->KR = j->KH * j->KW * j->tp.sc;
  int64_t row = j->KR * (int64_t)j->es;
  j->rows = row > 0 ? CHUNK_BYTES / row : j->L;
  j->rows = j->rows < MIN_ROWS ? MIN_ROWS : j->rows / ROW_TILE * ROW_TILE; /* whole tiles */
  j->rows = j->rows > j->L ? j->L : j->rows;
  j->rows = j->rows < 1 ? 1 : j->rows;
  j->chunks = (j->L + j->rows - 1) / j->rows;
  j->units = j->N * j->chunks;
}

/* How a weight matrix lays the weight's (o, c, k) out (o < Cs, c < Cb, k < K). */
typedef enum {
  W_ROWS,    /* (Cs, K, Cb): the scatter's W' */
  W_FORWARD, /* (K, Cb, Cs): conv's */
  W_BACK,    /* (K, Cs, Cb): the stride-1 conv_t's */
} weight_form;

/* The weight (Cs, Cb, KH, KW) of any strides as a weight matrix: the
 * weight's own memory when it is laid out so (W_ROWS of a channels-last
 * weight), else a copy into *owned (small: one pass over the weight).  NULL
 * when out of memory. */
static const char *weight_matrix(const nhwc_job *j, const tl_tensor *weight, weight_form form,
                                 char **owned)
{
  const int64_t *st = weight->strides;
  const char *src = tl_tensor_data(weight);
  int64_t K = j->KH * j->KW, Cs = j->Cs, Cb = j->Cb;
  *owned = NULL;
  if (form == W_ROWS && is_nhwc(weight))
    return src;
  *owned = malloc((size_t)(Cs * K * Cb) * j->es + 1);
  if (!*owned)
    return NULL;
  /* element by element, typed: a memcpy call per element was most of a
   * small convolution's time outside the products (6% of one sample's) */
  for (int64_t o = 0; o < Cs; o++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < Cb; c++) {
        int64_t to = form == W_ROWS      ? (o * K + k) * Cb + c
                     : form == W_FORWARD ? (k * Cb + c) * Cs + o
                                         : (k * Cs + o) * Cb + c;
        int64_t from = o * st[0] + c * st[1] + (k / j->KW) * st[2] + (k % j->KW) * st[3];
        if (j->f64)
          ((double *)*owned)[to] = ((const double *)src)[from];
        else
          ((float *)*owned)[to] = ((const float *)src)[from];
      }
  return *owned;
}

/* Run j's units, each slot with its patch buffer and acc_numel sums
 * (zeroed), in j->scratch for the caller to read and free. */
static tl_status run(nhwc_job *j, int64_t acc_numel)
{
  int64_t t = tl_parallel_get_threads();
  j->slots = t > 1 && j->units >= 2 * t ? t : 1;
  /* a slot's buffer: patch rows, or the tiles' pointers to them (rows x K), or nothing
   * when the source is its own patch rows */
  bool pointers = reads_runs(j);
  int64_t ptrs = j->rows * j->KH * j->KW * (int64_t)((sizeof(void *) + j->es - 1) / j->es);
  j->acc_off = j->pointwise ? 0 : pointers ? ptrs : j->rows * j->KR;
  j->slot_numel = j->acc_off + acc_numel;
  /* the zero run, then the slots, each 64-byte aligned */
  int64_t zero_numel = (j->tp.sc + 15) / 16 * 16;
  j->slot_numel = (j->slot_numel + 15) / 16 * 16;
  j->scratch = aligned_alloc(64, (size_t)(zero_numel + j->slots * j->slot_numel) * j->es + 64);
  if (!j->scratch)
    return tl_error_set(TL_ERR_MEMORY, "convolution: out of memory");
  memset(j->scratch, 0, (size_t)zero_numel * j->es);
  j->zeros = j->scratch;
  j->slots_base = at(j, j->scratch, zero_numel);
  for (int64_t s = 0; s < j->slots && acc_numel; s++)
    memset(at(j, j->slots_base, s * j->slot_numel + j->acc_off), 0, (size_t)acc_numel * j->es);
  tl_unlocked unlocked = tl_parallel_unlock(j->N * j->L * j->KR * j->Cs);
  tl_linalg_parallel_products(j->slots, 1, slots_range, j);
  tl_parallel_relock(&unlocked);
  return TL_OK;
}

/* conv and conv_t: the weight matrix, then every unit (no sums). */
static tl_status run_with_weight(nhwc_job *j, const tl_tensor *weight, weight_form form,
                                 const tl_tensor *bias)
{
  char *owned = NULL;
  tl_status status = TL_OK;
  j->w = weight_matrix(j, weight, form, &owned);
  j->bias = bias ? tl_tensor_data(bias) : NULL;
  if (!j->w) {
    status = tl_error_set(TL_ERR_MEMORY, "convolution: out of memory");
    goto fail;
  }
  status = run(j, 0);
fail:
  free(j->scratch);
  free(owned);
  return status;
}

/* A bias this path reads as it is: absent, or a dense vector of the dtype. */
static bool plain_bias(const tl_tensor *bias, const tl_tensor *out)
{
  return !bias || (bias->dtype == out->dtype && tl_tensor_is_contiguous(bias));
}

tl_status tl_conv_nhwc_conv(const tl_tensor *big, const tl_tensor *weight, const tl_tensor *bias,
                            const tl_nn_conv_geom *g, tl_tensor *small, bool *done)
{
  nhwc_job j = {0};
  *done = fits(g, big, weight, small) && is_nhwc(small) && plain_bias(bias, small);
  if (!*done)
    return TL_OK;
  job_dims(&j, g, big, small, corr_unit);
  set_grid(&j, j.Ho, j.Wo, j.Cs);
  j.out = tl_tensor_data(small);
  return run_with_weight(&j, weight, W_FORWARD, bias);
}

tl_status tl_conv_nhwc_conv_t(const tl_tensor *small, const tl_tensor *weight,
                              const tl_tensor *bias, const tl_nn_conv_geom *g, tl_tensor *big,
                              bool *done)
{
  nhwc_job j = {0};
  *done = fits(g, small, weight, big) && is_nhwc(big) && plain_bias(bias, big);
  if (!*done)
    return TL_OK;
  bool unit_stride = g->stride[0] == 1 && g->stride[1] == 1;
  job_dims(&j, g, big, small, unit_stride ? corr_unit : scatter_unit);
  j.out = tl_tensor_data(big);
  if (!unit_stride) { /* S @ W' scattered into B: parallel by samples */
    set_grid(&j, j.Ho, j.Wo, j.Cb);
    j.units = j.N;
    j.pointwise = false;
    return run_with_weight(&j, weight, W_ROWS, bias);
  }
  /* B's pixel (y, x) gathers S's (y + p - ki*d, x + p - kj*d) */
  j.tp = (taps){.src = j.small, .sh = j.Ho, .sw = j.Wo, .sc = j.Cs, .st = {1, 1},
                .off = {g->padding[0], g->padding[1]},
                .step = {-g->dilation[0], -g->dilation[1]}};
  set_grid(&j, j.H, j.W, j.Cb);
  return run_with_weight(&j, weight, W_BACK, bias);
}

tl_status tl_conv_nhwc_weight(const tl_tensor *small, const tl_tensor *big,
                              const tl_nn_conv_geom *g, tl_tensor *grad_weight, bool *done)
{
  nhwc_job j = {0};
  *done = fits(g, small, big, grad_weight) && is_nhwc(big) &&
          tl_tensor_is_contiguous(grad_weight);
  if (!*done)
    return TL_OK;
  job_dims(&j, g, big, small, weight_unit);
  set_grid(&j, j.Ho, j.Wo, j.Cs);
  int64_t acc = j.Cs * j.KR, K = j.KH * j.KW;
  tl_status status = run(&j, acc);
  if (status != TL_OK)
    goto fail;
  /* the slots' sums into the first, then (Cs, K, Cb) -> grad_weight (Cs, Cb, K) */
  char *sum = at(&j, j.slots_base, j.acc_off);
  for (int64_t s = 1; s < j.slots; s++) {
    const char *p = at(&j, j.slots_base, s * j.slot_numel + j.acc_off);
    for (int64_t i = 0; i < acc; i++) {
      if (j.f64)
        ((double *)sum)[i] += ((const double *)p)[i];
      else
        ((float *)sum)[i] += ((const float *)p)[i];
    }
  }
  char *dst = tl_tensor_data(grad_weight);
  for (int64_t o = 0; o < j.Cs; o++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < j.Cb; c++)
        memcpy(at(&j, dst, (o * j.Cb + c) * K + k), at(&j, sum, (o * K + k) * j.Cb + c), j.es);
fail:
  free(j.scratch);
  return status;
}
