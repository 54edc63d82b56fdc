/* grid_cpu.c - the CPU's sampling-grid kernels (tl_grid.h): operands made
 * contiguous in the work dtype, the typed loops of grid_loops.h split across
 * the thread pool.  grid_sampler splits the output points; its backward
 * splits (sample, channel block) items, so that no two threads add into the
 * same dx plane: with fewer samples than threads the channels are cut in
 * blocks, each writing its own partial dgrid, summed here in block order. */
#include <stdlib.h>
#include <string.h>

#include "ndcore/dispatch/tl_parallel.h"
#include "nn/grid/grid_job.h"
#include "nn/tl_nn_work.h"

typedef struct {
  tl_grid_job job;
  bool f64;
} typed_job;

static void sample_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  (t->f64 ? tl_grid_sample_f64 : tl_grid_sample_f32)(&t->job, begin, end);
}

static void backward_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const typed_job *t = ctx;
  (t->f64 ? tl_grid_backward_f64 : tl_grid_backward_f32)(&t->job, begin, end);
}

static int64_t points_of(const tl_grid_spec *s) { return s->out[0] * s->out[1] * s->out[2]; }

/* Taps a point reads (the work per point and channel). */
static int64_t taps_per_point(const tl_grid_spec *s)
{
  return s->mode == TL_GRID_NEAREST ? 1 : s->mode == TL_GRID_BICUBIC ? 16 : 1 << s->n;
}

static tl_status cpu_sample(const tl_grid_spec *s, const tl_tensor *x, const tl_tensor *grid,
                            tl_tensor *y)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  tl_tensor xt = {0}, gt = {0}, yt = {0};
  tl_status status = TL_OK;
  bool direct = y->dtype == work;
  const tl_tensor *xw = tl_nn_as_work(x, work, &xt), *gw = tl_nn_as_work(grid, work, &gt);
  if (!xw || !gw ||
      (!direct && tl_tensor_empty(&yt, work, y->ndim, y->shape, tl_tensor_device(y)) != TL_OK)) {
    status = tl_error_status();
    goto done;
  }
  typed_job t = {.job = {.s = *s, .x = tl_tensor_data(xw), .grid = tl_tensor_data(gw),
                         .y = tl_tensor_data(direct ? y : &yt)},
                 .f64 = work == TL_DTYPE_F64};
  int64_t per_point = s->C * taps_per_point(s) + 8;
  tl_storage_bump(y->storage);
  tl_parallel_for(s->N * points_of(s), 1 + 16384 / per_point, sample_range, &t);
  if (!direct)
    status = tl_tensor_copy(y, &yt);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&yt);
  return status;
}

/* A zeroed contiguous tensor of the work dtype in *tmp, or `out` itself
 * (zeroed) when it is one. */
static tl_tensor *zeroed_work(tl_tensor *out, tl_dtype work, tl_tensor *tmp)
{
  tl_tensor *w = out;
  if (out->dtype != work) {
    if (tl_tensor_empty(tmp, work, out->ndim, out->shape, tl_tensor_device(out)) != TL_OK)
      return NULL;
    w = tmp;
  }
  memset(tl_tensor_data(w), 0, (size_t)tl_tensor_numel(w) * tl_dtype_size(work));
  return w;
}

