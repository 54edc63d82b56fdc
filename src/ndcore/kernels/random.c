/* random.c - Philox4x32-10 and the CPU sampling kernels.
 *
 * Every kernel follows the counter mapping of tl_random.h: value v of a draw
 * reads block offset + v / per, slot v % per, so results do not depend on the
 * thread count or on how the work is split.  Values are produced in chunks of
 * CHUNK as float64 (or int64 for integers), then stored with one dtype switch
 * per chunk.  Non-contiguous outputs are drawn into a contiguous buffer and
 * copied, so a value's index is always its row-major position.            */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "gpu/random/tl_philox.h"
#include "ndcore/kernels/tl_random.h"
#include "ndcore/kernels/tl_random_args.h"
#include "ndcore/kernels/tl_simd_clones.h"

__extension__ typedef unsigned __int128 tl_u128;


/* ---- Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3") ---- */

void tl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
  tl_px_block4((uint64_t)key[1] << 32 | key[0], ctr[0], ctr[1], ctr[2], ctr[3], out);
}

/* The four words of one counter block. */
static inline void philox_block(uint64_t seed, uint64_t counter, uint32_t w[4])
{
  tl_px_block(seed, counter, w);
}


/* ---- generators ---------------------------------------------------------------- */

static void generator_lock(tl_generator *g)
{
  while (__atomic_test_and_set(&g->lock, __ATOMIC_ACQUIRE))
    sched_yield(); /* the holder is between two stores; let it finish */
}

static void generator_unlock(tl_generator *g) { __atomic_clear(&g->lock, __ATOMIC_RELEASE); }

void tl_generator_init(tl_generator *g, uint64_t seed)
{
  generator_lock(g);
  g->seed = seed;
  g->offset = 0;
  generator_unlock(g);
}

uint64_t tl_generator_initial_seed(tl_generator *g)
{
  generator_lock(g);
  uint64_t seed = g->seed;
  generator_unlock(g);
  return seed;
}

uint64_t tl_random_nondeterministic_seed(void)
{
  uint64_t s;
  if (getrandom(&s, sizeof s, GRND_NONBLOCK) == (ssize_t)sizeof s)
    return s;
  struct timespec ts; /* no entropy source: mix the clock and an address */
  clock_gettime(CLOCK_REALTIME, &ts);
  s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&ts;
  return s * 0x9E3779B97F4A7C15ull;
}

static void put_u64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

void tl_generator_get_state(tl_generator *g, uint8_t state[TL_GENERATOR_STATE_SIZE])
{
  generator_lock(g);
  put_u64(state, g->seed);
  put_u64(state + 8, g->offset);
  generator_unlock(g);
}

void tl_generator_set_state(tl_generator *g, const uint8_t state[TL_GENERATOR_STATE_SIZE])
{
  generator_lock(g);
  g->seed = get_u64(state);
  g->offset = get_u64(state + 8);
  generator_unlock(g);
}

/* Hand out the next `blocks` counters and the seed they go with, together:
 * a reseed on another thread lands wholly before or after. */
static uint64_t reserve(tl_generator *g, uint64_t blocks, uint64_t *seed)
{
  generator_lock(g);
  uint64_t first = g->offset;
  g->offset += blocks;
  *seed = g->seed;
  generator_unlock(g);
  return first;
}

uint64_t tl_generator_reserve(tl_generator *g, uint64_t blocks, uint64_t *seed)
{
  return reserve(g, blocks, seed);
}

/* ---- words to numbers: tl_philox.h's, shared with the GPU ------------------------ */

/* Box-Muller: two independent standard normals from u1 in (0, 1), u2 in [0, 1). */
static inline void box_muller(double u1, double u2, double *z0, double *z1)
{
  double r = sqrt(-2.0 * log(u1)), theta = 2.0 * M_PI * u2;
  *z0 = r * cos(theta);
  *z1 = r * sin(theta);
}

/* ---- the fill kernel ----------------------------------------------------------------- */

#define CHUNK 512 /* values per store; a multiple of every `per` */

typedef struct {
  tl_random_dist d;
  tl_dtype store; /* dtype values are stored as (a complex output's real dtype) */
  char *dst;      /* contiguous output */
  int64_t n;      /* values to produce (twice the numel for complex outputs) */
  int pshift;     /* value index >> pshift = parameter index (1 for complex) */
  int per;        /* values per counter block */
  int bits;       /* precision of narrow uniforms */
  bool wide;
  double scale_b; /* multiplies b (normal on complex: 1/sqrt(2)) */
  uint64_t seed, first;
} fill_ctx;

