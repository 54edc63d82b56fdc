/* scan.c - cumulative sums and products along one dim (ops.def SCAN).
 *
 * Result dtype as PyTorch: dtype= if given, else int64 for bool/integers,
 * else the input's.  The input is read as the work dtype of that result
 * (int64, double or complex128: float32 scans accumulate in double) and
 * each line is scanned in order; lines are split across the pool.  The
 * work tensor is cast into the result last.  A device's work tensor goes
 * to its scan pass (tl_reduce.h); the rest is the same on every device.
 * On the host, an input already of the work dtype whose lines run along
 * memory is not copied first: its lines are read where they lie and scanned
 * into the contiguous result (scan_gather).                                */
#include <complex.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/kernels/tl_simd_clones.h"

/* Lines side by side (a scan along any dim but the last) are scanned a block
 * of this many at a time: row after row of the block, so memory is walked in
 * order and the adds of independent lines vectorise, each line still summed
 * in its own order (the results are those of one line at a time). */
#define TL_SCAN_BLOCK 512

typedef struct {
  bool prod;
  tl_dtype work;
  int64_t len, inner;  /* the line: elements, and the stride between them */
  int64_t blocks;      /* blocks of side-by-side lines per outer index */
  char *data;          /* the contiguous work tensor, scanned in place */
} scan_job;

/* x: the first of m adjacent lines of n elements, s apart. */
#define TL_SCAN_LINES(NAME, T, ADD, MUL)                                   \
  static void NAME(T *x, int64_t n, int64_t s, int64_t m, bool prod)       \
  {                                                                        \
    if (m == 1) { /* one line: the running value stays in a register */    \
      T run = x[0];                                                        \
      for (int64_t i = 1; i < n; i++)                                      \
        x[i * s] = run = prod ? MUL(run, x[i * s]) : ADD(run, x[i * s]);   \
      return;                                                              \
    }                                                                      \
    for (int64_t i = 1; i < n; i++) {                                      \
      T *row = x + i * s;                                                  \
      const T *above = row - s;                                            \
      if (prod)                                                            \
        for (int64_t j = 0; j < m; j++)                                    \
          row[j] = MUL(above[j], row[j]);                                  \
      else                                                                 \
        for (int64_t j = 0; j < m; j++)                                    \
          row[j] = ADD(above[j], row[j]);                                  \
    }                                                                      \
  }
/* Integer scans wrap, as in NumPy and PyTorch. */
#define TL_IADD(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define TL_IMUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define TL_ADD(a, b) ((a) + (b))
#define TL_MUL(a, b) ((a) * (b))
TL_SCAN_LINES(scan_I64, int64_t, TL_IADD, TL_IMUL)
TL_SCAN_LINES(scan_F64, double, TL_ADD, TL_MUL)
TL_SCAN_LINES(scan_C128, double complex, TL_ADD, TL_MUL)

/* Lines that run along memory (a transposed matrix scanned along dim 0)
 * would otherwise be copied into the result's order first, a transposing
 * copy, then scanned.  Instead a task takes TL_SCAN_M lines side by side in
 * the result and stages TL_SCAN_TI elements of each at a time in a tile,
 * element-major (tile[i][l]): the reads run along each line, the adds run
 * across the lines in vectors, each line still summed in order, element
 * after element (NumPy's result, one line at a time), and the result's rows
 * are written in whole pieces. */
#define TL_SCAN_M 16
#define TL_SCAN_TI 64

typedef struct {
  const char *src;  /* the input's first element */
  int64_t src_step; /* its stride along a line */
  int64_t src_off[TL_SCAN_M]; /* each line's first element, from src */
  int64_t dst_step; /* the result's stride along a line (its lines are side by side) */
  int m;
} scan_lines;

/* The m lines of ln, n elements each, scanned into dst (line l's first
 * element at dst + l).  The full blocks pass the constant TL_SCAN_M as m so
 * that the loops over the lines become whole vectors. */
