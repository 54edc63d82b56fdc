/* emulate.c - test hook: the fake device as a device with kernels of its own.
 *
 * Device kernels cannot run without their device, but the code around them
 * can: the op layer's paths for memory host code cannot read (tl_op_map
 * casting inputs on the device, computing into a scratch output, handing
 * CPU scalars over by value; the reductions' device passes and elementwise
 * finishes; copies through tl_copy_through; the index ops' primitives and
 * the device error record).  This hook gives the fake device whole-plan
 * kernels (tl_iter_kernel), a copy kernel, creation kernels, the reductions'
 * and scans' passes, index primitives, the sort family's kernels and the linalg set's
 * hosted wrappers that are the CPU's, each run with the fake device's
 * memory counted as host memory for the duration of the kernel only:
 * everything outside a kernel takes the device paths, as on CUDA.  Fake
 * storages hold plain host addresses from then on.  One-way: for a test's
 * own process (tests/test_cuda_kernels.py, test_cuda_index.py,
 * test_cuda_sort.py, test_cuda_linalg.py, test_cuda_reduce.py).         */
#include "ndcore/dispatch/tl_emulate.h"

#include "gpu/tl_device_errors.h"
#include "gpu/tl_gpu.h"
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/tensor/tl_backend.h"

static tl_status run_elementwise(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  const tl_kernel *cpu = self->ctx;
  TL_EMU_HOSTED(tl_iter_run((tl_iter *)it, cpu->loop, (void *)data));
}

/* Float maximum/minimum as CUDA computes them (elementwise_compare.cu):
 * element by element, each by the rule of its place in the CPU's runs
 * (tl_extrema_rule.h), so the emulated device checks that rule against the
 * CPU's own loops.  The plain form runs the CPU's loop, which is plain. */
static void extrema_elements(const tl_iter *it, const tl_extrema_runs *r, bool is_max, bool f64)
{
  const int nd = it->ndim;
  for (int64_t i = 0; i < it->numel; i++) {
    char *at[3];
    int64_t rest = i;
    for (int k = 0; k < 3; k++)
      at[k] = it->data[k];
    for (int d = nd - 1; d >= 0; d--) {
      int64_t c = rest % it->shape[d];
      rest /= it->shape[d];
      for (int k = 0; k < 3; k++)
        at[k] += c * it->strides[k][d];
    }
    bool vector = tl_extrema_vector_place(r, i);
    if (f64)
      *(double *)at[0] = tl_extrema_f64(is_max, vector, *(const double *)at[1],
                                        *(const double *)at[2]);
    else
      *(float *)at[0] = tl_extrema_f32(is_max, vector, *(const float *)at[1],
                                       *(const float *)at[2]);
  }
}

static tl_status run_extrema(const tl_iter_kernel *self, const tl_iter *it, const void *data)
{
  const tl_kernel *cpu = self->ctx;
  const tl_op_params *p = data;
  if ((p && p->i == TL_OP_EXTREMA_PLAIN) || it->numel == 0)
    return run_elementwise(self, it, data);
  const bool f64 = it->loop_dtype[0] == TL_DTYPE_F64;
  const bool is_max = cpu == &tl_dispatch_table[TL_OP_MAXIMUM][TL_DEVICE_CPU][it->loop_dtype[0]];
  tl_extrema_runs r;
  tl_iter_extrema_runs(it, f64 ? 8 : 4, p && p->i == TL_OP_EXTREMA_BUFFERED, &r);
  tl_parallel_context++; /* as TL_EMU_HOSTED */
  tl_backend_fake_open();
  extrema_elements(it, &r, is_max, f64);
  tl_backend_fake_close();
  tl_parallel_context--;
  return TL_OK;
}

static tl_status run_copy(const tl_iter *it)
{
  TL_EMU_HOSTED(tl_iter_run((tl_iter *)it, tl_cast_loop(it->dtype[1], it->dtype[0]), NULL));
}

static tl_status emu_copy(tl_tensor *dst, const tl_tensor *src)
{
  return tl_copy_through(dst, src, run_copy);
}

