/* tl_random.h - counter-based random numbers (Philox4x32-10) and the
 * distributions the random functions draw from.
 *
 * A generator is (seed, offset): the seed is Philox's key, the offset counts
 * the 128-bit counter blocks handed out so far.  A draw of n elements takes the
 * next ceil(n / per_block) counters and advances the offset past them; element
 * i (in row-major order of the output) reads counter offset + i / per_block,
 * slot i % per_block.  So a value depends only on (seed, offset, i): the thread
 * count, the output's strides and the device cannot change it, and a GPU
 * kernel applying the same mapping reproduces the CPU's numbers.
 *
 * Slots: "narrow" draws take one 32-bit word (4 per block): float32, float16
 * and bfloat16 values and Bernoulli trials.  "Wide" draws take two words, as a
 * 64-bit integer (2 per block): float64 values and integers.  Normal values
 * come in Box-Muller pairs from consecutive slots of the same block.       */
#ifndef TL_RANDOM_H
#define TL_RANDOM_H

#include "gpu/random/tl_px_samplers.h"
#include "ndcore/tensor/tl_dtype.h"

/* Threads may share a generator: (seed, offset) is read and advanced under
 * `lock`, and a draw holds it only to reserve its counters, never while it
 * computes, so draws on one generator from several threads get disjoint
 * counter ranges, and each thread's own generator gives the same stream as
 * it would alone.  A generator starts zeroed or tl_generator_init'ed.     */
typedef struct tl_generator_s {
  uint64_t seed;
  uint64_t offset; /* counter blocks used so far */
  uint32_t lock;   /* a spin lock: held for a few loads and stores */
} tl_generator;

/* Serialized state: seed then offset, little-endian (get_state/set_state). */
#define TL_GENERATOR_STATE_SIZE 16

/* One Philox4x32 block with 10 rounds: out = philox(ctr, key). */
void tl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* (Re)seed g: offset 0.  Safe while other threads draw from it. */
void tl_generator_init(tl_generator *g, uint64_t seed);
uint64_t tl_generator_initial_seed(tl_generator *g);
/* A seed from the operating system's entropy (for Generator.seed()). */
uint64_t tl_random_nondeterministic_seed(void);
void tl_generator_get_state(tl_generator *g, uint8_t state[TL_GENERATOR_STATE_SIZE]);
void tl_generator_set_state(tl_generator *g, const uint8_t state[TL_GENERATOR_STATE_SIZE]);

/* For kernels that draw their own words (src/nn/dropout): reserve `blocks`
 * counter blocks of g, returning the first and, in *seed, the key they go
 * with; then the 4 words of blocks [first, first + nblocks) under seed. */
uint64_t tl_generator_reserve(tl_generator *g, uint64_t blocks, uint64_t *seed);
void tl_philox_words(uint64_t seed, uint64_t first, int nblocks, uint32_t *w);

typedef enum {
  TL_RANDOM_UNIFORM = TL_PX_UNIFORM,     /* a + (b - a) * U,  U uniform on [0, 1) */
  TL_RANDOM_NORMAL = TL_PX_NORMAL,      /* a + b * Z,        Z standard normal */
  TL_RANDOM_INTEGER = TL_PX_INTEGER,     /* low + K,          K uniform on {0, ..., range - 1} */
  TL_RANDOM_BERNOULLI = TL_PX_BERNOULLI,   /* 1 with probability a, else 0 */
  TL_RANDOM_EXPONENTIAL = TL_PX_EXPONENTIAL, /* exponential with rate a */
  TL_RANDOM_CAUCHY = TL_PX_CAUCHY,      /* median a, scale b */
  TL_RANDOM_LOG_NORMAL = TL_PX_LOG_NORMAL,  /* exp(a + b * Z) */
  TL_RANDOM_GEOMETRIC = TL_PX_GEOMETRIC,   /* trials up to the first success, success probability a */
} tl_random_kind;

typedef struct {
  tl_random_kind kind;
  double a, b;
  int64_t low;    /* INTEGER */
  uint64_t range; /* INTEGER; 0 stands for 2^64 */
  /* Per-element a and b (normal's mean and std, Bernoulli's p): contiguous
   * float64 arrays of the output's numel, or NULL to use a and b. */
  const double *pa, *pb;
} tl_random_dist;

/* The largest value random_() draws into dtype: its maximum for integers
 * (1 for bool), 2^mantissa-digits for floats (every integer up to it exact). */
int64_t tl_random_dtype_max(tl_dtype dtype);

/* Fill t (any layout) with draws from d, advancing g.  Checks the
 * distribution's parameters and that t's dtype can hold its values first;
 * complex outputs get independent real and imaginary parts (normal: each with
 * variance b^2 / 2, as PyTorch does). */
tl_status tl_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d);

/* What every device's fill kernel needs: t and d checked as tl_random_fill
 * promises (read-only, stride-0, dtype, parameters: one error for all
 * devices), then the draw (tl_philox.h) with its counters reserved from g:
 * n values (twice the numel for complex outputs) stored as dtype `store`. */
typedef struct {
  tl_px_draw draw;
  int64_t n;
  tl_dtype store;
} tl_random_draw_plan;
tl_status tl_random_plan(tl_generator *g, const tl_tensor *t, const tl_random_dist *d,
                         tl_random_draw_plan *plan);

/* out (1-d, contiguous, fresh, integral or float dtype) = a random permutation
 * of 0 .. numel - 1. */
tl_status tl_random_permutation(tl_generator *g, tl_tensor *out);

/* out (fresh, rates' shape and float dtype) = Poisson draws with those rates. */
tl_status tl_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out);

/* out (int64, shape probs' leading dims + [n]) = n category indices per row of
 * probs (1-d or 2-d, non-negative weights), with or without replacement. */
tl_status tl_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                bool replacement, tl_tensor *out);

/* The rejection samplers (tl_px_samplers.h): a parameter per element. */
typedef enum {
  TL_RANDOM_SAMPLE_GAMMA = TL_PX_GAMMA,         /* Gamma(a, 1) */
  TL_RANDOM_SAMPLE_LOG_GAMMA = TL_PX_LOG_GAMMA, /* log of Gamma(a, 1): no underflow */
  TL_RANDOM_SAMPLE_BINOMIAL = TL_PX_BINOMIAL,   /* Binomial(a, b), PyTorch's reading of a, b */
} tl_random_sample_kind;

typedef struct {
  tl_random_sample_kind kind;
  double floor; /* values below it, and NaN, become it (PyTorch's gamma); NaN: none */
} tl_random_sample_spec;

/* The counter rounds of a draw of n elements of `kind`, reserved from g
 * (nothing for n = 0): what every device's kernel reads. */
tl_px_rounds tl_random_sample_reserve(tl_generator *g, tl_random_sample_kind kind, int64_t n);

/* out (fresh, dtype, on a's device) = draws of spec, element by element, with
 * a (and b for binomial, else NULL) broadcast together.  The kernels see
 * contiguous float64 copies. */
tl_status tl_random_sample(tl_generator *g, const tl_random_sample_spec *spec, const tl_tensor *a,
                           const tl_tensor *b, tl_dtype dtype, tl_tensor *out);

#endif
