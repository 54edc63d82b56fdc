/* conv_nhwc.c - 2-d convolutions on channels-last tensors (conv_nhwc.h).
 *
 * Legend as in conv_nhwc.h: B = (N, H, W, Cb) and S = (N, Ho, Wo, Cs) in
 * memory, W' (Cs, KH*KW*Cb) the weight with its channel dim innermost.  The
 * patch rows are made a chunk of output pixels at a time (about CHUNK_BYTES,
 * so that the GEMM reads them back from cache), and the work is split across
 * the thread pool by chunks (conv, weight) or by samples (conv_t, whose
 * chunks of one sample add into the same image), each slot with its own
 * patch buffer and single-threaded products; with one slot the products are
 * OpenBLAS's to thread.                                                    */
#include "nn/conv/conv_nhwc.h"

#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/linalg/tl_linalg.h"
#include "nn/tl_nn_work.h"

/* About this many bytes of patch rows per chunk, but at least MIN_ROWS rows,
 * so that the weight, which the GEMM packs again for every chunk, is reused
 * over enough rows to make that cost negligible. */
enum { CHUNK_BYTES = 1 << 19, MIN_ROWS = 128 };

typedef struct nhwc_job nhwc_job;
typedef void (*unit_fn)(const nhwc_job *j, int64_t unit, char *patches, char *acc);

struct nhwc_job {
  const tl_nn_conv_geom *g;
  bool f64, pointwise, tiles; /* tiles: float work on the AVX-512 tiles */
  size_t es;
  int64_t N, H, W, Ho, Wo, Cb, Cs, KH, KW, KC; /* KC = KH*KW*Cb, a patch row */
  int64_t rows, chunks;                        /* output pixels per chunk; chunks per sample */
  int64_t units, slots;
  const char *big, *small, *w, *wt, *bias; /* W' (Cs, KC), its transpose; bias: NULL or dense */
  char *out;                          /* conv: S, conv_t: B */
  char *scratch;                      /* slots x (rows x KC patches, then Cs x KC sums) */
  int64_t slot_numel, acc_off;        /* a slot's share of scratch; its sums' offset in it */
  unit_fn unit;
};

/* Are t's strides those of a dense (N, H, W, C) block? */
static bool is_nhwc(const tl_tensor *t)
{
  int64_t strides[TL_MAX_DIMS];
  return t->ndim == 4 && tl_format_strides(TL_FORMAT_CHANNELS_LAST, t, strides) == TL_OK &&
         tl_tensor_has_strides(t, strides);
}

/* The geometries and dtypes this path serves (see the header). */
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

static bool cpu_has_avx512(void)
{
  static int has = -1;
  if (has < 0)
    has = __builtin_cpu_supports("avx512f") ? 1 : 0;
  return has == 1;
}

/* c (mr x nv vectors, masks m) (+)= sum over k of a(r, k) * b row k, with
 * a(r, k) = a[r * sai + k * sak]; mr and nv are constants in each caller. */
__attribute__((always_inline, target("avx512f"))) static inline void
tile(int64_t K, const float *a, int64_t sai, int64_t sak, const float *b, int64_t ldb, float *c,
     int64_t ldc, const __mmask16 *m, bool add, const int mr, const int nv)
{
  __m512 acc[MR][NVMAX];
  __mmask16 last = m[nv - 1];
#pragma GCC unroll 6
  for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      acc[r][v] = add ? _mm512_maskz_loadu_ps(m[v], c + r * ldc + v * LANES) : _mm512_setzero_ps();
  for (int64_t k = 0; k < K; k++, b += ldb, a += sak) {
    __m512 bv[NVMAX];
#pragma GCC unroll 4
    for (int v = 0; v < nv - 1; v++) /* only the last vector may be partial */
      bv[v] = _mm512_loadu_ps(b + v * LANES);
    bv[nv - 1] = _mm512_maskz_loadu_ps(last, b + (nv - 1) * LANES);
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
      __m512 x = _mm512_set1_ps(a[r * sai]);
#pragma GCC unroll 4
      for (int v = 0; v < nv; v++)
        acc[r][v] = _mm512_fmadd_ps(x, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++)
      _mm512_mask_storeu_ps(c + r * ldc + v * LANES, m[v], acc[r][v]);
}

typedef void (*tile_fn)(int64_t, const float *, int64_t, int64_t, const float *, int64_t,
                        float *, int64_t, const __mmask16 *, bool);
#define TL_NHWC_TILE(R, V)                                                                      \
  __attribute__((target("avx512f"))) static void tile_##R##_##V(                                \
      int64_t K, const float *a, int64_t sai, int64_t sak, const float *b, int64_t ldb,         \
      float *c, int64_t ldc, const __mmask16 *m, bool add)                                      \
  {                                                                                             \
    tile(K, a, sai, sak, b, ldb, c, ldc, m, add, R, V);                                         \
  }