static tl_status emu_pass(tl_rkind kind, const tl_tensor *in, uint64_t mask, tl_dtype loop,
                          tl_tensor *acc, const tl_tensor *aux, void *data)
{
  TL_EMU_HOSTED(tl_reduce_pass(kind, in, mask, loop, acc, aux, data));
}

static tl_status emu_index(bool is_max, const tl_tensor *in, int dim, tl_tensor *values,
                           tl_tensor *indices)
{
  TL_EMU_HOSTED(tl_reduce_index_pass(is_max, in, dim, values, indices));
}

static tl_status emu_scan(bool prod, tl_tensor *work, int64_t len, int64_t inner)
{
  TL_EMU_HOSTED(tl_scan_pass(prod, work, len, inner));
}

/* The CPU's creation kernels, each as a kernel of the fake device. */
static tl_status emu_fill(tl_tensor *t, tl_scalar v) { TL_EMU_HOSTED(tl_cpu_tensor_fill(t, v)); }
static tl_status emu_arange(tl_tensor *out, tl_scalar start, tl_scalar step)
{
  TL_EMU_HOSTED(tl_cpu_tensor_arange_fill(out, start, step));
}
static tl_status emu_linspace(tl_tensor *out, tl_scalar start, tl_scalar end, bool log,
                              tl_scalar base)
{
  TL_EMU_HOSTED(tl_cpu_tensor_linspace_fill(out, start, end, log, base));
}
static tl_status emu_eye(tl_tensor *out) { TL_EMU_HOSTED(tl_cpu_tensor_eye_fill(out)); }

/* The CPU's sort family (sort.c, search.c), each as a kernel of the fake
 * device: outputs are allocated on the fake device; the nested calls the
 * CPU's kernels make (unique's sort, median's per-dim pass, copies) come
 * back here and keep the flag set. */
static tl_status emu_sort(const tl_tensor *in, int64_t dim, bool desc, bool stable, tl_tensor *v,
                          tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_sort(in, dim, desc, stable, v, i));
}
static tl_status emu_topk(const tl_tensor *in, int64_t k, int64_t dim, bool largest, tl_tensor *v,
                          tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_topk(in, k, dim, largest, v, i));
}
static tl_status emu_kthvalue(const tl_tensor *in, int64_t k, int64_t dim, bool keepdim,
                              tl_tensor *v, tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_kthvalue(in, k, dim, keepdim, v, i));
}
static tl_status emu_median_all(const tl_tensor *in, bool ignore_nan, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_median_all(in, ignore_nan, out));
}
static tl_status emu_median_dim(const tl_tensor *in, int64_t dim, bool keepdim, bool ignore_nan,
                                tl_tensor *v, tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_median_dim(in, dim, keepdim, ignore_nan, v, i));
}
static tl_status emu_quantile(const tl_tensor *in, const double *q, int64_t nq, bool q_scalar,
                              bool all_dims, int64_t dim, bool keepdim, tl_quantile_method method,
                              bool ignore_nan, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_quantile(in, q, nq, q_scalar, all_dims, dim, keepdim, method, ignore_nan, out));
}
static tl_status emu_mode(const tl_tensor *in, int64_t dim, bool keepdim, tl_tensor *v,
                          tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_mode(in, dim, keepdim, v, i));
}
static tl_status emu_cummax(const tl_tensor *in, int64_t dim, bool is_min, tl_tensor *v,
                            tl_tensor *i)
{
  TL_EMU_HOSTED(tl_cpu_cummax(in, dim, is_min, v, i));
}
static tl_status emu_unique(const tl_tensor *in, bool consecutive, tl_tensor *out, tl_tensor *inv,
                            tl_tensor *counts)
{
  TL_EMU_HOSTED(tl_cpu_unique(in, consecutive, out, inv, counts));
}
static tl_status emu_unique_dim(const tl_tensor *in, int64_t dim, bool consecutive, tl_tensor *out,
                                tl_tensor *inv, tl_tensor *counts)
{
  TL_EMU_HOSTED(tl_cpu_unique_dim(in, dim, consecutive, out, inv, counts));
}
static tl_status emu_searchsorted(const tl_tensor *seq, const tl_tensor *values, bool right,
                                  const tl_tensor *sorter, bool out_int32, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_searchsorted(seq, values, right, sorter, out_int32, out));
}
static tl_status emu_bincount(const tl_tensor *in, const tl_tensor *w, int64_t minlength,
                              tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_bincount(in, w, minlength, out));
}
static tl_status emu_histc(const tl_tensor *in, int64_t bins, double min, double max,
                           tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_histc(in, bins, min, max, out));
}