/* Box-Muller on npairs pairs: pair p takes words 2p, 2p+1 (narrow, in
 * float32) or 4p .. 4p+3 (wide, in double) and gives out[2p], out[2p+1].
 * The arithmetic is tl_philox.h's, shared with the CUDA kernels, so that a
 * GPU draw is bit-identical to this one; the loops are branch-free and
 * vectorize (TL_SIMD_CLONES: AVX-512 where the machine has it). */
TL_SIMD_CLONES static void normal_pairs(const uint32_t *w, int npairs, bool wide, double *out)
{
  if (!wide) {
    float z0[CHUNK / 2], z1[CHUNK / 2];
#pragma omp simd
    for (int p = 0; p < npairs; p++)
      tl_px_normal_pair_narrow(w[2 * p], w[2 * p + 1], &z0[p], &z1[p]);
    for (int p = 0; p < npairs; p++) {
      out[2 * p] = z0[p];
      out[2 * p + 1] = z1[p];
    }
    return;
  }
  double u1[CHUNK / 2], u2[CHUNK / 2], z0[CHUNK / 2], z1[CHUNK / 2];
  for (int p = 0; p < npairs; p++)
    tl_px_pair_uniforms(w + 4 * p, &u1[p], &u2[p]);
#pragma omp simd
  for (int p = 0; p < npairs; p++)
    tl_px_box_muller(u1[p], u2[p], &z0[p], &z1[p]);
  for (int p = 0; p < npairs; p++) {
    out[2 * p] = z0[p];
    out[2 * p + 1] = z1[p];
  }
}

static inline double param(const double *p, double fallback, int64_t e)
{
  return p ? p[e] : fallback;
}

/* Values [v0, v0 + count) of the draw (v0 a multiple of c->per) into out, or
 * iout for integers.  Raw words first, then one loop per distribution. */
TL_SIMD_CLONES static void gen_chunk(const fill_ctx *c, int64_t v0, int count, double *out,
                                     int64_t *iout)
{
  const tl_random_dist *d = &c->d;
  uint32_t w[4 * CHUNK / 2];
  tl_philox_words(c->seed, c->first + (uint64_t)(v0 / c->per), (count + c->per - 1) / c->per, w);
  const int shift = 32 - c->bits;
  const double scale = ldexp(1.0, -c->bits);
  const int ps = c->pshift;
  switch (d->kind) {
  case TL_RANDOM_INTEGER: {
    const uint64_t range = d->range, low = (uint64_t)d->low;
    if (range != 0 && range <= UINT32_MAX) {
      /* The high word of x * range from two 32 x 32 -> 64 products (x's
       * halves times range; neither sum can wrap), which vectorise where
       * the 64 x 64 -> 128 multiply is one scalar instruction a value.
       * floor((h 2^32 + l) r / 2^64) = floor((h r + floor(l r / 2^32)) / 2^32). */
      const uint32_t r = (uint32_t)range;
      for (int j = 0; j < count; j++) {
        uint64_t x = tl_px_wide(w + 2 * j);
        uint64_t hi = (uint64_t)(uint32_t)(x >> 32) * r, lo = (uint64_t)(uint32_t)x * r;
        iout[j] = (int64_t)(low + ((hi + (lo >> 32)) >> 32));
      }
      return;
    }
    for (int j = 0; j < count; j++) {
      uint64_t x = tl_px_wide(w + 2 * j);
      iout[j] = (int64_t)(low + (range ? (uint64_t)(((tl_u128)x * range) >> 64) : x));
    }
    return;
  }
  case TL_RANDOM_BERNOULLI:
    for (int j = 0; j < count; j++)
      out[j] = (double)w[j] * 0x1p-32 < param(d->pa, d->a, (v0 + j) >> ps);
    return;
  case TL_RANDOM_UNIFORM:
    if (!d->pa && !d->pb) { /* one pass; the same operations as below */
      const double a = d->a, span = d->b - d->a;
      if (c->wide) {
        for (int j = 0; j < count; j++)
          out[j] = a + span * tl_px_unit_wide(tl_px_wide(w + 2 * j));
      } else { /* bits <= 24: w >> shift fits an int32, which converts in vectors */
        for (int j = 0; j < count; j++)
          out[j] = a + span * ((double)(int32_t)(w[j] >> shift) * scale);
      }
      return;
    }
    if (c->wide) {
      for (int j = 0; j < count; j++)
        out[j] = tl_px_unit_wide(tl_px_wide(w + 2 * j));
    } else {
      for (int j = 0; j < count; j++)
        out[j] = (double)(w[j] >> shift) * scale;
    }
    for (int j = 0; j < count; j++) {
      double a = param(d->pa, d->a, (v0 + j) >> ps);
      out[j] = a + (param(d->pb, d->b, (v0 + j) >> ps) - a) * out[j];
    }
    return;
  case TL_RANDOM_NORMAL:
  case TL_RANDOM_LOG_NORMAL:
    normal_pairs(w, (count + 1) / 2, c->wide, out);
    for (int j = 0; j < count; j++) {
      double x = param(d->pa, d->a, (v0 + j) >> ps) +
                 param(d->pb, d->b, (v0 + j) >> ps) * c->scale_b * out[j];
      out[j] = d->kind == TL_RANDOM_LOG_NORMAL ? exp(x) : x;
    }
    return;
  default: /* the rest invert a CDF at an open uniform */
    for (int j = 0; j < count; j++) {
      double u = c->wide ? tl_px_open_wide(tl_px_wide(w + 2 * j)) : tl_px_open_narrow(w[j]);
      double a = param(d->pa, d->a, (v0 + j) >> ps), b = param(d->pb, d->b, (v0 + j) >> ps);
      switch (d->kind) {
      case TL_RANDOM_EXPONENTIAL: out[j] = tl_px_div(-tl_px_log(u), a); break;
      case TL_RANDOM_CAUCHY: out[j] = a + b * tan(M_PI * (u - 0.5)); break;
      default: out[j] = a >= 1.0 ? 1.0 : ceil(log(u) / log1p(-a)); break; /* GEOMETRIC */
      }
    }
  }
}

