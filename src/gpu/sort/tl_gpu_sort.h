/* tl_gpu_sort.h - what the C side of the CUDA sort family (sort_gpu.c) hands
 * its kernels (sort.cu, search.cu).  Plain data only, read by C and CUDA C++.
 *
 * A "lane" is the 1-d slice along the sorted dim at one position of the
 * other dims, numbered row-major over those dims (as the CPU's sort.c).  A
 * tl_gpu_lanes addresses the lanes of one tensor: lane L starts at
 * data + (L split over shape, dotted with strides) and its elements are
 * `step` bytes apart.  Sorted lanes are contiguous [lanes, n] arrays of
 * unsigned keys (1, 2, 4 or 8 bytes: sort_keys.h's order, complemented when
 * descending) and int32 lane positions; lanes hold fewer than 2^31 elements.
 * Every launcher returns the CUDA error code of its launches (0: queued). */
#ifndef TL_GPU_SORT_H
#define TL_GPU_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/tl_gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char *data; /* device pointer; NULL: this output is not wanted */
  int ndim;   /* the other dims, size-1 ones dropped */
  int64_t shape[TL_GPU_MAX_DIMS];
  int64_t strides[TL_GPU_MAX_DIMS]; /* bytes */
  int64_t step;                     /* bytes between a lane's elements */
} tl_gpu_lanes;

/* Register the family's CUDA kernel set (sort_gpu.c; kernels_gpu.c calls it). */
void tl_gpu_sort_register(void);

/* Selections of one sorted position per lane (tl_gpu_sort_select). */
enum { TL_GPU_SELECT_KTH, TL_GPU_SELECT_MEDIAN, TL_GPU_SELECT_NANMEDIAN, TL_GPU_SELECT_MODE };

/* Key bytes of a dtype: 1 (bool, uint8, int8), 2, 4 or 8. */
int tl_gpu_sort_key_bytes(int dtype);

/* keys[L * n + i] = key of in's lane L element i (complemented when desc),
 * pos[L * n + i] = i, for lanes [0, lanes). */
int tl_gpu_sort_keys(const tl_gpu_lanes *in, int dtype, bool desc, int64_t lanes, int64_t n,
                     void *keys, int32_t *pos, void *stream);
/* offsets[i] = i * n for i in [0, count]. */
int tl_gpu_sort_offsets(int32_t *offsets, int64_t count, int64_t n, void *stream);
/* CUB's stable radix sort of `segments` segments (offsets[0..segments]) of
 * `items` (key, position) pairs; one segment takes the device-wide sort.
 * temp == NULL: only sets *temp_bytes. */
int tl_gpu_sort_pairs(int key_bytes, void *temp, size_t *temp_bytes, const void *keys_in,
                      void *keys_out, const int32_t *pos_in, int32_t *pos_out, int64_t items,
                      int64_t segments, const int32_t *offsets, void *stream);
/* Sorted positions [0, k) of each lane to values (in's elements, esize
 * bytes) and indices (int64) at output positions [0, k). */
int tl_gpu_sort_gather(const tl_gpu_lanes *in, int esize, const tl_gpu_lanes *values,
                       const tl_gpu_lanes *indices, const int32_t *pos, int64_t lanes, int64_t n,
                       int64_t k, void *stream);
/* One sorted position per lane (kind: TL_GPU_SELECT_*; k for KTH, from 1),
 * chosen as the CPU's sort.c chooses it, to values[L] and indices[L]. */
int tl_gpu_sort_select(int kind, int64_t k, const tl_gpu_lanes *in, int dtype,
                       const tl_gpu_lanes *values, const tl_gpu_lanes *indices, const void *keys,
                       const int32_t *pos, int64_t lanes, int64_t n, void *stream);
/* mode of each ascending-sorted lane (the longest run of equal keys, the
 * first such run, i.e. the smallest value, and its last element, i.e. the
 * latest occurrence: the CPU's choice) through two lane scans; items and
 * temp as tl_gpu_cummax's. */
int tl_gpu_sort_mode(const tl_gpu_lanes *in, int dtype, const tl_gpu_lanes *values,
                     const tl_gpu_lanes *indices, const void *keys, const int32_t *pos,
                     int64_t lanes, int64_t n, void *items, void *temp, size_t temp_bytes,
                     void *stream);
/* Quantiles q[0..nq) (device doubles) of each ascending-sorted lane of
 * float32/float64 to out (lane L, quantile i at out lane L + i * q_step). */