/* The index ops' passes.  A bad index is recorded in the fake device's error
 * record and raised at its next synchronization, as a CUDA kernel's is. */
static tl_status hosted_offsets(const tl_tensor *off, const tl_tensor *idx,
                                const tl_index_offsets_args *a, bool *bad, int64_t *value)
{
  TL_EMU_HOSTED(tl_cpu_index_offsets_pass(off, idx, a, bad, value));
}
static tl_status emu_offsets(const tl_tensor *off, const tl_tensor *idx,
                             const tl_index_offsets_args *a)
{
  bool bad = false;
  int64_t value = 0;
  tl_device_error *word;
  const tl_device device = tl_tensor_device(off);
  const tl_backend *b = tl_backend_get(device);
  if (!b || tl_device_errors_word(device, b->current_stream(device), &word) != TL_OK)
    return tl_error_status();
  tl_status status = hosted_offsets(off, idx, a, &bad, &value);
  if (status == TL_OK && bad)
    tl_device_errors_record(word, tl_device_errors_op(tl_device_errors_current()), a->dim, value,
                            a->size, a->err, TL_DEVICE_ERROR_BOUNDS);
  return status;
}
static tl_status emu_move(bool scatter, const tl_tensor *data, const tl_tensor *base,
                          const tl_tensor *off, tl_index_reduce reduce)
{
  TL_EMU_HOSTED(tl_cpu_index_move(scatter, data, base, off, reduce));
}
static tl_status emu_nonzero(tl_tensor *out, const tl_tensor *mask)
{
  TL_EMU_HOSTED(tl_cpu_index_nonzero_bool(out, mask));
}
static tl_status emu_masked_fill(tl_tensor *self, const tl_tensor *mask, const tl_tensor *value)
{
  TL_EMU_HOSTED(tl_cpu_index_masked_fill_pass(self, mask, value));
}
static tl_status emu_mean_divide(tl_tensor *self, const tl_tensor *count)
{
  TL_EMU_HOSTED(tl_cpu_index_mean_divide(self, count));
}
static tl_status emu_scale(tl_tensor *out, const tl_tensor *src, tl_scalar alpha)
{
  TL_EMU_HOSTED(tl_cpu_index_scale(out, src, alpha));
}

/* The CPU's random kernels: with the fake device's default generator (the
 * CPU's), the same draws as the CPU, as CUDA's are. */
static tl_status emu_random_fill(tl_generator *g, tl_tensor *t, const tl_random_dist *d)
{
  TL_EMU_HOSTED(tl_cpu_random_fill(g, t, d));
}
static tl_status emu_random_permutation(tl_generator *g, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_random_permutation(g, out));
}
static tl_status emu_random_poisson(tl_generator *g, const tl_tensor *rates, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_random_poisson(g, rates, out));
}
static tl_status emu_random_multinomial(tl_generator *g, const tl_tensor *probs, int64_t n,
                                        bool replacement, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_random_multinomial(g, probs, n, replacement, out));
}

static tl_status emu_random_sample(tl_generator *g, const tl_random_sample_spec *spec,
                                   const tl_tensor *a, const tl_tensor *b, tl_tensor *out)
{
  TL_EMU_HOSTED(tl_cpu_random_sample(g, spec, a, b, out));
}