/* One case of store_doubles/store_ints: n values of v into dtype's elements
 * (SIZE bytes each: a constant, so that the loops vectorise). */
#define STORE_CASE(DTYPE, STORE, T, SIZE)                                                  \
  case DTYPE:                                                                              \
    for (int i = 0; i < n; i++)                                                            \
      STORE(dst + (size_t)i * SIZE, (T)v[i]);                                              \
    break;
#define STORE_CASES                                                                        \
  STORE_CASE(TL_DTYPE_U8, tl_store_U8, uint8_t, 1)                                         \
  STORE_CASE(TL_DTYPE_U16, tl_store_U16, uint16_t, 2)                                      \
  STORE_CASE(TL_DTYPE_U32, tl_store_U32, uint32_t, 4)                                      \
  STORE_CASE(TL_DTYPE_U64, tl_store_U64, uint64_t, 8)                                      \
  STORE_CASE(TL_DTYPE_I8, tl_store_I8, int8_t, 1)                                          \
  STORE_CASE(TL_DTYPE_I16, tl_store_I16, int16_t, 2)                                       \
  STORE_CASE(TL_DTYPE_I32, tl_store_I32, int32_t, 4)                                       \
  STORE_CASE(TL_DTYPE_I64, tl_store_I64, int64_t, 8)                                       \
  STORE_CASE(TL_DTYPE_F16, tl_store_F16, float, 2)                                         \
  STORE_CASE(TL_DTYPE_BF16, tl_store_BF16, float, 2)                                       \
  STORE_CASE(TL_DTYPE_F32, tl_store_F32, float, 4)                                         \
  STORE_CASE(TL_DTYPE_F64, tl_store_F64, double, 8)

TL_SIMD_CLONES static void store_doubles(tl_dtype dtype, char *dst, const double *v, int n)
{
  switch (dtype) {
  case TL_DTYPE_BOOL:
    for (int i = 0; i < n; i++)
      tl_store_BOOL(dst + i, v[i] != 0);
    break;
  STORE_CASES
  default: break; /* complex outputs are stored through their real dtype */
  }
}

TL_SIMD_CLONES static void store_ints(tl_dtype dtype, char *dst, const int64_t *v, int n)
{
  switch (dtype) {
  case TL_DTYPE_BOOL:
    for (int i = 0; i < n; i++)
      tl_store_BOOL(dst + i, v[i] != 0);
    break;
  STORE_CASES
  default: break;
  }
}
#undef STORE_CASES
#undef STORE_CASE

/* Chunks [begin, end): chunk k holds values [k * CHUNK, (k + 1) * CHUNK).
 * Work is split by whole chunks, so every value is computed by the same
 * code path (vector body or scalar tail) whatever the thread count. */
static void fill_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const fill_ctx *c = ctx;
  size_t size = tl_dtype_size(c->store);
  double buf[CHUNK];
  int64_t ibuf[CHUNK];
  /* float64 and int64 outputs take the values in place, with no copy; but
   * not an odd tail of normals, whose last pair would write past the end */
  bool integer = c->d.kind == TL_RANDOM_INTEGER, aligned = (uintptr_t)c->dst % 8 == 0;
  bool pairs = c->d.kind == TL_RANDOM_NORMAL || c->d.kind == TL_RANDOM_LOG_NORMAL;
  bool direct = aligned && c->store == (integer ? TL_DTYPE_I64 : TL_DTYPE_F64);
  for (int64_t k = begin; k < end; k++) {
    int64_t v = k * CHUNK;
    int count = c->n - v < CHUNK ? (int)(c->n - v) : CHUNK;
    if (direct && !(pairs && count % 2)) {
      gen_chunk(c, v, count, (double *)c->dst + v, (int64_t *)c->dst + v);
      continue;
    }
    gen_chunk(c, v, count, buf, ibuf);
    if (integer)
      store_ints(c->store, c->dst + (size_t)v * size, ibuf, count);
    else
      store_doubles(c->store, c->dst + (size_t)v * size, buf, count);
  }
}

