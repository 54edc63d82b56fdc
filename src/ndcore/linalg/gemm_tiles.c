/* gemm_tiles.c - small and medium products as tiles that OpenBLAS runs
 * without packing its operands (tl_linalg.h).
 *
 * OpenBLAS's AVX-512 kernel sets (SkylakeX, Cooperlake, SapphireRapids)
 * have small-matrix kernels that read A and B where they lie; a call above
 * about a million multiply-adds packs both operands into panels first.  For
 * a product with few rows, a recurrent step's 32 x 256 by 256 x 1024, the
 * packing was a third of the call.  Cut into tiles of at most 32 x 64 x 256
 * (rows x columns x depth), every call takes the small kernel.  Measured on
 * one thread of an AVX-512 core (float32, GF/s as one call / as tiles):
 *
 *     M x N x K             one call   tiles
 *     32 x 1024 x 256          67       109
 *     32 x 256 x 1024          84       110
 *     256 x 512 x 784         104       113
 *     1600 x 256 x 1024       102       109
 *     25088 x 64 x 576         71        99
 *     1024 x 1024 x 512       103       105
 *     2048 x 2048 x 2048      103        63   A read again for each 64 columns
 *     4096 x 4096 x 32         67        44   C written again for each call
 *
 * hence the bounds of tl_linalg_gemm_tiles_fit; float64 measured alike
 * (32 x 1024 x 256: 46 / 53).  Only untransposed operands: the transposed
 * small kernels measured slower than packing (32 x 1024 x 256 with B
 * transposed: 75 as tiles). */
#include <stdbool.h>
#include <string.h>

#include "ndcore/linalg/tl_blas.h"
#include "ndcore/linalg/tl_linalg.h"

enum { TILE_M = 32, TILE_N = 64, TILE_K = 256 };

/* OpenBLAS's kernel set has the small-matrix kernels measured above (the
 * others pack every call; tiling would only add calls). */
static bool small_kernels(void)
{
  static int known = -1; /* a race writes the same answer */
  if (known < 0) {
    const char *core = tl_linalg_blas_corename();
    known = core && (strstr(core, "SkylakeX") || strstr(core, "Cooperlake") ||
                     strstr(core, "SapphireRapids"));
  }
  return known == 1;
}

bool tl_linalg_gemm_tiles_fit(bool ta, bool tb, int64_t M, int64_t N, int64_t K)
{
  if (ta || tb || K < 128 || M <= 0 || N <= 0 || !small_kernels())
    return false;
  /* one strip of columns reads A once, however long */
  bool sizes = N <= TILE_N || (double)M * (double)N * (double)K <= (double)(1 << 29);
  /* a product BLAS would thread stays whole: the tiles run on one thread */
  return sizes && tl_linalg_blas_threads() == 1;
}

/* Columns outermost: a strip of B (K x 64) stays in cache while the tiles
 * of rows pass over it. */
void tl_linalg_gemm_tiles(bool f64, double alpha, int64_t M, int64_t N, int64_t K, const void *A,
                          int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                          int64_t ldc)
{
  size_t es = f64 ? sizeof(double) : sizeof(float);
  for (int64_t j = 0; j < N; j += TILE_N) {
    int n = (int)(N - j < TILE_N ? N - j : TILE_N);
    for (int64_t i = 0; i < M; i += TILE_M) {
      int m = (int)(M - i < TILE_M ? M - i : TILE_M);
      char *c = (char *)C + (size_t)(i * ldc + j) * es;
      for (int64_t p = 0; p < K; p += TILE_K) {
        int k = (int)(K - p < TILE_K ? K - p : TILE_K);
        const char *a = (const char *)A + (size_t)(i * lda + p) * es;
        const char *b = (const char *)B + (size_t)(p * ldb + j) * es;
        double bt = p == 0 ? beta : 1.0;
        if (f64)
          TL_BLAS(cblas_dgemm)(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha,
                               (const double *)a, (int)lda, (const double *)b, (int)ldb, bt,
                               (double *)c, (int)ldc);
        else
          TL_BLAS(cblas_sgemm)(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, (float)alpha,
                               (const float *)a, (int)lda, (const float *)b, (int)ldb,
                               (float)bt, (float *)c, (int)ldc);
      }
    }
  }
}