tl_status tl_dispatch_emulate_device(void)
{
  static tl_iter_kernel kernels[TL_OP_COUNT][TL_DTYPE_COUNT];
  static const tl_copy_kernels copy = {.copy = emu_copy};
  static const tl_create_kernels create = {.tensor_fill = emu_fill,
                                           .tensor_arange_fill = emu_arange,
                                           .tensor_linspace_fill = emu_linspace,
                                           .tensor_eye_fill = emu_eye};
  static const tl_op create_ops[] = {TL_OP_FILL, TL_OP_ARANGE, TL_OP_LINSPACE, TL_OP_EYE};
  static const tl_sort_kernels sort = {
      .sort = emu_sort, .topk = emu_topk, .kthvalue = emu_kthvalue,
      .median_all = emu_median_all, .median_dim = emu_median_dim, .quantile = emu_quantile,
      .mode = emu_mode, .cummax = emu_cummax, .unique = emu_unique,
      .unique_dim = emu_unique_dim, .searchsorted = emu_searchsorted,
      .bincount = emu_bincount, .histc = emu_histc};
  static const tl_random_kernels random = {
      .random_fill = emu_random_fill,
      .random_permutation = emu_random_permutation,
      .random_poisson = emu_random_poisson,
      .random_multinomial = emu_random_multinomial,
      .random_sample = emu_random_sample};
  static const tl_op random_ops[] = {
      TL_OP_UNIFORM,     TL_OP_NORMAL,  TL_OP_RANDOM_INTEGER, TL_OP_BERNOULLI,
      TL_OP_EXPONENTIAL, TL_OP_CAUCHY,  TL_OP_LOG_NORMAL,     TL_OP_GEOMETRIC,
      TL_OP_RANDPERM,    TL_OP_POISSON, TL_OP_MULTINOMIAL,
      TL_OP_STANDARD_GAMMA, TL_OP_BINOMIAL};
  if (tl_dispatch_host_memory_table[TL_DEVICE_FAKE]) /* tl_dispatch_lend_cpu_kernels's */
    return tl_error_set(TL_ERR_RUNTIME, "the fake device has the CPU's kernels lent already");
  tl_backend_fake_plain_pointers(true);
  tl_backend_fake_guard_from_env();
  for (int op = 0; op < TL_OP_COUNT; op++) {
    if (!tl_opkind_is_elementwise(tl_op_infos[op].kind))
      continue;
    for (int d = 0; d < TL_DTYPE_COUNT; d++) {
      const tl_kernel *cpu = &tl_dispatch_table[op][TL_DEVICE_CPU][d];
      if (!cpu->loop)
        continue;
      kernels[op][d] = (tl_iter_kernel){.run = run_elementwise, .ctx = cpu};
      if ((op == TL_OP_MAXIMUM || op == TL_OP_MINIMUM) &&
          (d == TL_DTYPE_F32 || d == TL_DTYPE_F64)) /* CUDA's element-wise rule */
        kernels[op][d].run = run_extrema;
      tl_dispatch_register_set((tl_op)op, TL_DEVICE_FAKE, TL_DTYPES_ONE(d), &kernels[op][d]);
    }
  }
  tl_dispatch_register_set(TL_OP_COPY, TL_DEVICE_FAKE, TL_DTYPES_ALL, &copy);
  for (size_t i = 0; i < sizeof create_ops / sizeof *create_ops; i++)
    tl_dispatch_register_set(create_ops[i], TL_DEVICE_FAKE, TL_DTYPES_ALL, &create);
  for (size_t i = 0; i < sizeof random_ops / sizeof *random_ops; i++)
    tl_dispatch_register_set(random_ops[i], TL_DEVICE_FAKE, TL_DTYPES_ALL, &random);
  /* The reductions and scans, as CUDA runs them (reduce_gpu.c): the op
   * layer is shared, the passes are the CPU's. */
  tl_reduce_serve(TL_DEVICE_FAKE);
  tl_reduce_device_pass[TL_DEVICE_FAKE] = emu_pass;
  tl_reduce_index_device[TL_DEVICE_FAKE] = emu_index;
  tl_scan_device[TL_DEVICE_FAKE] = emu_scan;
  tl_dispatch_register_family(TL_OP_SORT, TL_DEVICE_FAKE, &sort);
  /* linalg: the CUDA set's hosted wrappers for every op (src/gpu/linalg). */
  tl_gpu_linalg_register_hosted(TL_DEVICE_FAKE);
  static const tl_index_device_kernels index = {
      .offsets = emu_offsets,         .move = emu_move,
      .nonzero = emu_nonzero,         .masked_fill = emu_masked_fill,
      .mean_divide = emu_mean_divide, .scale = emu_scale,
  };
  tl_index_register_device(TL_DEVICE_FAKE, &index);
  return TL_OK;
}