/* ---- checks ------------------------------------------------------------------------------ */

static const char *kind_name(tl_random_kind k)
{
  static const char *const names[] = {"uniform_", "normal", "random_", "bernoulli",
                                      "exponential_", "cauchy_", "log_normal_", "geometric_"};
  return names[k];
}

/* Mantissa digits: the integers a float dtype holds exactly reach 2^digits. */
static int float_digits(tl_dtype d)
{
  switch (d) {
  case TL_DTYPE_F16: return 11;
  case TL_DTYPE_BF16: return 8;
  case TL_DTYPE_F32: return 24;
  default: return 53;
  }
}

int64_t tl_random_dtype_max(tl_dtype dtype)
{
  switch (dtype) {
  case TL_DTYPE_BOOL: return 1;
  case TL_DTYPE_U8: return UINT8_MAX;
  case TL_DTYPE_U16: return UINT16_MAX;
  case TL_DTYPE_U32: return UINT32_MAX;
  case TL_DTYPE_U64: return INT64_MAX; /* bounds are int64: uint64's upper half is out of reach */
  case TL_DTYPE_I8: return INT8_MAX;
  case TL_DTYPE_I16: return INT16_MAX;
  case TL_DTYPE_I32: return INT32_MAX;
  case TL_DTYPE_I64: return INT64_MAX;
  default: return (int64_t)1 << float_digits(dtype);
  }
}

/* A dtype the distribution has no kernel for, refused in PyTorch's words: the
 * name of its CPU kernel's dtype switch (NotImplementedError; the same name on
 * every device), or for the exponential and Cauchy distributions their own
 * sentence (RuntimeError), or random_'s bounds check's for complex. */
static tl_status check_dtype(const tl_random_dist *d, tl_dtype dtype)
{
  const char *kernel = NULL;
  bool integral = tl_dtype_is_integral(dtype), is_float = tl_dtype_is_float(dtype);
  switch (d->kind) {
  case TL_RANDOM_UNIFORM: kernel = integral ? "check_uniform_bounds" : NULL; break;
  case TL_RANDOM_NORMAL: kernel = integral ? "normal_kernel_cpu" : NULL; break;
  case TL_RANDOM_LOG_NORMAL: kernel = !is_float ? "log_normal_cpu" : NULL; break;
  case TL_RANDOM_GEOMETRIC:
    kernel = tl_dtype_is_complex(dtype) || dtype == TL_DTYPE_BOOL ? "geometric_cpu" : NULL;
    break;
  case TL_RANDOM_BERNOULLI: /* probabilities per element (a tensor p) or one number */
    kernel = !tl_dtype_is_complex(dtype) ? NULL
             : d->pa ? "bernoulli_tensor_cpu_self_" : "bernoulli_scalar_cpu_";
    break;
  case TL_RANDOM_EXPONENTIAL:
  case TL_RANDOM_CAUCHY:
    if (!is_float)
      return tl_error_set(TL_ERR_RUNTIME, "%s distribution is a continuous probability "
                          "distribution. dtype must be a floating point but you specified %s",
                          d->kind == TL_RANDOM_CAUCHY ? "Cauchy" : "Exponential",
                          d->kind == TL_RANDOM_CAUCHY ? tl_dtype_cpp_name(dtype)
                                                      : tl_dtype_scalar_name(dtype));
    break;
  case TL_RANDOM_INTEGER:
    if (tl_dtype_is_complex(dtype))
      return tl_error_set(TL_ERR_RUNTIME, "check_random_bounds handles only integral, "
                          "floating-point and boolean types");
    break;
  }
  if (kernel)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
                        tl_dtype_scalar_name(dtype));
  if (d->kind != TL_RANDOM_INTEGER)
    return TL_OK;
  /* [low, low + range - 1] must be values of the dtype. */
  uint64_t last = (uint64_t)d->low + (d->range - 1); /* wraps correctly for range 0 = 2^64 */
  int64_t hi = tl_random_dtype_max(dtype);
  tl_kind kind = tl_dtype_kind(dtype);
  int64_t lo = kind == TL_KIND_BOOL || kind == TL_KIND_UINT ? 0 : -hi - !tl_dtype_is_float(dtype);
  bool fits = d->range != 0 ? d->low >= lo && d->low <= hi &&
                                  d->range - 1 <= (uint64_t)hi - (uint64_t)d->low
                            : dtype == TL_DTYPE_I64 && d->low == INT64_MIN;
  /* a float dtype holds every integer of its range only up to 2^digits:
   * PyTorch draws past it with a warning (the binding gives it) */
  if (!fits && !tl_dtype_is_float(dtype))
    return tl_error_set(TL_ERR_RUNTIME, "random_ expects 'from' and 'to' - 1 to be in [%lld, "
                        "%lld] for dtype %s, but got from=%lld, to - 1=%lld", (long long)lo,
                        (long long)hi, tl_dtype_names[dtype], (long long)d->low,
                        (long long)(int64_t)last);
  return TL_OK;
}