#define TL_SCAN_GATHER(NAME, T, ADD, MUL)                                            \
  __attribute__((always_inline)) static inline void NAME##_m(                        \
      const scan_lines *ln, T *dst, int64_t n, bool prod, const int m)               \
  {                                                                                  \
    const T *src = (const T *)ln->src;                                               \
    const int64_t s = ln->src_step, ds = ln->dst_step;                               \
    T tile[TL_SCAN_TI][TL_SCAN_M], run[TL_SCAN_M];                                   \
    for (int l = 0; l < m; l++) /* a line's first value is its first element */     \
      run[l] = src[ln->src_off[l]];                                                  \
    for (int64_t i0 = 0; i0 < n; i0 += TL_SCAN_TI) {                                 \
      const int k = n - i0 < TL_SCAN_TI ? (int)(n - i0) : TL_SCAN_TI;                \
      for (int l = 0; l < m; l++) {                                                  \
        const T *line = src + ln->src_off[l] + i0 * s;                               \
        for (int i = 0; i < k; i++)                                                  \
          tile[i][l] = line[i * s];                                                  \
      }                                                                              \
      for (int i = i0 == 0; i < k; i++) {                                            \
        if (prod)                                                                    \
          for (int l = 0; l < m; l++)                                                \
            run[l] = tile[i][l] = MUL(run[l], tile[i][l]);                           \
        else                                                                         \
          for (int l = 0; l < m; l++)                                                \
            run[l] = tile[i][l] = ADD(run[l], tile[i][l]);                           \
      }                                                                              \
      for (int i = 0; i < k; i++) {                                                  \
        T *row = dst + (i0 + i) * ds;                                                \
        for (int l = 0; l < m; l++)                                                  \
          row[l] = tile[i][l];                                                       \
      }                                                                              \
    }                                                                                \
  }                                                                                  \
  TL_SIMD_CLONES static void NAME(const scan_lines *ln, char *dst, int64_t n, bool prod) \
  {                                                                                  \
    if (ln->m == TL_SCAN_M)                                                          \
      NAME##_m(ln, (T *)dst, n, prod, TL_SCAN_M);                                    \
    else                                                                             \
      NAME##_m(ln, (T *)dst, n, prod, ln->m);                                        \
  }
TL_SCAN_GATHER(gather_I64, int64_t, TL_IADD, TL_IMUL)
TL_SCAN_GATHER(gather_F64, double, TL_ADD, TL_MUL)
TL_SCAN_GATHER(gather_C128, double complex, TL_ADD, TL_MUL)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TL_SANITIZE)
#include <immintrin.h>
#define TL_SCAN_AVX512 1

/* The last elements [i0, n) of 16 int64 lines whose running sums after
 * element i0 - 1 are the 16 lanes of run (unless i0 is 0), one by one. */
__attribute__((target("avx512f"))) static void gather_tail_I64(const scan_lines *ln, int64_t *dst,
                                                               int64_t i0, int64_t n,
                                                               const __m512d run[2])
{
  const int64_t *src = (const int64_t *)ln->src;
  int64_t r[TL_SCAN_M];
  if (i0 > 0) {
    _mm512_storeu_pd((double *)r, run[0]);
    _mm512_storeu_pd((double *)r + 8, run[1]);
  }
  for (int64_t i = i0; i < n; i++)
    for (int l = 0; l < TL_SCAN_M; l++) {
      int64_t x = src[ln->src_off[l] + i];
      r[l] = i == 0 ? x : TL_IADD(r[l], x);
      dst[i * ln->dst_step + l] = r[l];
    }
}

/* float64 and int64 on AVX-512F: GCC stages the tile above one scalar load
 * and store an element; here 8 elements of each of 8 lines are loaded as 8 vectors and
 * transposed in registers (24 shuffles), giving 8 vectors of one element of
 * each line, which the running values take in order.  Two groups of 8 lines
 * (TL_SCAN_M), so two chains of dependent adds overlap.  Lines must run
 * along memory (src_step 1); the last n % 8 elements go one by one. */
