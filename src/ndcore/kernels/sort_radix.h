/* sort_radix.h - stable radix sort of (key, index) pairs; a template that
 * sort.c includes twice:
 *
 *   #define TL_RK        uint64_t      the element type
 *   #define TL_R_RADIX_SORT  radix_sort_p32   the names of this instance's
 *   (and TL_R_INSERTION_SORT, TL_R_LSD_SORT,   functions, each spelled out
 *   TL_R_MSD_SCATTER, TL_R_SIGNIFICANT_BITS)   where it is included
 *   #define TL_RPAIRED   1             1: each element packs (key << 32 | index)
 *                                      and the index arrays are unused (NULL);
 *                                      0: elements are 64-bit keys, indices
 *                                      travel in their own arrays
 *   #define TL_RKEY(x)   ((x) >> 32)   the key of an element
 *
 * Keys are unsigned integers whose order is the order wanted (sort.c maps each
 * dtype onto them, NaN last); indices are 32-bit positions in the lane.
 * Every routine is stable: equal keys keep their input order.  Packing a
 * 32-bit key with its index moves one 8-byte word per element, which halves
 * the write streams of every scatter.
 *
 * Shape of the algorithm: short runs use insertion sort; runs of up to
 * TL_SORT_TINY elements, and selections within runs of up to TL_SORT_SHORT,
 * one MSD pass then recursion per bucket; mid-sized ones LSD radix over only
 * the bits that differ within the run; big ones take one MSD
 * pass on the top differing bits and recurse into the buckets, which soon fit
 * in cache.  The MSD recursion only descends into buckets that overlap the
 * wanted positions [lo, hi), which turns the sort into a radix select for
 * topk, kthvalue, median and quantile.                                     */

/* Sort the n pairs in (ak, ai); (bk, bi) is scratch of the same length.
 * Returns 0 if the result is in a, 1 if it is in b.  Only positions [lo, hi)
 * are guaranteed to hold their sorted elements. */
static int TL_R_RADIX_SORT(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n,
                             int64_t lo, int64_t hi);

static void TL_R_INSERTION_SORT(TL_RK *k, uint32_t *ix, int64_t n)
{
  for (int64_t i = 1; i < n; i++) {
    TL_RK x = k[i];
    uint32_t id = TL_RPAIRED ? 0 : ix[i];
    int64_t j = i - 1;
    while (j >= 0 && TL_RKEY(k[j]) > TL_RKEY(x)) {
      k[j + 1] = k[j];
      if (!TL_RPAIRED)
        ix[j + 1] = ix[j];
      j--;
    }
    k[j + 1] = x;
    if (!TL_RPAIRED)
      ix[j + 1] = id;
  }
}

/* How many low bits differ between keys of the run (0: all keys equal). */
static int TL_R_SIGNIFICANT_BITS(const TL_RK *k, int64_t n)
{
  uint64_t first = TL_RKEY(k[0]), diff = 0;
  for (int64_t i = 1; i < n; i++)
    diff |= TL_RKEY(k[i]) ^ first;
  return diff ? 64 - __builtin_clzll((unsigned long long)diff) : 0;
}

/* LSD radix over the low `bits` bits: all digit histograms in one read, then
 * one stable scatter per digit, ping-ponging between a and b. */
static int TL_R_LSD_SORT(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n, int bits)
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
      count[p][(uint32_t)(TL_RKEY(ak[i]) >> (p * width)) & mask]++;
  TL_RK *sk = ak, *dk = bk;
  uint32_t *si = ai, *di = bi;
  for (int p = 0; p < passes; p++) {
    uint32_t sum = 0, *c = count[p];
    if (c[(uint32_t)(TL_RKEY(sk[0]) >> (p * width)) & mask] == (uint32_t)n)
      continue; /* every key has the same digit here */
    for (uint32_t d = 0; d <= mask; d++) {
      uint32_t t = c[d];
      c[d] = sum;
      sum += t;
    }
    int shift = p * width;
    for (int64_t i = 0; i < n; i++) {
      uint32_t pos = c[(uint32_t)(TL_RKEY(sk[i]) >> shift) & mask]++;
      dk[pos] = sk[i];
      if (!TL_RPAIRED)
        di[pos] = si[i];
    }
    TL_RK *tk = sk; sk = dk; dk = tk;
    uint32_t *ti = si; si = di; di = ti;
  }
  return sk != ak;
}

