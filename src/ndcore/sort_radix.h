/* sort_radix.h - stable radix sort of (key, index) pairs; a template that
 * sort.c includes twice, once with 32-bit and once with 64-bit keys:
 *
 *   #define TL_RK       uint32_t            the key type
 *   #define TL_RS(name) name##_32           names of this instance
 *
 * Keys are unsigned integers whose order is the order wanted (sort.c maps each
 * dtype onto them, NaN last); indices are 32-bit positions in the lane.
 * Every routine is stable: equal keys keep their input order.
 *
 * Shape of the algorithm: short runs use insertion sort; mid-sized ones LSD
 * radix over only the bits that differ within the run; big ones take one MSD
 * pass on the top differing bits and recurse into the buckets, which soon fit
 * in cache.  The MSD recursion only descends into buckets that overlap the
 * wanted positions [lo, hi), which turns the sort into a radix select for
 * topk, kthvalue, median and quantile.                                     */

/* Sort the n pairs in (ak, ai); (bk, bi) is scratch of the same length.
 * Returns 0 if the result is in a, 1 if it is in b.  Only positions [lo, hi)
 * are guaranteed to hold their sorted elements. */
static int TL_RS(radix_sort)(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n,
                             int64_t lo, int64_t hi);

static void TL_RS(insertion_sort)(TL_RK *k, uint32_t *ix, int64_t n)
{
  for (int64_t i = 1; i < n; i++) {
    TL_RK key = k[i];
    uint32_t id = ix[i];
    int64_t j = i - 1;
    while (j >= 0 && k[j] > key) {
      k[j + 1] = k[j];
      ix[j + 1] = ix[j];
      j--;
    }
    k[j + 1] = key;
    ix[j + 1] = id;
  }
}

/* How many low bits differ between keys of the run (0: all keys equal). */
static int TL_RS(significant_bits)(const TL_RK *k, int64_t n)
{
  TL_RK first = k[0], diff = 0;
  for (int64_t i = 1; i < n; i++)
    diff |= k[i] ^ first;
  if (!diff)
    return 0;
  return (int)(sizeof(TL_RK) * 8) - (sizeof(TL_RK) == 8 ? __builtin_clzll((unsigned long long)diff)
                                                           : __builtin_clz((unsigned)diff));
}

/* LSD radix over the low `bits` bits: all digit histograms in one read, then
 * one stable scatter per digit, ping-ponging between a and b. */
static int TL_RS(lsd_sort)(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n, int bits)
{
  int max_width = n < 4096 ? 8 : TL_RADIX_BITS;
  int passes = (bits + max_width - 1) / max_width;
  int width = (bits + passes - 1) / passes;
  uint32_t mask = (1u << width) - 1;
  uint32_t count[TL_RADIX_MAX_PASSES][1 << TL_RADIX_BITS];
  for (int p = 0; p < passes; p++)
    memset(count[p], 0, sizeof(uint32_t) * (mask + 1));
  for (int64_t i = 0; i < n; i++)
    for (int p = 0; p < passes; p++)
      count[p][(uint32_t)(ak[i] >> (p * width)) & mask]++;
  TL_RK *sk = ak, *dk = bk;
  uint32_t *si = ai, *di = bi;
  for (int p = 0; p < passes; p++) {
    uint32_t sum = 0, *c = count[p];
    if (c[(uint32_t)(sk[0] >> (p * width)) & mask] == (uint32_t)n)
      continue; /* every key has the same digit here */
    for (uint32_t d = 0; d <= mask; d++) {
      uint32_t t = c[d];
      c[d] = sum;
      sum += t;
    }
    int shift = p * width;
    for (int64_t i = 0; i < n; i++) {
      uint32_t pos = c[(uint32_t)(sk[i] >> shift) & mask]++;
      dk[pos] = sk[i];
      di[pos] = si[i];
    }
    TL_RK *tk = sk; sk = dk; dk = tk;
    uint32_t *ti = si; si = di; di = ti;
  }
  return sk != ak;
}

/* One MSD pass: bucket the pairs of a into b by bits [shift, shift+width),
 * filling starts[] (width+1 entries: bucket d is [starts[d], starts[d+1])). */
static void TL_RS(msd_scatter)(const TL_RK *ak, const uint32_t *ai, TL_RK *bk, uint32_t *bi,
                               int64_t n, int shift, uint32_t mask, int64_t *starts)
{
  int64_t pos[1 << TL_RADIX_BITS];
  memset(pos, 0, sizeof(pos[0]) * (mask + 1));
  for (int64_t i = 0; i < n; i++)
    pos[(uint32_t)(ak[i] >> shift) & mask]++;
  int64_t sum = 0;
  for (uint32_t d = 0; d <= mask; d++) {
    starts[d] = sum;
    sum += pos[d];
    pos[d] = starts[d];
  }
  starts[mask + 1] = sum;
  for (int64_t i = 0; i < n; i++) {
    int64_t p = pos[(uint32_t)(ak[i] >> shift) & mask]++;
    bk[p] = ak[i];
    bi[p] = ai[i];
  }
}