/* The parameter rule of each distribution, applied to x = a (or b). */
static tl_status check_param(tl_random_kind k, double a, double b)
{
  switch (k) {
  case TL_RANDOM_UNIFORM:
    if (isfinite(a) && isfinite(b) && a > b) /* PyTorch's words */
      return tl_error_set(TL_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but "
                          "found from=%g > to=%g", a, b);
    if (!(a <= b) || !isfinite(a) || !isfinite(b))
      return tl_error_set(TL_ERR_RUNTIME, "uniform_ expects a finite [from, to) range with from "
                          "<= to, but got from=%g, to=%g", a, b);
    break;
  case TL_RANDOM_NORMAL:
  case TL_RANDOM_LOG_NORMAL:
    if (!(b >= 0.0) || (k == TL_RANDOM_LOG_NORMAL && !(b > 0.0)))
      return tl_error_set(TL_ERR_RUNTIME, "%s expects std %s 0.0, but got std=%g", kind_name(k),
                          k == TL_RANDOM_NORMAL ? ">=" : ">", b);
    break;
  case TL_RANDOM_BERNOULLI:
    if (!(a >= 0.0 && a <= 1.0))
      return tl_error_set(TL_ERR_RUNTIME, "bernoulli expects p to be in [0, 1], but got p=%g",
                          a);
    break;
  case TL_RANDOM_EXPONENTIAL:
    if (!(a > 0.0))
      return tl_error_set(TL_ERR_RUNTIME, "exponential_ expects lambd > 0.0, but got lambd=%g",
                          a);
    break;
  case TL_RANDOM_CAUCHY:
    if (!(b > 0.0))
      return tl_error_set(TL_ERR_RUNTIME, "cauchy_ expects sigma > 0.0, but got sigma=%g", b);
    break;
  case TL_RANDOM_GEOMETRIC:
    if (!(a > 0.0 && a < 1.0))
      return tl_error_set(TL_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g",
                          a);
    break;
  default: break;
  }
  return TL_OK;
}

static tl_status check_params(const tl_random_dist *d, int64_t numel)
{
  if (!d->pa && !d->pb)
    return check_param(d->kind, d->a, d->b);
  for (int64_t i = 0; i < numel; i++)
    if (check_param(d->kind, d->pa ? d->pa[i] : d->a, d->pb ? d->pb[i] : d->b) != TL_OK)
      return tl_error_status();
  return TL_OK;
}

/* ---- entry points ------------------------------------------------------------------------- */

tl_status tl_random_plan(tl_generator *g, const tl_tensor *t, const tl_random_dist *d,
                         tl_random_draw_plan *plan)
{
  int64_t numel = tl_tensor_numel(t);
  if (t->storage->readonly)
    return tl_error_set(TL_ERR_VALUE, "%s: cannot write random values into a read-only tensor",
                        kind_name(d->kind));
  if (tl_storage_check_write(t->storage) != TL_OK)
    return tl_error_status();
  if (tl_tensor_has_internal_overlap(t)) /* a broadcast view would keep only one draw */
    return tl_error_set(TL_ERR_RUNTIME, "%s: the written-to tensor has a stride-0 dimension, "
                        "so several elements share one memory location; clone() it first",
                        kind_name(d->kind));
  if (check_dtype(d, t->dtype) != TL_OK || check_params(d, numel) != TL_OK)
    return tl_error_status();
  bool is_complex = tl_dtype_is_complex(t->dtype);
  tl_dtype store = is_complex ? tl_dtype_to_real(t->dtype) : t->dtype;
  tl_px_draw *f = &plan->draw;
  *f = (tl_px_draw){.kind = (int)d->kind, .a = d->a, .b = d->b, .low = d->low,
                    .range = d->range, .pa = d->pa, .pb = d->pb, .pshift = is_complex,
                    .scale_b = is_complex && d->kind == TL_RANDOM_NORMAL ? M_SQRT1_2 : 1.0};
  f->wide = d->kind == TL_RANDOM_INTEGER ||
            (d->kind != TL_RANDOM_BERNOULLI &&
             (store == TL_DTYPE_F64 || tl_dtype_is_integral(store)));
  f->per = f->wide ? 2 : 4;
  f->bits = tl_dtype_is_float(store) ? float_digits(store) : 32;
  plan->store = store;
  plan->n = numel << is_complex;
  f->first = reserve(g, (uint64_t)((plan->n + f->per - 1) / f->per), &f->seed);
  return TL_OK;
}