/* One MSD pass: bucket the pairs of a into b by bits [shift, shift+width),
 * filling starts[] (width+1 entries: bucket d is [starts[d], starts[d+1])). */
static void TL_R_MSD_SCATTER(const TL_RK *ak, const uint32_t *ai, TL_RK *bk, uint32_t *bi,
                               int64_t n, int shift, uint32_t mask, int64_t *starts)
{
  int64_t pos[1 << TL_RADIX_BITS];
  memset(pos, 0, sizeof(pos[0]) * (mask + 1));
  for (int64_t i = 0; i < n; i++)
    pos[(uint32_t)(TL_RKEY(ak[i]) >> shift) & mask]++;
  int64_t sum = 0;
  for (uint32_t d = 0; d <= mask; d++) {
    starts[d] = sum;
    sum += pos[d];
    pos[d] = starts[d];
  }
  starts[mask + 1] = sum;
  for (int64_t i = 0; i < n; i++) {
    int64_t p = pos[(uint32_t)(TL_RKEY(ak[i]) >> shift) & mask]++;
    bk[p] = ak[i];
    if (!TL_RPAIRED)
      bi[p] = ai[i];
  }
}

static int TL_R_RADIX_SORT(TL_RK *ak, uint32_t *ai, TL_RK *bk, uint32_t *bi, int64_t n,
                             int64_t lo, int64_t hi)
{
  if (n <= TL_SORT_SMALL) {
    TL_R_INSERTION_SORT(ak, ai, n);
    return 0;
  }
  int bits = TL_R_SIGNIFICANT_BITS(ak, n);
  if (bits == 0)
    return 0;
  int width = TL_RADIX_BITS;
  if (n <= TL_SORT_SHORT && (hi - lo < n || n <= TL_SORT_TINY)) {
    /* Short runs that are a selection, or tiny: one MSD pass into about
     * n/2 buckets; most buckets end with a few elements for insertion sort,
     * the rest recurse on their own, fewer, differing bits, and a selection
     * descends only into the buckets holding [lo, hi) (kthvalue/median of
     * 1000x1000 float64: 18 ms -> 3 ms, one thread).  Tiny runs gain
     * because LSD pays a histogram per digit (8 for float64 keys) for few
     * elements.  Full sorts of 512..4096 elements stay LSD: measured, the
     * MSD pass's insertion sorts (a mispredicted branch per element) cost
     * as much as the LSD passes they save, and float32 lanes of 1000 took
     * twice as long. */
    width = 63 - __builtin_clzll((unsigned long long)n) - TL_SORT_SHORT_SPARE;
    width = width < 3 ? 3 : width > TL_RADIX_BITS ? TL_RADIX_BITS : width;
    width = width < bits ? width : bits;
  } else {
    /* LSD sorts everything; when only a narrow range of positions is wanted
     * (a selection), MSD passes that skip the other buckets do less work. */
    bool narrow = (hi - lo) * 8 < n && n > 1024;
    if (bits <= TL_RADIX_BITS || (n <= TL_SORT_LSD_MAX && !narrow))
      return TL_R_LSD_SORT(ak, ai, bk, bi, n, bits);
  }
  int shift = bits - width;
  uint32_t mask = (1u << width) - 1;
  int64_t starts[(1 << TL_RADIX_BITS) + 1];
  TL_R_MSD_SCATTER(ak, ai, bk, bi, n, shift, mask, starts);
  for (uint32_t d = 0; d <= mask; d++) {
    int64_t s = starts[d], c = starts[d + 1] - s;
    if (c < 2 || s + c <= lo || s >= hi)
      continue;
    int64_t blo = lo > s ? lo - s : 0, bhi = hi - s < c ? hi - s : c;
    if (TL_R_RADIX_SORT(bk + s, TL_RPAIRED ? NULL : bi + s, ak + s, TL_RPAIRED ? NULL : ai + s, c,
                          blo, bhi) == 1) {
      memcpy(bk + s, ak + s, (size_t)c * sizeof *bk);
      if (!TL_RPAIRED)
        memcpy(bi + s, ai + s, (size_t)c * sizeof *bi);
    }
  }
  return 1;
}

/* The parameters are this instance's alone. */
#undef TL_RK
#undef TL_RPAIRED
#undef TL_RKEY
#undef TL_R_RADIX_SORT
#undef TL_R_INSERTION_SORT
#undef TL_R_LSD_SORT
#undef TL_R_MSD_SCATTER
#undef TL_R_SIGNIFICANT_BITS