int tl_gpu_sort_quantile(const tl_gpu_lanes *in, int dtype, const tl_gpu_lanes *out,
                         int64_t q_step, const double *q, int64_t nq, int method,
                         bool ignore_nan, const void *keys, const int32_t *pos, int64_t lanes,
                         int64_t n, void *stream);

/* ---- search.cu ---- */

/* Scratch of a running maximum along lanes (tl_sort_device.cuh's
 * tl_lane_max_item): bytes an element. */
#define TL_GPU_LANE_MAX_ITEM 16
/* That running maximum, in place over total items of lanes of n (CUB's
 * scan); temp == NULL: only sets *temp_bytes. */
int tl_gpu_lane_max_scan(void *items, int64_t total, int64_t n, void *temp, size_t *temp_bytes,
                         void *stream);
/* Running max (min) along every lane with PyTorch's NaN and tie rules;
 * items (TL_GPU_LANE_MAX_ITEM bytes an element) and temp as the scan's. */
int tl_gpu_cummax(const tl_gpu_lanes *in, int dtype, bool is_min, const tl_gpu_lanes *values,
                  const tl_gpu_lanes *indices, int64_t lanes, int64_t n, void *items, void *temp,
                  size_t temp_bytes, void *stream);
/* Rows of `width` elements of the contiguous data (dtype), visited in the
 * order perm[0..rows): keys[r] = key of element c of row perm[r]. */
int tl_gpu_unique_column_keys(const char *data, int dtype, int64_t width, int64_t c,
                              const int32_t *perm, int64_t rows, void *keys, void *stream);
/* starts[r] = 1 when row perm[r] begins a group (it differs from row
 * perm[r-1]; nan_distinct: a NaN differs from everything), else 0; then
 * their inclusive sum in place (int64, CUB).  temp == NULL: sizes only. */
int tl_gpu_unique_groups(const char *data, int dtype, int64_t width, const int32_t *perm,
                         int64_t rows, bool nan_distinct, int64_t *group, void *temp,
                         size_t *temp_bytes, void *stream);
/* From the inclusive sums: out row g = data row perm[first of group g],
 * inverse[perm[r]] = group of r (may be NULL), counts[g] (may be NULL). */
int tl_gpu_unique_emit(const char *data, int esize, int64_t width, const int32_t *perm,
                       const int64_t *group, int64_t rows, char *out, int64_t *inverse,
                       int64_t *counts, void *stream);
/* Insertion points of values' lanes in seq's (sorted through sorter's when
 * sorter->data; seq_rows == 1: one sequence for every row); both in dtype. */
int tl_gpu_searchsorted(const tl_gpu_lanes *seq, const tl_gpu_lanes *sorter, int64_t seq_rows,
                        int64_t n, const tl_gpu_lanes *values, int64_t rows, int64_t nvalues,
                        int dtype, bool right, const tl_gpu_lanes *out, bool out_int32,
                        void *stream);
/* Checks whose errors must reach the host (one sync reads bad[0..3)):
 * bad[0] = the smallest flat index (lane L * n + i) of an element outside
 * [0, n) (sorter) or below 0 (bincount), INT64_MAX when none; bad[1] = its
 * value; bad[2] = the largest value, -1 for none (bincount's length). */
int tl_gpu_sorter_check(const tl_gpu_lanes *sorter, int64_t rows, int64_t n, int64_t *bad,
                        void *stream);
int tl_gpu_bincount_stats(const char *in, int64_t step, int dtype, int64_t n, int64_t *bad,
                          void *stream);
/* out[in[i]] += 1 (int64 out, weights NULL) or weights[i] (out float32 or
 * float64; weights any real dtype). */
int tl_gpu_bincount(const char *in, int64_t step, int dtype, int64_t n, const char *weights,
                    int64_t wstep, int wdtype, char *out, int odtype, void *stream);
/* keys[0] = smallest, keys[1] = largest order key (sort_keys.h, float64) of
 * the n contiguous floats at in (dtype); NaN's key is the largest. */
int tl_gpu_histc_range(const char *in, int dtype, int64_t n, uint64_t *keys, void *stream);
/* counts[b] (int64, zeroed) of the n contiguous floats at in in [min, max]. */
int tl_gpu_histc(const char *in, int dtype, int64_t n, int64_t bins, double min, double max,
                 int64_t *counts, void *stream);

#ifdef __cplusplus
}
#endif

#endif