__attribute__((target("avx512f"))) static inline void transpose8(__m512d r[8])
{
  __m512d t[8], u[8];
  for (int k = 0; k < 4; k++) { /* t[2k]: pairs of even elements, t[2k+1]: odd */
    t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]);
  }
  for (int h = 0; h < 2; h++) { /* rows 4h .. 4h+3: 128-bit lanes 0,2 and 1,3 */
    u[4 * h] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0x88);     /* elements 0, 4 */
    u[4 * h + 1] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0xDD); /* 2, 6 */
    u[4 * h + 2] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0x88); /* 1, 5 */
    u[4 * h + 3] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0xDD); /* 3, 7 */
  }
  r[0] = _mm512_shuffle_f64x2(u[0], u[4], 0x88);
  r[4] = _mm512_shuffle_f64x2(u[0], u[4], 0xDD);
  r[2] = _mm512_shuffle_f64x2(u[1], u[5], 0x88);
  r[6] = _mm512_shuffle_f64x2(u[1], u[5], 0xDD);
  r[1] = _mm512_shuffle_f64x2(u[2], u[6], 0x88);
  r[5] = _mm512_shuffle_f64x2(u[2], u[6], 0xDD);
  r[3] = _mm512_shuffle_f64x2(u[3], u[7], 0x88);
  r[7] = _mm512_shuffle_f64x2(u[3], u[7], 0xDD);
}

/* What the AVX-512 kernel computes: float64 sums and products, int64 sums
 * (an int64 product needs AVX-512DQ's multiply; it keeps the portable loop). */
typedef enum { SCAN_F64_ADD, SCAN_F64_MUL, SCAN_I64_ADD } scan_simd_op;

__attribute__((target("avx512f"))) static inline __m512d scan_step(scan_simd_op op, __m512d a,
                                                                  __m512d b)
{
  switch (op) {
  case SCAN_F64_ADD: return _mm512_add_pd(a, b);
  case SCAN_F64_MUL: return _mm512_mul_pd(a, b);
  default:
    return _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(a), _mm512_castpd_si512(b)));
  }
}

/* 8-byte elements (int64 travel as the bits of doubles: loads, shuffles and
 * stores do not look at them). */
__attribute__((target("avx512f"))) static void gather_avx512(const scan_lines *ln, char *dst_bytes,
                                                             int64_t n, scan_simd_op op)
{
  const double *src = (const double *)ln->src;
  double *dst = (double *)dst_bytes;
  const int64_t ds = ln->dst_step;
  __m512d run[2];
  int64_t i0 = 0;
  for (; i0 + 8 <= n; i0 += 8) {
    __m512d v[2][8];
    for (int g = 0; g < 2; g++) {
      for (int l = 0; l < 8; l++)
        v[g][l] = _mm512_loadu_pd(src + ln->src_off[8 * g + l] + i0);
      transpose8(v[g]);
    }
    int i = 0;
    if (i0 == 0) { /* a line's first value is its first element */
      run[0] = v[0][0], run[1] = v[1][0];
      i = 1;
    }
    for (; i < 8; i++)
      for (int g = 0; g < 2; g++)
        v[g][i] = run[g] = scan_step(op, run[g], v[g][i]);
    for (i = 0; i < 8; i++) {
      _mm512_storeu_pd(dst + (i0 + i) * ds, v[0][i]);
      _mm512_storeu_pd(dst + (i0 + i) * ds + 8, v[1][i]);
    }
  }
  if (i0 == n)
    return;
  if (op == SCAN_I64_ADD) {
    gather_tail_I64(ln, (int64_t *)dst, i0, n, run);
    return;
  }
  double r[TL_SCAN_M];
  if (i0 > 0) {
    _mm512_storeu_pd(r, run[0]);
    _mm512_storeu_pd(r + 8, run[1]);
  }
  for (int64_t i = i0; i < n; i++)
    for (int l = 0; l < TL_SCAN_M; l++) {
      double x = src[ln->src_off[l] + i];
      r[l] = i == 0 ? x : op == SCAN_F64_MUL ? r[l] * x : r[l] + x;
      dst[i * ds + l] = r[l];
    }
}

