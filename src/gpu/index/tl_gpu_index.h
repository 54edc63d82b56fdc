/* tl_gpu_index.h - what the C side of the CUDA index primitives (index_gpu.c)
 * hands their kernels (index.cu): plain data, as tl_gpu_kernels.h.
 *
 * Each launcher returns the CUDA error code of its launch (0 when queued),
 * or -1 for a dtype it has no kernel for.  Plans list their operands in the
 * order of the CPU's loops (tl_index.h):
 *   offsets      (off int64, idx int64)
 *   move gather  (data, base, off)     data[s] = base[s + off[s]]
 *   move scatter (off, base, data)     base[s + off[s]] (reduce)= data[s]
 *   masked fill  (self, mask, value, self)
 *   mean divide  (self, count int64)
 *   scale        (out, src)                                              */
#ifndef TL_GPU_INDEX_H
#define TL_GPU_INDEX_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu/tl_device_errors.h"
#include "gpu/tl_gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tl_index_reduce's values (index_gpu.c checks them at compile time). */
enum {
  TL_GPU_REDUCE_NONE,
  TL_GPU_REDUCE_ADD,
  TL_GPU_REDUCE_MUL,
  TL_GPU_REDUCE_AMAX,
  TL_GPU_REDUCE_AMIN,
};

typedef struct {
  int64_t size, stride; /* the indexed dim: size, stride in bytes */
  int wrap, first;      /* negatives wrap; the first index writes off, others add */
  int dim, op, status;  /* what a bad index records */
  tl_device_error *err; /* the device's error record */
} tl_gpu_offsets_params;

int tl_gpu_index_offsets_launch(const tl_gpu_plan *plan, const tl_gpu_offsets_params *p,
                                void *stream);
int tl_gpu_index_move_launch(const tl_gpu_plan *plan, int scatter, int dtype, int reduce,
                             void *stream);
int tl_gpu_index_masked_fill_launch(const tl_gpu_plan *plan, int itemsize, void *stream);
int tl_gpu_index_mean_divide_launch(const tl_gpu_plan *plan, int dtype, void *stream);
/* alpha: 16 bytes holding alpha in dtype. */
int tl_gpu_index_scale_launch(const tl_gpu_plan *plan, int dtype, const unsigned char *alpha,
                              void *stream);
/* The positions of the n flags that are true, in order, into linear[0..count)
 * and *count (both device memory), through CUB's DeviceSelect::Flagged; with
 * temp NULL only *temp_bytes is set. */
int tl_gpu_index_select_flagged(void *temp, size_t *temp_bytes, const bool *flags,
                                int64_t *linear, int64_t *count, int64_t n, void *stream);
/* out (nnz, ndim) row-major: the coordinates of each linear position in a
 * C-ordered tensor of the given shape. */
int tl_gpu_index_coords_launch(int64_t *out, const int64_t *linear, int64_t nnz, int ndim,
                               const int64_t *shape, void *stream);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
/* Register the CUDA index primitives (and so the index ops on CUDA). */
void tl_gpu_index_register(void);
#endif

#endif
