/* meta.c - the meta device's kernels: each does nothing.
 *
 * PyTorch's meta device runs ops for their shapes only.  Here the op layer
 * is device-neutral already (tl_op_map, the reductions' op layer, the index
 * ops over their primitives, the products' shape checks): it checks the
 * arguments, computes the result's shape, dtype and layout and allocates it
 * on the inputs' device, a meta storage of no memory (backend_meta.c), then
 * calls the device's kernel, which here returns at once.  So a family gets
 * the meta device by registering kernels that do nothing, family by family,
 * as emulate.c registers the fake device's.
 *
 * Families or members whose output shape depends on the data (nonzero,
 * masked_select, unique, bincount ...) or whose kernels allocate outputs of
 * shapes only they know (most of linalg, the sort family but sort/argsort)
 * have no meta kernel: the kernel table's NotImplementedError names the op
 * and the meta device, or PyTorch's own words where it has them.            */
#include "ndcore/dispatch/tl_meta.h"

#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/kernels/tl_sort_args.h"
#include "ndcore/linalg/tl_lapack.h"

/* ---- elementwise, copy, creation, random: outputs arrive allocated ---------- */

static tl_status meta_run(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  (void)self, (void)it, (void)data;
  return TL_OK;
}

static tl_status meta_copy(tl_tensor *dst, const tl_tensor *src)
{
  (void)dst, (void)src;
  return TL_OK;
}

static tl_status meta_fill(tl_tensor *t, tl_scalar v)
{
  (void)t, (void)v;
  return TL_OK;
}
static tl_status meta_arange(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  (void)out, (void)start, (void)step;
  return TL_OK;
}
static tl_status meta_linspace(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                               tl_scalar base)
{
  (void)out, (void)start, (void)end, (void)log, (void)base;
  return TL_OK;
}
static tl_status meta_eye(tl_tensor *out)
{
  (void)out;
  return TL_OK;
}

static tl_status meta_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  (void)g, (void)t, (void)d;
  return TL_OK;
}
static tl_status meta_random_permutation(tl_generator *g, tl_tensor *out)
{
  (void)g, (void)out;
  return TL_OK;
}

/* ---- reductions and scans: the op layer allocates, the passes do nothing ---- */

static tl_status meta_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                           tl_tensor *acc, const tl_tensor *aux, void *data)
{
  (void)kind, (void)in, (void)mask, (void)loop, (void)acc, (void)aux, (void)data;
  return TL_OK;
}
static tl_status meta_index_pass(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                                 tl_tensor *indices)
{
  (void)is_max, (void)in, (void)dim, (void)values, (void)indices;
  return TL_OK;
}
static tl_status meta_scan(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  (void)prod, (void)work, (void)len, (void)inner;
  return TL_OK;
}

/* ---- sort/argsort: outputs of the input's shape ------------------------------ */

static tl_status meta_sort(const tl_tensor *in, int64_t dim, bool desc, bool stable, tl_tensor *v,
                           tl_tensor *i)
{
  int d;
  (void)desc, (void)stable;
  if (tl_sort_check_dim(v ? "sort" : "argsort", in, dim, &d) != TL_OK)
    return tl_error_status();
  return tl_sort_alloc_pair(in, in->ndim, in->shape, v, i);
}

/* ---- products: the shapes are checked, out arrives allocated ----------------- */

static tl_status meta_gemm(tl_tensor *out, const tl_tensor *a, const tl_tensor *b,
                           tl_scalar alpha, tl_scalar beta, bool reduce_batch)
{
  tl_gemm_shape g;
  (void)alpha, (void)beta;
  return tl_linalg_gemm_shape(out, a, b, reduce_batch, &g);
}

/* ---- index primitives: offsets and moves do nothing; nonzero has no shape ---- */

static tl_status meta_offsets(const tl_tensor *off, const tl_tensor *idx,
                              const tl_index_offsets_args *a)
{
  (void)off, (void)idx, (void)a;
  return TL_OK;
}
static tl_status meta_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                           const tl_tensor *off, tl_index_reduce reduce)
{
  (void)scatter, (void)data, (void)base, (void)off, (void)reduce;
  return TL_OK;
}
/* PyTorch's words: its meta nonzero refuses for the same reason. */
static tl_status meta_nonzero(tl_tensor *out, const tl_tensor *mask)
{
  (void)out, (void)mask;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                      "The register_meta function for torch.nonzero() raises unimplemented by "
                      "default, as a correct data-independent implementation does not exist.");
}
static tl_status meta_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  (void)self, (void)mask, (void)value;
  return TL_OK;
}
static tl_status meta_mean_divide(tl_tensor *self, const tl_tensor *count)
{
  (void)self, (void)count;
  return TL_OK;
}
static tl_status meta_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  (void)alpha;
  return tl_tensor_empty(out, src->dtype, src->ndim, src->shape, tl_tensor_device(src));
}

/* Ops whose output shape is the count of the mask's true elements: the index
 * set's members for them refuse before reading the mask (PyTorch's words). */