tl_status tl_cpu_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  tl_tensor dst = *t, tmp = {0};
  tl_random_draw_plan plan;
  bool contiguous = tl_tensor_is_contiguous(t);
  if (!contiguous) {
    if (tl_tensor_empty(&tmp, t->dtype, t->ndim, t->shape, tl_tensor_device(t)) != TL_OK)
      return tl_error_status();
    dst = tmp;
  }
  tl_status s = tl_random_plan(g, t, d, &plan);
  if (s != TL_OK)
    goto done;
  const tl_px_draw *f = &plan.draw;
  fill_ctx c = {.d = *d, .store = plan.store, .dst = tl_tensor_data(&dst), .n = plan.n,
                .pshift = f->pshift, .per = f->per, .bits = f->bits, .wide = f->wide,
                .scale_b = f->scale_b, .seed = f->seed, .first = f->first};
  tl_parallel_for((c.n + CHUNK - 1) / CHUNK, 16, fill_range, &c);
  if (contiguous)
    tl_storage_bump(t->storage);
  else
    s = tl_tensor_copy(t, &tmp);
done:
  tl_tensor_release(&tmp);
  return s;
}

/* ---- Poisson ------------------------------------------------------------------------------ */

#define POISSON_BLOCKS 16 /* counter blocks each element may use */

typedef struct {
  const double *rate;
  double *out;
  uint64_t seed, first;
} poisson_ctx;

/* One Poisson(lam) draw from element e's blocks (two wide uniforms each).
 * lam < 10: inversion, walking the CDF up from 0 with one uniform.
 * lam >= 10: Hoermann's transformed rejection (PTRS, 1993), one block per
 * attempt; it accepts ~90% of the time, so 16 attempts run out with
 * probability ~1e-14, and then the rounded normal approximation stands in. */
static double poisson_one(const poisson_ctx *c, int64_t e)
{
  double lam = c->rate[e];
  uint32_t w[4];
  uint64_t base = c->first + (uint64_t)e * POISSON_BLOCKS;
  if (lam == 0)
    return 0;
  if (lam < 10) {
    philox_block(c->seed, base, w);
    double u = tl_px_unit_wide(tl_px_wide(w)), p = exp(-lam), cdf = p;
    int64_t k = 0;
    while (u > cdf && p > 0) {
      k++;
      p *= lam / (double)k;
      cdf += p;
    }
    return (double)k;
  }
  double slam = sqrt(lam), loglam = log(lam);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (int attempt = 0; attempt < POISSON_BLOCKS; attempt++) {
    philox_block(c->seed, base + (uint64_t)attempt, w);
    double u = tl_px_unit_wide(tl_px_wide(w)) - 0.5, v = tl_px_unit_wide(tl_px_wide(w + 2));
    double us = 0.5 - fabs(u);
    double k = floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr)
      return k;
    if (k < 0 || (us < 0.013 && v > us))
      continue;
    int sign;
    if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <=
        -lam + k * loglam - lgamma_r(k + 1, &sign))
      return k;
  }
  double z0, z1;
  box_muller(tl_px_open_wide(tl_px_wide(w)), tl_px_unit_wide(tl_px_wide(w + 2)), &z0, &z1);
  return fmax(0.0, floor(lam + slam * z0 + 0.5));
}

static void poisson_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const poisson_ctx *c = ctx;
  for (int64_t e = begin; e < end; e++)
    c->out[e] = poisson_one(c, e);
}

tl_status tl_random_poisson_check(const tl_tensor *rates)
{
  if (!tl_dtype_is_float(rates->dtype))
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"poisson_cpu\" not implemented for '%s'",
                        tl_dtype_scalar_name(rates->dtype));
  return TL_OK;
}