#define TL_NHWC_TILES(R) TL_NHWC_TILE(R, 1) TL_NHWC_TILE(R, 2) TL_NHWC_TILE(R, 3) TL_NHWC_TILE(R, 4)
TL_NHWC_TILES(1)
TL_NHWC_TILES(2)
TL_NHWC_TILES(3)
TL_NHWC_TILES(4)
TL_NHWC_TILES(5)
TL_NHWC_TILES(6)
#define TL_NHWC_ROW(R) {tile_##R##_1, tile_##R##_2, tile_##R##_3, tile_##R##_4}
static const tile_fn tiles[MR][NVMAX] = {TL_NHWC_ROW(1), TL_NHWC_ROW(2), TL_NHWC_ROW(3),
                                         TL_NHWC_ROW(4), TL_NHWC_ROW(5), TL_NHWC_ROW(6)};

/* c (M x N, ldc) = A @ B (+ c when add), A(i, k) = a[i * sai + k * sak], B
 * (K x N, ldb) row-major: panels of NVMAX vectors of columns, each swept by
 * tiles of MR rows, KBLOCK steps of k at a time. */
static void tiled_gemm(int64_t M, int64_t N, int64_t K, const float *a, int64_t sai, int64_t sak,
                       const float *b, int64_t ldb, bool add, float *c, int64_t ldc)
{
  for (int64_t j0 = 0; j0 < N; j0 += NVMAX * LANES) {
    __mmask16 m[NVMAX];
    int nv = 0;
    for (int64_t j = j0; j < N && nv < NVMAX; j += LANES, nv++)
      m[nv] = N - j >= LANES ? (__mmask16)0xFFFF : (__mmask16)((1u << (N - j)) - 1);
    for (int64_t k0 = 0; k0 < K; k0 += KBLOCK)
      for (int64_t i0 = 0; i0 < M; i0 += MR) {
        int mr = M - i0 < MR ? (int)(M - i0) : MR;
        int64_t kb = K - k0 < KBLOCK ? K - k0 : KBLOCK;
        tiles[mr - 1][nv - 1](kb, a + i0 * sai + k0 * sak, sai, sak, b + k0 * ldb + j0, ldb,
                              c + i0 * ldc + j0, ldc, m, add || k0 > 0);
      }
  }
}
#endif