/* complex128 sums: 4 elements of each of 4 lines (a 128-bit complex each)
 * transposed in registers, four groups of 4 lines (TL_SCAN_M).  A complex
 * sum adds the real and the imaginary parts apart, so a vector add of the
 * doubles is C's complex add. */
__attribute__((target("avx512f"))) static inline void transpose4c(__m512d r[4])
{
  __m512d t0 = _mm512_shuffle_f64x2(r[0], r[1], 0x44); /* r0.c0 r0.c1 r1.c0 r1.c1 */
  __m512d t1 = _mm512_shuffle_f64x2(r[0], r[1], 0xEE); /* r0.c2 r0.c3 r1.c2 r1.c3 */
  __m512d t2 = _mm512_shuffle_f64x2(r[2], r[3], 0x44);
  __m512d t3 = _mm512_shuffle_f64x2(r[2], r[3], 0xEE);
  r[0] = _mm512_shuffle_f64x2(t0, t2, 0x88); /* element 0 of lines 0..3 */
  r[1] = _mm512_shuffle_f64x2(t0, t2, 0xDD);
  r[2] = _mm512_shuffle_f64x2(t1, t3, 0x88);
  r[3] = _mm512_shuffle_f64x2(t1, t3, 0xDD);
}

__attribute__((target("avx512f"))) static void gather_C128_sum_avx512(const scan_lines *ln,
                                                                      char *dst_bytes, int64_t n)
{
  const double *src = (const double *)ln->src; /* complex element e: src[2e], src[2e + 1] */
  double *dst = (double *)dst_bytes;
  const int64_t ds = 2 * ln->dst_step;
  __m512d run[4];
  int64_t i0 = 0;
  for (; i0 + 4 <= n; i0 += 4) {
    __m512d v[4][4];
    for (int g = 0; g < 4; g++) {
      for (int l = 0; l < 4; l++)
        v[g][l] = _mm512_loadu_pd(src + 2 * (ln->src_off[4 * g + l] + i0));
      transpose4c(v[g]);
    }
    int i = 0;
    if (i0 == 0) { /* a line's first value is its first element */
      for (int g = 0; g < 4; g++)
        run[g] = v[g][0];
      i = 1;
    }
    for (; i < 4; i++)
      for (int g = 0; g < 4; g++)
        v[g][i] = run[g] = _mm512_add_pd(run[g], v[g][i]);
    for (i = 0; i < 4; i++)
      for (int g = 0; g < 4; g++)
        _mm512_storeu_pd(dst + (i0 + i) * ds + 8 * g, v[g][i]);
  }
  double r[2 * TL_SCAN_M];
  if (i0 > 0)
    for (int g = 0; g < 4; g++)
      _mm512_storeu_pd(r + 8 * g, run[g]);
  for (int64_t i = i0; i < n; i++)
    for (int l = 0; l < TL_SCAN_M; l++)
      for (int part = 0; part < 2; part++) {
        double x = src[2 * (ln->src_off[l] + i) + part];
        r[2 * l + part] = i == 0 ? x : r[2 * l + part] + x;
        dst[i * ds + 2 * l + part] = r[2 * l + part];
      }
}

#else
#define TL_SCAN_AVX512 0
#endif

typedef struct {
  bool prod;
  const tl_tensor *in;
  int dim;
  int64_t len, inner, blocks; /* blocks: tasks per outer index */
  char *dst;                  /* the contiguous result */
} gather_job;

/* The input's offset of the first element of line (outer, j): outer
 * unravels over the dims before `dim`, j over those after it. */
static int64_t line_offset(const tl_tensor *in, int dim, int64_t outer, int64_t j)
{
  int64_t off = 0;
  for (int d = in->ndim - 1; d > dim; d--) {
    off += j % in->shape[d] * in->strides[d];
    j /= in->shape[d];
  }
  for (int d = dim - 1; d >= 0; d--) {
    off += outer % in->shape[d] * in->strides[d];
    outer /= in->shape[d];
  }
  return off;
}

