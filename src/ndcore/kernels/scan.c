/* scan.c - cumulative sums and products along one dim (ops.def SCAN).
 *
 * Result dtype as PyTorch: dtype= if given, else int64 for bool/integers,
 * else the input's.  The input is read as the work dtype of that result
 * (int64, double or complex128: float32 scans accumulate in double) and
 * each line is scanned in order; lines are split across the pool.  The
 * work tensor is cast into the result last.  A device's work tensor goes
 * to its scan pass (tl_reduce.h); the rest is the same on every device.      */
#include <complex.h>
#include <string.h>

#include "ndcore/dispatch/tl_dispatch.h"
#include "ndcore/dispatch/tl_op.h"
#include "ndcore/dispatch/tl_parallel.h"
#include "ndcore/kernels/tl_reduce.h"

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
  int64_t len = in->ndim ? in->shape[w] : 1, inner = 1;
  for (int i = w + 1; i < in->ndim; i++)
    inner *= in->shape[i];
  if ((status = tl_scan_pass(op == TL_OP_CUMPROD, &acc, len, inner)) != TL_OK) {
    tl_tensor_release(&acc);
    return status;
  }
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