tl_status tl_cpu_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out)
{
  tl_tensor r = {0}, o = {0};
  tl_status s = TL_OK;
  if (tl_random_poisson_check(rates) != TL_OK)
    return tl_error_status();
  if (tl_tensor_to_dtype(&r, rates, TL_DTYPE_F64) != TL_OK)
    return tl_error_status();
  int64_t n = tl_tensor_numel(&r);
  const double *rate = tl_tensor_data(&r);
  for (int64_t i = 0; i < n; i++)
    if (!(rate[i] >= 0) || isinf(rate[i]) || rate[i] > 0x1p52) {
      s = tl_error_set(TL_ERR_RUNTIME, "poisson expects finite, non-negative rates below 2^52, "
                       "got %g", rate[i]);
      goto done;
    }
  if (tl_tensor_empty(&o, TL_DTYPE_F64, r.ndim, r.shape, tl_tensor_device(rates)) != TL_OK) {
    s = tl_error_status();
    goto done;
  }
  poisson_ctx c = {.rate = rate, .out = tl_tensor_data(&o)};
  c.first = reserve(g, (uint64_t)n * POISSON_BLOCKS, &c.seed);
  tl_parallel_for(n, 4096, poisson_range, &c);
  s = tl_tensor_to_dtype(out, &o, rates->dtype);
done:
  tl_tensor_release(&r);
  tl_tensor_release(&o);
  return s;
}

tl_status tl_cpu_random_permutation(tl_generator *g, tl_tensor *out)
{
  int64_t n = tl_tensor_numel(out);
  tl_random_dist d = {.kind = TL_RANDOM_INTEGER, .low = 0, .range = n > 0 ? (uint64_t)n : 1};
  if (tl_dtype_is_complex(out->dtype) || out->dtype == TL_DTYPE_BOOL)
    return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "\"randperm\" not implemented for '%s'",
                        tl_dtype_scalar_name(out->dtype));
  if (n > 0 && check_dtype(&d, out->dtype) != TL_OK) {
    tl_error_clear(); /* worded below, naming n */
    return tl_error_set(TL_ERR_RUNTIME, "randperm: %s cannot hold a permutation of %lld values",
                        tl_dtype_names[out->dtype], (long long)n);
  }
  if (n == 0) /* nothing to write; an empty tensor may have no data pointer */
    return TL_OK;
  int64_t *perm = out->dtype == TL_DTYPE_I64 ? tl_tensor_data(out)
                                             : malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!perm)
    return tl_error_set(TL_ERR_MEMORY, "randperm: out of memory for %lld values", (long long)n);
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  /* Fisher-Yates from the top: step k swaps slot n-1-k with a uniform pick
   * below it, the pick drawn from wide slot k.  The picks do not depend on
   * the swaps, so a batch of them is drawn at once (SIMD Philox, then the
   * multiplies) and only the swaps run one by one. */
  enum { PERM_BATCH = 2048 }; /* swaps per batch: an even number of wide slots */
  uint64_t seed, first = reserve(g, n > 1 ? (uint64_t)(n / 2) : 0, &seed);
  uint32_t w[2 * PERM_BATCH];
  int64_t pick[PERM_BATCH];
  tl_unlocked unlocked = tl_parallel_unlock(n); /* one thread, but no GIL */
  for (int64_t k0 = 0; k0 + 1 < n; k0 += PERM_BATCH) {
    int m = n - 1 - k0 < PERM_BATCH ? (int)(n - 1 - k0) : PERM_BATCH;
    tl_philox_words(seed, first + (uint64_t)(k0 / 2), (m + 1) / 2, w);
    for (int t = 0; t < m; t++)
      pick[t] = (int64_t)(((tl_u128)tl_px_wide(w + 2 * t) * (uint64_t)(n - k0 - t)) >> 64);
    for (int t = 0; t < m; t++) {
      int64_t i = n - 1 - k0 - t, j = pick[t];
      int64_t tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
  }
  if (out->dtype != TL_DTYPE_I64) {
    size_t size = tl_dtype_size(out->dtype);
    for (int64_t i = 0; i < n; i += CHUNK) {
      int count = n - i < CHUNK ? (int)(n - i) : CHUNK;
      store_ints(out->dtype, (char *)tl_tensor_data(out) + (size_t)i * size, perm + i, count);
    }
    free(perm);
  }
  tl_parallel_relock(&unlocked);
  tl_storage_bump(out->storage);
  return TL_OK;
}