/* Tasks: (outer index, block of TL_SCAN_M lines). */
static void scan_gather_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const gather_job *job = ctx;
  const tl_tensor *in = job->in;
  size_t size = tl_dtype_size(in->dtype);
  scan_lines ln = {.src = tl_tensor_data(in), .src_step = in->strides[job->dim],
                   .dst_step = job->inner};
  for (int64_t task = begin; task < end; task++) {
    int64_t outer = task / job->blocks, j0 = task % job->blocks * TL_SCAN_M;
    ln.m = (int)(job->inner - j0 < TL_SCAN_M ? job->inner - j0 : TL_SCAN_M);
    for (int l = 0; l < ln.m; l++)
      ln.src_off[l] = line_offset(in, job->dim, outer, j0 + l);
    char *dst = job->dst + (size_t)(outer * job->len * job->inner + j0) * size;
    switch (in->dtype) {
    case TL_DTYPE_I64:
#if TL_SCAN_AVX512
      if (ln.m == TL_SCAN_M && ln.src_step == 1 && !job->prod && tl_cpu_has_avx512()) {
        gather_avx512(&ln, dst, job->len, SCAN_I64_ADD);
        break;
      }
#endif
      gather_I64(&ln, dst, job->len, job->prod);
      break;
    case TL_DTYPE_F64:
#if TL_SCAN_AVX512
      if (ln.m == TL_SCAN_M && ln.src_step == 1 && tl_cpu_has_avx512()) {
        gather_avx512(&ln, dst, job->len, job->prod ? SCAN_F64_MUL : SCAN_F64_ADD);
        break;
      }
#endif
      gather_F64(&ln, dst, job->len, job->prod);
      break;
    default:
#if TL_SCAN_AVX512
      if (ln.m == TL_SCAN_M && ln.src_step == 1 && !job->prod && tl_cpu_has_avx512()) {
        gather_C128_sum_avx512(&ln, dst, job->len);
        break;
      }
#endif
      gather_C128(&ln, dst, job->len, job->prod);
      break;
    }
  }
}

/* Whether the scan of `in` (of the work dtype, in host memory) along dim
 * reads its lines along memory into side-by-side lines of the result. */
static bool scan_gathers(const tl_tensor *in, int dim, int64_t len, int64_t inner)
{
  return in->ndim > 0 && in->strides[dim] == 1 && len > 1 && inner > 1 &&
         tl_dispatch_host_memory(tl_tensor_device(in));
}

/* acc (contiguous, in's shape and dtype) = the scan of in along dim. */
static void scan_gather(bool prod, const tl_tensor *in, int dim, int64_t len, int64_t inner,
                        tl_tensor *acc)
{
  gather_job job = {.prod = prod, .in = in, .dim = dim, .len = len, .inner = inner,
                    .blocks = (inner + TL_SCAN_M - 1) / TL_SCAN_M, .dst = tl_tensor_data(acc)};
  int64_t tasks = tl_tensor_numel(in) / len / inner * job.blocks;
  int64_t grain = 32768 / (len * TL_SCAN_M);
  tl_parallel_for(tasks, grain > 1 ? grain : 1, scan_gather_range, &job);
}

/* Tasks: (outer index, block of lines). */
static void scan_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const scan_job *job = ctx;
  for (int64_t task = begin; task < end; task++) {
    int64_t outer = task / job->blocks, j0 = task % job->blocks * TL_SCAN_BLOCK;
    int64_t m = job->inner - j0 < TL_SCAN_BLOCK ? job->inner - j0 : TL_SCAN_BLOCK;
    int64_t first = outer * job->len * job->inner + j0;
    switch (job->work) {
    case TL_DTYPE_I64:
      scan_I64((int64_t *)job->data + first, job->len, job->inner, m, job->prod);
      break;
    case TL_DTYPE_F64:
      scan_F64((double *)job->data + first, job->len, job->inner, m, job->prod);
      break;
    default:
      scan_C128((double complex *)job->data + first, job->len, job->inner, m, job->prod);
      break;
    }
  }
}