static tl_status meta_index_nonzero(tl_tensor *out, const tl_tensor *in)
{
  return meta_nonzero(out, in);
}
static tl_status meta_masked_select(tl_tensor *out, const tl_tensor *in, const tl_tensor *mask)
{
  (void)out, (void)in, (void)mask;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED,
                      "aten::masked_select: attempted to run this operator with Meta tensors, "
                      "but there was no fake impl or Meta kernel registered.");
}
static tl_status meta_masked_scatter(tl_tensor *self, const tl_tensor *mask, const tl_tensor *src)
{
  (void)mask, (void)src, (void)self;
  return TL_OK;
}

void tl_dispatch_meta_register(void)
{
  static const tl_iter_kernel elementwise = {.run = meta_run};
  static const tl_copy_kernels copy = {.copy = meta_copy};
  static const tl_create_kernels create = {.tensor_fill = meta_fill,
                                           .tensor_arange_fill = meta_arange,
                                           .tensor_linspace_fill = meta_linspace,
                                           .tensor_eye_fill = meta_eye};
  static const tl_op create_ops[] = {TL_OP_FILL, TL_OP_ARANGE, TL_OP_LINSPACE, TL_OP_EYE};
  static const tl_random_kernels random = {.random_fill = meta_random_fill,
                                           .random_permutation = meta_random_permutation};
  /* the draws that fill a tensor the op layer allocated (poisson, multinomial,
   * gamma and binomial sample through buffers of their own: not here) */
  static const tl_op random_ops[] = {
      TL_OP_UNIFORM,     TL_OP_NORMAL, TL_OP_RANDOM_INTEGER, TL_OP_BERNOULLI,
      TL_OP_EXPONENTIAL, TL_OP_CAUCHY, TL_OP_LOG_NORMAL,     TL_OP_GEOMETRIC,
      TL_OP_RANDPERM};
  static const tl_sort_kernels sort = {.sort = meta_sort};
  static const tl_op sort_ops[] = {TL_OP_SORT, TL_OP_ARGSORT, TL_OP_MSORT};
  static const tl_linalg_kernels products = {.linalg_gemm = meta_gemm,
                                             .linalg_vector_norm = tl_linalg_device_vector_norm};
  /* the products, all through gemm (matmul.c), and vector_norm, made of
   * elementwise ops and reductions; the decompositions allocate their own
   * outputs and have no meta kernel */
  static const tl_op product_ops[] = {
      TL_OP_MM,    TL_OP_MATMUL, TL_OP_BMM,     TL_OP_MV,     TL_OP_DOT,
      TL_OP_VDOT,  TL_OP_INNER,  TL_OP_OUTER,   TL_OP_GER,    TL_OP_ADDMM,
      TL_OP_ADDBMM, TL_OP_BADDBMM, TL_OP_ADDMV, TL_OP_ADDR,   TL_OP_TENSORDOT,
      TL_OP_KRON,  TL_OP_TRACE,  TL_OP_VECTOR_NORM};
  static const tl_index_device_kernels prims = {
      .offsets = meta_offsets,         .move = meta_move,
      .nonzero = meta_nonzero,         .masked_fill = meta_masked_fill,
      .mean_divide = meta_mean_divide, .scale = meta_scale,
  };
  static tl_index_kernels index;

  for (int op = 0; op < TL_OP_COUNT; op++) {
    tl_opkind kind = tl_op_infos[op].kind;
    if (kind != TL_OPKIND_UNARY && kind != TL_OPKIND_BINARY && kind != TL_OPKIND_WHERE &&
        kind != TL_OPKIND_CLAMP)
      continue;
    for (int d = 0; d < TL_DTYPE_COUNT; d++)
      if (tl_dispatch_table[op][TL_DEVICE_CPU][d].loop) /* the CPU's dtypes: same TypeErrors */
        tl_dispatch_register_set((tl_op)op, TL_DEVICE_META, TL_DTYPES_ONE(d), &elementwise);
  }
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_META, TL_DTYPES_ALL, &copy);
  for (size_t i = 0; i < sizeof create_ops / sizeof *create_ops; i++)
    tl_dispatch_register_set(create_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &create);
  for (size_t i = 0; i < sizeof random_ops / sizeof *random_ops; i++)
    tl_dispatch_register_set(random_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &random);
  for (size_t i = 0; i < sizeof sort_ops / sizeof *sort_ops; i++)
    tl_dispatch_register_set(sort_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &sort);
  for (size_t i = 0; i < sizeof product_ops / sizeof *product_ops; i++)
    tl_dispatch_register_set(product_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &products);
  tl_reduce_serve(TL_DEVICE_META);
  tl_reduce_device_pass[TL_DEVICE_META] = meta_pass;
  tl_reduce_index_device[TL_DEVICE_META] = meta_index_pass;
  tl_scan_device[TL_DEVICE_META] = meta_scan;
  /* The index ops over the primitives above, but for the ops whose output
   * shape is a count of the data: they refuse before reading it. */
  tl_index_register_device(TL_DEVICE_META, &prims);
  index = *(const tl_index_kernels *)tl_dispatch_table[TL_OP_INDEX_GET][TL_DEVICE_META][0].set;
  index.index_nonzero = meta_index_nonzero;
  index.index_masked_select = meta_masked_select;
  index.index_masked_scatter = meta_masked_scatter;
  for (size_t i = 0; i < tl_index_op_count; i++)
    tl_dispatch_register_set(tl_index_ops[i], TL_DEVICE_META, TL_DTYPES_ALL, &index);
  tl_nn_meta_register();
}