static int TL_RS(radix_sort)(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n,
                             int64_t lo, int64_t hi)
{
  if (n <= TL_SORT_SMALL) {
    TL_RS(insertion_sort)(ak, ai, n);
    return 0;
  }
  int bits = TL_RS(significant_bits)(ak, n);
  if (bits == 0)
    return 0;
  if (n <= TL_SORT_LSD_MAX || bits <= TL_RADIX_BITS)
    return TL_RS(lsd_sort)(ak, ai, bk, bi, n, bits);
  int width = TL_RADIX_BITS, shift = bits - width;
  uint32_t mask = (1u << width) - 1;
  int64_t starts[(1 << TL_RADIX_BITS) + 1];
  TL_RS(msd_scatter)(ak, ai, bk, bi, n, shift, mask, starts);
  for (uint32_t d = 0; d <= mask; d++) {
    int64_t s = starts[d], c = starts[d + 1] - s;
    if (c < 2 || s + c <= lo || s >= hi)
      continue;
    int64_t blo = lo > s ? lo - s : 0, bhi = hi - s < c ? hi - s : c;
    if (TL_RS(radix_sort)(bk + s, bi + s, ak + s, ai + s, c, blo, bhi) == 1) {
      memcpy(bk + s, ak + s, (size_t)c * sizeof *bk);
      memcpy(bi + s, ai + s, (size_t)c * sizeof *bi);
    }
  }
  return 1;
}

/* ---- one big lane, on the thread pool ---------------------------------------
 * The first MSD pass is split by input chunks (a histogram per chunk, bucket
 * offsets laid out bucket-major then chunk, so the scatter stays stable); the
 * buckets are then sorted in parallel, handed out in groups of about equal
 * element counts.                                                           */
typedef struct {
  TL_RK *ak, *bk;
  uint32_t *ai, *bi;
  int64_t n, lo, hi, chunk;
  int nchunks, shift;
  uint32_t mask;
  int64_t *offsets; /* [nchunks][mask + 1] */
  int64_t *starts;  /* [mask + 2] */
  int64_t *groups;  /* bucket boundaries of the sorting tasks */
} TL_RS(par_ctx);

static void TL_RS(par_hist)(void *vctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  TL_RS(par_ctx) *c = vctx;
  for (int64_t t = begin; t < end; t++) {
    int64_t *h = c->offsets + t * (c->mask + 1);
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->n ? i0 + c->chunk : c->n;
    memset(h, 0, sizeof *h * (c->mask + 1));
    for (int64_t i = i0; i < i1; i++)
      h[(uint32_t)(c->ak[i] >> c->shift) & c->mask]++;
  }
}

static void TL_RS(par_scatter)(void *vctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  TL_RS(par_ctx) *c = vctx;
  for (int64_t t = begin; t < end; t++) {
    int64_t *pos = c->offsets + t * (c->mask + 1);
    int64_t i0 = t * c->chunk, i1 = i0 + c->chunk < c->n ? i0 + c->chunk : c->n;
    for (int64_t i = i0; i < i1; i++) {
      int64_t p = pos[(uint32_t)(c->ak[i] >> c->shift) & c->mask]++;
      c->bk[p] = c->ak[i];
      c->bi[p] = c->ai[i];
    }
  }
}

static void TL_RS(par_buckets)(void *vctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  TL_RS(par_ctx) *c = vctx;
  for (int64_t g = begin; g < end; g++)
    for (int64_t d = c->groups[g]; d < c->groups[g + 1]; d++) {
      int64_t s = c->starts[d], n = c->starts[d + 1] - s;
      if (n < 2 || s + n <= c->lo || s >= c->hi)
        continue;
      int64_t blo = c->lo > s ? c->lo - s : 0, bhi = c->hi - s < n ? c->hi - s : n;
      if (TL_RS(radix_sort)(c->bk + s, c->bi + s, c->ak + s, c->ai + s, n, blo, bhi) == 1) {
        memcpy(c->bk + s, c->ak + s, (size_t)n * sizeof *c->bk);
        memcpy(c->bi + s, c->ai + s, (size_t)n * sizeof *c->bi);
      }
    }
}

/* As radix_sort, with `bits` already known (> TL_RADIX_BITS) and the work on
 * the thread pool.  Returns 1 (the result is in b) or -1 when out of memory. */
static int TL_RS(radix_sort_parallel)(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n,
                                      int64_t lo, int64_t hi, int bits)
{
  int threads = tl_parallel_get_threads();
  TL_RS(par_ctx) c = {.ak = ak, .bk = bk, .ai = ai, .bi = bi, .n = n, .lo = lo, .hi = hi};
  c.nchunks = threads;
  c.chunk = (n + c.nchunks - 1) / c.nchunks;
  c.shift = bits - TL_RADIX_BITS;
  c.mask = (1u << TL_RADIX_BITS) - 1;
  int ntasks = 4 * threads;
  int64_t *mem = malloc(sizeof(int64_t) * ((size_t)c.nchunks * (c.mask + 1) + (c.mask + 2) +
                                           (size_t)ntasks + 1));
  if (!mem)
    return -1;
  c.offsets = mem;
  c.starts = mem + (size_t)c.nchunks * (c.mask + 1);
  c.groups = c.starts + c.mask + 2;
  tl_parallel_for(c.nchunks, 1, TL_RS(par_hist), &c);
  int64_t sum = 0;
  for (uint32_t d = 0; d <= c.mask; d++) {
    c.starts[d] = sum;
    for (int t = 0; t < c.nchunks; t++) {
      int64_t *h = c.offsets + (size_t)t * (c.mask + 1) + d, cnt = *h;
      *h = sum;
      sum += cnt;
    }
  }
  c.starts[c.mask + 1] = sum;
  tl_parallel_for(c.nchunks, 1, TL_RS(par_scatter), &c);
  /* Buckets into ntasks groups of about n / ntasks elements each. */
  int g = 0;
  c.groups[0] = 0;
  for (uint32_t d = 0; d <= c.mask && g < ntasks - 1; d++)
    if (c.starts[d + 1] >= (g + 1) * (n / ntasks))
      c.groups[++g] = d + 1;
  c.groups[++g] = c.mask + 1;
  tl_parallel_for(g, 1, TL_RS(par_buckets), &c);
  free(mem);
  return 1;
}