typedef struct {
  double key;
  int64_t index;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
  const keyed *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* One row: n draws from weights w[0..k) into out, from counter blocks first... */
static void multinomial_row(uint64_t seed, uint64_t first, const double *w, int64_t k,
                            int64_t n, bool replacement, double *scratch, keyed *keys,
                            int64_t *out)
{
  uint32_t block[4];
  if (replacement) {
    double total = 0;
    int64_t last = 0;
    for (int64_t j = 0; j < k; j++) {
      total += w[j];
      scratch[j] = total; /* running sum */
      if (w[j] > 0)
        last = j;
    }
    for (int64_t s = 0; s < n; s++) {
      if (s % 2 == 0)
        philox_block(seed, first + (uint64_t)(s / 2), block);
      double t = tl_px_unit_wide(tl_px_wide(block + 2 * (s % 2))) * total;
      int64_t lo = 0, hi = k; /* first j with scratch[j] > t */
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (scratch[mid] > t)
          hi = mid;
        else
          lo = mid + 1;
      }
      out[s] = lo < k ? lo : last; /* lo == k only if rounding reached total */
    }
    return;
  }
  /* Without replacement: an exponential race.  Category j finishes at
   * E_j / w_j with E_j ~ Exp(1); the order of finishing is a weighted draw
   * without replacement, so the n earliest are the sample. */
  for (int64_t j = 0; j < k; j++) {
    if (j % 2 == 0)
      philox_block(seed, first + (uint64_t)(j / 2), block);
    double e = -log(tl_px_open_wide(tl_px_wide(block + 2 * (j % 2))));
    keys[j] = (keyed){.key = w[j] > 0 ? e / w[j] : INFINITY, .index = j};
  }
  qsort(keys, (size_t)k, sizeof *keys, keyed_cmp);
  for (int64_t s = 0; s < n; s++)
    out[s] = keys[s].index;
}

tl_status tl_random_multinomial_check(const tl_tensor *probs, int64_t n, bool replacement)
{
  /* PyTorch's words, which name no sizes */
  if (probs->ndim < 1 || probs->ndim > 2)
    return tl_error_set(TL_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
  if (!tl_dtype_is_float(probs->dtype))
    return tl_error_set(TL_ERR_RUNTIME, "multinomial only supports floating-point dtypes for "
                        "input, got: %s", tl_dtype_scalar_name(probs->dtype));
  int64_t k = probs->shape[probs->ndim - 1];
  if (n <= 0)
    return tl_error_set(TL_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
  if (!replacement && n > k)
    return tl_error_set(TL_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples "
                        "without replacement");
  if (k == 0)
    return tl_error_set(TL_ERR_RUNTIME, "multinomial: the distribution has no categories");
  return TL_OK;
}

tl_status tl_cpu_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                    bool replacement, tl_tensor *out)
{
  tl_tensor p = {0};
  double *scratch = NULL;
  keyed *keys = NULL;
  tl_status s = TL_OK;
  if (tl_random_multinomial_check(probs, n, replacement) != TL_OK)
    return tl_error_status();
  int64_t rows = probs->ndim == 2 ? probs->shape[0] : 1, k = probs->shape[probs->ndim - 1];
  if (tl_tensor_to_dtype(&p, probs, TL_DTYPE_F64) != TL_OK)
    return tl_error_status();
  const double *w = tl_tensor_data(&p);
  for (int64_t r = 0; r < rows && s == TL_OK; r++) {
    double total = 0;
    for (int64_t j = 0; j < k && s == TL_OK; j++) {
      double x = w[r * k + j];
      if (x < 0)
        s = tl_error_set(TL_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                         "probability entry < 0: %g in row %lld)", x, (long long)r);
      else if (!isfinite(x))
        s = tl_error_set(TL_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` or "
                         "element < 0 (%g in row %lld)", x, (long long)r);
      total += x;
    }
    /* fewer nonzero weights than draws without replacement is no error:
     * as in PyTorch, the zero-weight categories come last */
    if (s == TL_OK && !(total > 0))
      s = tl_error_set(TL_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities "
                       "<= 0 in row %lld)", (long long)r);
  }
  if (s != TL_OK)
    goto done;
  int64_t shape[2] = {rows, n};
  if (tl_tensor_empty(out, TL_DTYPE_I64, probs->ndim, probs->ndim == 2 ? shape : shape + 1,
                      tl_tensor_device(probs)) != TL_OK) {
    s = tl_error_status();
    goto done;
  }
  scratch = malloc(sizeof(double) * (size_t)k);
  keys = malloc(sizeof(keyed) * (size_t)k);
  if (!scratch || !keys) {
    tl_tensor_release(out);
    s = tl_error_set(TL_ERR_MEMORY, "multinomial: out of memory for %lld categories",
                     (long long)k);
    goto done;
  }
  int64_t per_row = ((replacement ? n : k) + 1) / 2;
  uint64_t seed, first = reserve(g, (uint64_t)(rows * per_row), &seed);
  int64_t *o = tl_tensor_data(out);
  tl_unlocked unlocked = tl_parallel_unlock(rows * (k + n));
  for (int64_t r = 0; r < rows; r++)
    multinomial_row(seed, first + (uint64_t)(r * per_row), w + r * k, k, n, replacement,
                    scratch, keys, o + r * n);
  tl_parallel_relock(&unlocked);
done:
  free(scratch);
  free(keys);
  tl_tensor_release(&p);
  return s;
}