static tl_status cpu_sample_backward(const tl_grid_spec *s, const tl_tensor *g,
                                     const tl_tensor *x, const tl_tensor *grid, tl_tensor *dx,
                                     tl_tensor *dgrid)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  size_t es = tl_dtype_size(work);
  tl_tensor xt = {0}, gt = {0}, ot = {0}, dxt = {0}, dgt = {0};
  tl_tensor *dxw = NULL, *dgw = NULL;
  void *partial = NULL;
  tl_status status = TL_OK;
  const tl_tensor *xw = tl_nn_as_work(x, work, &xt), *gw = tl_nn_as_work(grid, work, &gt),
                  *ow = tl_nn_as_work(g, work, &ot);
  if (!xw || !gw || !ow || (dx && !(dxw = zeroed_work(dx, work, &dxt))) ||
      (dgrid && !(dgw = zeroed_work(dgrid, work, &dgt))))
    goto fail;
  /* channel blocks: enough items for the threads when the batch is small */
  int64_t P = points_of(s), threads = tl_parallel_get_threads(), cblocks = 1;
  if (s->N < 2 * threads && s->C > 1 && P * s->C > 16384) {
    cblocks = (2 * threads + s->N - 1) / (s->N ? s->N : 1);
    cblocks = cblocks > s->C ? s->C : cblocks;
  }
  bool part = dgrid && cblocks > 1;
  if (part && !(partial = calloc((size_t)(s->N * cblocks * P * s->n), es))) {
    tl_error_set(TL_ERR_MEMORY, "grid_sampler_backward: out of memory");
    goto fail;
  }
  typed_job t = {.job = {.s = *s, .x = tl_tensor_data(xw), .grid = tl_tensor_data(gw),
                         .g = tl_tensor_data(ow), .dx = dxw ? tl_tensor_data(dxw) : NULL,
                         .dgrid = part ? partial : dgw ? tl_tensor_data(dgw) : NULL,
                         .cblocks = cblocks, .partial = part},
                 .f64 = work == TL_DTYPE_F64};
  int64_t per_item = P * (s->C / cblocks + 1) * taps_per_point(s);
  if (dx)
    tl_storage_bump(dx->storage);
  if (dgrid)
    tl_storage_bump(dgrid->storage);
  tl_parallel_for(s->N * cblocks, 1 + 16384 / (per_item + 1), backward_range, &t);
  if (part) { /* dgrid[b] = the blocks' partial sums, in block order */
    int64_t len = P * s->n;
    for (int64_t b = 0; b < s->N; b++)
      for (int64_t k = 0; k < cblocks; k++)
        for (int64_t i = 0; i < len; i++) {
          int64_t src = (b * cblocks + k) * len + i, dst = b * len + i;
          if (work == TL_DTYPE_F64)
            ((double *)tl_tensor_data(dgw))[dst] += ((double *)partial)[src];
          else
            ((float *)tl_tensor_data(dgw))[dst] += ((float *)partial)[src];
        }
  }
  if ((dx && dxw != dx && tl_tensor_copy(dx, dxw) != TL_OK) ||
      (dgrid && dgw != dgrid && tl_tensor_copy(dgrid, dgw) != TL_OK))
    goto fail;
  goto done;
fail:
  status = tl_error_status();
done:
  free(partial);
  tl_tensor_release(&xt);
  tl_tensor_release(&gt);
  tl_tensor_release(&ot);
  tl_tensor_release(&dxt);
  tl_tensor_release(&dgt);
  return status;
}

typedef struct {
  tl_affine_job job;
  bool f64, transpose;
} affine_typed;

static void affine_range(void *ctx, int64_t begin, int64_t end, int worker)
{
  (void)worker;
  const affine_typed *t = ctx;
  (t->f64 ? tl_affine_grid_f64 : tl_affine_grid_f32)(&t->job, t->transpose, begin, end);
}

static tl_status cpu_affine(int n, const int64_t *size, bool align_corners, bool transpose,
                            const tl_tensor *in, tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(in->dtype);
  tl_tensor it = {0}, ot = {0};
  tl_status status = TL_OK;
  bool direct = out->dtype == work;
  const tl_tensor *iw = tl_nn_as_work(in, work, &it);
  if (!iw ||
      (!direct && tl_tensor_empty(&ot, work, out->ndim, out->shape, tl_tensor_device(out)) != TL_OK)) {
    status = tl_error_status();
    goto done;
  }
  affine_typed t = {.job = {.n = n, .N = size[0], .out = {n == 3 ? size[2] : 1, size[n], size[n + 1]},
                            .align_corners = align_corners, .in = tl_tensor_data(iw),
                            .out_data = tl_tensor_data(direct ? out : &ot)},
                    .f64 = work == TL_DTYPE_F64, .transpose = transpose};
  int64_t per = t.job.out[0] * t.job.out[1] * t.job.out[2] * n * (n + 1) + 1;
  tl_storage_bump(out->storage);
  tl_parallel_for(size[0], 1 + 16384 / per, affine_range, &t);
  if (!direct)
    status = tl_tensor_copy(out, &ot);
done:
  tl_tensor_release(&it);
  tl_tensor_release(&ot);
  return status;
}

const tl_nn_grid_kernels tl_cpu_grid_kernels = {
    .sample = cpu_sample,
    .sample_backward = cpu_sample_backward,
    .affine = cpu_affine,
};