/* Does float work take the tiles here (else OpenBLAS's GEMM)? */
static bool use_tiles(const nhwc_job *j)
{
#ifdef TL_CONV_NHWC_TILES
  return !j->f64 && cpu_has_avx512();
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

/* The input pixel (hi, wi) of output pixel p's kernel tap (ki, kj), false in
 * the padding. */
static bool tap(const nhwc_job *j, int64_t ho, int64_t wo, int64_t ki, int64_t kj, int64_t *hi,
                int64_t *wi)
{
  const tl_nn_conv_geom *g = j->g;
  *hi = ho * g->stride[0] - g->padding[0] + ki * g->dilation[0];
  *wi = wo * g->stride[1] - g->padding[1] + kj * g->dilation[1];
  return *hi >= 0 && *hi < j->H && *wi >= 0 && *wi < j->W;
}

/* dst (p1 - p0, KC) = the patch rows of sample n's output pixels [p0, p1) */
static void gather(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, char *dst)
{
  size_t run = (size_t)j->Cb * j->es;
  const char *xn = at(j, j->big, n * j->H * j->W * j->Cb);
  for (int64_t p = p0; p < p1; p++) {
    int64_t ho = p / j->Wo, wo = p % j->Wo;
    for (int64_t ki = 0; ki < j->KH; ki++)
      for (int64_t kj = 0; kj < j->KW; kj++, dst += run) {
        int64_t hi, wi;
        if (tap(j, ho, wo, ki, kj, &hi, &wi))
          memcpy(dst, at(j, xn, (hi * j->W + wi) * j->Cb), run);
        else
          memset(dst, 0, run);
      }
  }
}

/* sample n's image += the patch rows src (p1 - p0, KC) of output pixels [p0, p1) */
static void scatter(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, const char *src)
{
  char *xn = at(j, j->out, n * j->H * j->W * j->Cb);
  for (int64_t p = p0; p < p1; p++) {
    int64_t ho = p / j->Wo, wo = p % j->Wo;
    for (int64_t ki = 0; ki < j->KH; ki++)
      for (int64_t kj = 0; kj < j->KW; kj++, src += (size_t)j->Cb * j->es) {
        int64_t hi, wi;
        if (!tap(j, ho, wo, ki, kj, &hi, &wi))
          continue;
        if (j->f64) {
          double *restrict d = at(j, xn, (hi * j->W + wi) * j->Cb);
          const double *restrict s = (const double *)src;
          for (int64_t c = 0; c < j->Cb; c++)
            d[c] += s[c];
        } else {
          float *restrict d = at(j, xn, (hi * j->W + wi) * j->Cb);
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

/* Chunk `unit` of the grid: its sample and output pixels [p0, p1). */
static int64_t unit_pixels(const nhwc_job *j, int64_t unit, int64_t *p0, int64_t *p1)
{
  int64_t L = j->Ho * j->Wo;
  *p0 = (unit % j->chunks) * j->rows;
  *p1 = *p0 + j->rows < L ? *p0 + j->rows : L;
  return unit / j->chunks;
}

/* The patch rows of a chunk: B itself for a 1x1 kernel of stride 1 and no
 * padding (every output pixel is one input pixel), else gathered. */
static const char *patches_of(const nhwc_job *j, int64_t n, int64_t p0, int64_t p1, char *buf)
{
  if (j->pointwise)
    return at(j, j->big, (n * j->H * j->W + p0) * j->Cb);
  gather(j, n, p0, p1, buf);
  return buf;
}

/* ---- the kernels' units ---------------------------------------------------------------- */

/* S rows (R, Cs) = patches (R, KC) @ W'^T + bias */
static void conv_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc)
{
  (void)acc;
  int64_t p0, p1, n = unit_pixels(j, unit, &p0, &p1);
  char *y = at(j, j->out, (n * j->Ho * j->Wo + p0) * j->Cs);
  if (j->bias) /* the product adds to it */
    put_bias(j, y, p1 - p0, j->Cs, false);
  const char *cols = patches_of(j, n, p0, p1, buf);
  product(j, p1 - p0, j->Cs, j->KC, cols, j->KC, 1, j->wt, j->Cs, j->bias != NULL, y, j->Cs);
}

/* B[n] = scatter(S[n] @ W') + bias, one sample (its chunks overlap in B[n]) */
static void conv_t_unit(const nhwc_job *j, int64_t n, char *buf, char *acc)
{
  (void)acc;
  int64_t L = j->Ho * j->Wo, image = j->H * j->W;
  char *xn = at(j, j->out, n * image * j->Cb);
  if (j->pointwise) { /* one input pixel per output pixel: the product is B[n] */
    product(j, L, j->Cb, j->Cs, at(j, j->small, n * L * j->Cs), j->Cs, 1, j->w, j->KC, false, xn,
            j->Cb);
  } else {
    memset(xn, 0, (size_t)(image * j->Cb) * j->es);
    for (int64_t p0 = 0; p0 < L; p0 += j->rows) {
      int64_t p1 = p0 + j->rows < L ? p0 + j->rows : L;
      product(j, p1 - p0, j->KC, j->Cs, at(j, j->small, (n * L + p0) * j->Cs), j->Cs, 1, j->w,
              j->KC, false, buf, j->KC);
      scatter(j, n, p0, p1, buf);
    }
  }
  if (j->bias)
    put_bias(j, xn, image, j->Cb, true);
}

/* the slot's sums (Cs, KC) += S rows^T (Cs, R) @ patches (R, KC) */
static void weight_unit(const nhwc_job *j, int64_t unit, char *buf, char *acc)
{
  int64_t p0, p1, n = unit_pixels(j, unit, &p0, &p1);
  const char *cols = patches_of(j, n, p0, p1, buf);
  product(j, j->Cs, j->KC, p1 - p0, at(j, j->small, (n * j->Ho * j->Wo + p0) * j->Cs), 1, j->Cs,
          cols, j->KC, true, acc, j->KC);
}

static void slots_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const nhwc_job *j = ctx;
  for (int64_t s = begin; s < end; s++) {
    char *mine = at(j, j->scratch, s * j->slot_numel);
    for (int64_t u = s * j->units / j->slots; u < (s + 1) * j->units / j->slots; u++)
      j->unit(j, u, mine, at(j, mine, j->acc_off));
  }
}

/* ---- set-up ---------------------------------------------------------------------------- */

/* The job's sizes from B's and S's shapes (both (N, C, H, W) as indexed). */
static void job_dims(nhwc_job *j, const tl_nn_conv_geom *g, const tl_tensor *big,
                     const tl_tensor *small, unit_fn unit)
{
  j->g = g;
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
  j->KC = j->KH * j->KW * j->Cb;
  j->pointwise = j->KH == 1 && j->KW == 1 && g->stride[0] == 1 && g->stride[1] == 1 &&
                 g->padding[0] == 0 && g->padding[1] == 0;
  int64_t L = j->Ho * j->Wo, row = j->KC * (int64_t)j->es;
  j->rows = row > 0 ? CHUNK_BYTES / row : L;
  j->rows = j->rows < MIN_ROWS ? MIN_ROWS : j->rows;
  j->rows = j->rows > L ? L : j->rows;
  j->rows = j->rows < 1 ? 1 : j->rows;
  j->chunks = (L + j->rows - 1) / j->rows;
  j->unit = unit;
  j->tiles = use_tiles(j);
  j->big = tl_tensor_data(big);
  j->small = tl_tensor_data(small);
}

/* W' (Cs, KH, KW, Cb), or its transpose (KH, KW, Cb, Cs), from the weight
 * (Cs, Cb, KH, KW) of any strides: the weight's own memory when it is laid
 * out so (W' of a channels-last weight), else a copy into *owned (small: one
 * pass over the weight).  NULL when out of memory. */
static const char *weight_rows(const nhwc_job *j, const tl_tensor *weight, bool transpose,
                               char **owned)
{
  const int64_t *st = weight->strides;
  const char *src = tl_tensor_data(weight);
  *owned = NULL;
  if (!transpose && is_nhwc(weight))
    return src;
  *owned = malloc((size_t)(j->Cs * j->KC) * j->es + 1);
  if (!*owned)
    return NULL;
  int64_t K = j->KH * j->KW;
  for (int64_t o = 0; o < j->Cs; o++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < j->Cb; c++) {
        int64_t row = k * j->Cb + c, to = transpose ? row * j->Cs + o : o * j->KC + row;
        int64_t from = o * st[0] + c * st[1] + (k / j->KW) * st[2] + (k % j->KW) * st[3];
        memcpy(*owned + (size_t)to * j->es, src + (size_t)from * j->es, j->es);
      }
  return *owned;
}

/* Run j's units, each slot with its patch buffer and acc_numel sums
 * (zeroed); the sums are the slots' scratch, left for the caller in
 * j->scratch (NULL when the run failed). */
static tl_status run(nhwc_job *j, int64_t acc_numel)
{
  int64_t t = tl_parallel_get_threads();
  j->slots = t > 1 && j->units >= 2 * t ? t : 1;
  /* patch rows are needed unless a 1x1 kernel reads B itself (conv_t always scatters
   * through them, but for a pointwise kernel writes B directly) */
  j->acc_off = j->pointwise ? 0 : j->rows * j->KC;
  j->slot_numel = j->acc_off + acc_numel;
  j->scratch = malloc((size_t)(j->slots * j->slot_numel) * j->es + 1);
  if (!j->scratch)
    return tl_error_set(TL_ERR_MEMORY, "convolution: out of memory");
  for (int64_t s = 0; s < j->slots && acc_numel; s++)
    memset(at(j, j->scratch, s * j->slot_numel + j->acc_off), 0, (size_t)acc_numel * j->es);
  tl_unlocked unlocked = tl_parallel_unlock(j->N * j->Ho * j->Wo * j->Cs * j->KC);
  if (j->slots > 1) {
    tl_linalg_blas_single_begin();
    tl_parallel_for(j->slots, 1, slots_range, j);
    tl_linalg_blas_single_end();
  } else {
    slots_range(j, 0, 1, 0);
  }
  tl_parallel_relock(&unlocked);
  return TL_OK;
}

/* conv and conv_t: W' from the weight, then every unit (no sums). */
static tl_status run_with_weight(nhwc_job *j, const tl_tensor *weight, const tl_tensor *bias)
{
  char *wcopy = NULL;
  tl_status status = TL_OK;
  const char *w = weight_rows(j, weight, j->unit == conv_unit, &wcopy);
  j->bias = bias ? tl_tensor_data(bias) : NULL;
  j->w = j->wt = w; /* conv reads wt, conv_t w */
  if (!w) {
    status = tl_error_set(TL_ERR_MEMORY, "convolution: out of memory");
    goto fail;
  }
  status = run(j, 0);
fail:
  free(j->scratch);
  free(wcopy);
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
  job_dims(&j, g, big, small, conv_unit);
  j.out = tl_tensor_data(small);
  j.units = j.N * j.chunks;
  return run_with_weight(&j, weight, bias);
}

tl_status tl_conv_nhwc_conv_t(const tl_tensor *small, const tl_tensor *weight,
                              const tl_tensor *bias, const tl_nn_conv_geom *g, tl_tensor *big,
                              bool *done)
{
  nhwc_job j = {0};
  *done = fits(g, small, weight, big) && is_nhwc(big) && plain_bias(bias, big);
  if (!*done)
    return TL_OK;
  job_dims(&j, g, big, small, conv_t_unit);
  j.out = tl_tensor_data(big);
  j.units = j.N;
  return run_with_weight(&j, weight, bias);
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
  j.units = j.N * j.chunks;
  int64_t acc = j.Cs * j.KC;
  tl_status status = run(&j, acc);
  if (status != TL_OK)
    goto fail;
  /* the slots' sums into the first, then (Cs, KH, KW, Cb) -> grad_weight (Cs, Cb, KH, KW) */
  char *sum = at(&j, j.scratch, j.acc_off);
  for (int64_t s = 1; s < j.slots; s++) {
    const char *p = at(&j, j.scratch, s * j.slot_numel + j.acc_off);
    for (int64_t i = 0; i < acc; i++) {
      if (j.f64)
        ((double *)sum)[i] += ((const double *)p)[i];
      else
        ((float *)sum)[i] += ((const float *)p)[i];
    }
  }
  char *dst = tl_tensor_data(grad_weight);
  int64_t K = j.KH * j.KW;
  for (int64_t o = 0; o < j.Cs; o++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < j.Cb; c++)
        memcpy(at(&j, dst, (o * j.Cb + c) * K + k), at(&j, sum, (o * K + k) * j.Cb + c), j.es);
fail:
  free(j.scratch);
  return status;
}