tl_scan_fn tl_scan_device[TL_DEVICE_COUNT];

tl_status tl_scan_pass(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  tl_device device = tl_tensor_device(work);
  if (!tl_dispatch_host_memory(device)) {
    tl_scan_fn pass = tl_scan_device[device.type];
    if (!pass)
      return tl_dispatch_no_kernel(prod ? "cumprod" : "cumsum", device, work->dtype);
    return pass(prod, work, len, inner);
  }
  scan_job job = {.prod = prod, .work = work->dtype, .data = tl_tensor_data(work), .len = len,
                  .inner = inner, .blocks = (inner + TL_SCAN_BLOCK - 1) / TL_SCAN_BLOCK};
  int64_t numel = tl_tensor_numel(work);
  if (numel > 0 && len > 1) {
    int64_t per_task = len * (inner < TL_SCAN_BLOCK ? inner : TL_SCAN_BLOCK);
    int64_t grain = 32768 / per_task;
    tl_parallel_for(numel / len / inner * job.blocks, grain > 1 ? grain : 1, scan_range, &job);
  }
  return TL_OK;
}

tl_status tl_cpu_op_scan(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out)
{
  const char *name = tl_op_infos[op].name;
  tl_dtype d = in->dtype;
  tl_dtype result = dtype >= 0 ? (tl_dtype)dtype : tl_dtype_is_integral(d) ? TL_DTYPE_I64 : d;
  tl_dtype work = tl_dtype_is_integral(result)  ? TL_DTYPE_I64
                  : tl_dtype_is_complex(result) ? TL_DTYPE_C128
                                                : TL_DTYPE_F64;
  int w;
  if (tl_dim_wrap(dim, in->ndim, &w) != TL_OK)
    return tl_error_status();
  if (out->storage) {
    char so[256], si[256];
    if (out->ndim != in->ndim || memcmp(out->shape, in->shape, (size_t)in->ndim * sizeof *in->shape))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): output with shape %s doesn't match the input "
                                          "shape %s", name,
                          tl_shape_str(so, sizeof so, out->ndim, out->shape),
                          tl_shape_str(si, sizeof si, in->ndim, in->shape));
    if (!tl_can_cast(result, out->dtype))
      return tl_error_set(TL_ERR_RUNTIME, "%s(): result type %s can't be cast to the desired "
                                          "output type %s", name, tl_dtype_names[result],
                          tl_dtype_names[out->dtype]);
  }
  /* The input, read as the result dtype first (dtype= casts the input, as in
   * PyTorch), then widened to the work dtype. */
  tl_tensor as_result = {0}, acc = {0};
  const tl_tensor *src = in;
  tl_status status = TL_OK;
  int64_t len = in->ndim ? in->shape[w] : 1, inner = 1;
  for (int i = w + 1; i < in->ndim; i++)
    inner *= in->shape[i];
  if (d == work && tl_tensor_numel(in) > 0 && scan_gathers(in, w, len, inner)) {
    if (tl_tensor_empty(&acc, work, in->ndim, in->shape, tl_tensor_device(in)) != TL_OK)
      return tl_error_status();
    scan_gather(op == TL_OP_CUMPROD, in, w, len, inner, &acc);
    goto scanned;
  }
  if (d != result && result != work) {
    if ((status = tl_tensor_to_dtype(&as_result, in, result)) != TL_OK)
      return status;
    src = &as_result;
  }
  status = tl_tensor_to_dtype(&acc, src, work);
  if (as_result.storage)
    tl_tensor_release(&as_result);
  if (status != TL_OK)
    return status;
  if ((status = tl_scan_pass(op == TL_OP_CUMPROD, &acc, len, inner)) != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
scanned:
  if (!out->storage) {
    if (work == result) {
      *out = acc;
      return TL_OK;
    }
    status = tl_tensor_to_dtype(out, &acc, result);
  } else {
    status = tl_tensor_copy(out, &acc);
  }
  tl_tensor_release(&acc);
  return status;
}
