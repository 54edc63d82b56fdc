/* register.c - the CPU backend's kernel sets and their rows in the kernel
 * table: which ops each set serves.  The sets take every dtype: the kernels
 * check dtypes themselves and raise the op's own TypeError for the ones it
 * refuses, as PyTorch does.  (Elementwise ops register one loop per dtype
 * in kernels_*.c instead.)                                               */
#include "ndcore/dispatch/tl_kernel_sets.h"
#include "ndcore/kernels/tl_reduce.h"
#include "ndcore/linalg/tl_lapack.h"

/* Register `set` as the CPU kernel of each of the n ops, for every dtype. */
static void serve(const tl_op *ops, size_t n, const void *set)
{
  for (size_t i = 0; i < n; i++)
    tl_dispatch_register_set(ops[i], TL_DEVICE_CPU, TL_DTYPES_ALL, set);
}

static const tl_reduce_kernels cpu_reduce = {
    .op_reduce = tl_cpu_op_reduce,
    .op_scan = tl_cpu_op_scan,
};

/* The op layer is device-neutral (it reaches device memory through the
 * engine's device hooks, tl_reduce.h), so a device with those hooks serves
 * the reductions and scans with this same set. */
void tl_reduce_serve(tl_device_type type)
{
  static const tl_op ops[] = {
      TL_OP_SUM,    TL_OP_NANSUM, TL_OP_PROD, TL_OP_MEAN,          TL_OP_NANMEAN,
      TL_OP_VAR,    TL_OP_STD,    TL_OP_AMAX, TL_OP_AMIN,          TL_OP_ARGMAX,
      TL_OP_ARGMIN, TL_OP_ALL,    TL_OP_ANY,  TL_OP_COUNT_NONZERO, TL_OP_LOGSUMEXP,
      TL_OP_NORM,   TL_OP_MAX,    TL_OP_MIN,  TL_OP_CUMSUM,        TL_OP_CUMPROD,
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    tl_dispatch_register_set(ops[i], type, TL_DTYPES_ALL, &cpu_reduce);
}

void tl_reduce_register(void)
{
  tl_cpu_reduce_kernels_init(); /* the pass engine's loops (kernels_reduce.c) */
  tl_reduce_serve(TL_DEVICE_CPU);
}

static const tl_sort_kernels cpu_sort = {
    .sort = tl_cpu_sort,
    .topk = tl_cpu_topk,
    .kthvalue = tl_cpu_kthvalue,
    .median_all = tl_cpu_median_all,
    .median_dim = tl_cpu_median_dim,
    .quantile = tl_cpu_quantile,
    .mode = tl_cpu_mode,
    .cummax = tl_cpu_cummax,
    .unique = tl_cpu_unique,
    .unique_dim = tl_cpu_unique_dim,
    .searchsorted = tl_cpu_searchsorted,
    .bincount = tl_cpu_bincount,
    .histc = tl_cpu_histc,
};

void tl_sort_register(void)
{
  static const tl_op ops[] = {
      TL_OP_SORT,         TL_OP_ARGSORT,
      TL_OP_MSORT,        TL_OP_TOPK,
      TL_OP_KTHVALUE,     TL_OP_MEDIAN,
      TL_OP_NANMEDIAN,    TL_OP_QUANTILE,
      TL_OP_NANQUANTILE,  TL_OP_MODE,
      TL_OP_CUMMAX,       TL_OP_CUMMIN,
      TL_OP_SORT_VALUES,
      TL_OP_UNIQUE,       TL_OP_UNIQUE_CONSECUTIVE,
      TL_OP_SEARCHSORTED, TL_OP_BUCKETIZE,
      TL_OP_BINCOUNT,     TL_OP_HISTC,
  };
  serve(ops, sizeof ops / sizeof *ops, &cpu_sort);
}

static const tl_index_kernels cpu_index = {
    .index_get = tl_cpu_index_get,
    .index_put = tl_cpu_index_put,
    .index_nonzero = tl_cpu_index_nonzero,
    .index_gather = tl_cpu_index_gather,
    .index_scatter = tl_cpu_index_scatter,
    .index_select = tl_cpu_index_select,
    .index_put_along = tl_cpu_index_put_along,
    .index_take = tl_cpu_index_take,
    .index_put_flat = tl_cpu_index_put_flat,
    .index_take_along_dim = tl_cpu_index_take_along_dim,
    .index_masked_fill = tl_cpu_index_masked_fill,
    .index_masked_scatter = tl_cpu_index_masked_scatter,
    .index_masked_select = tl_cpu_index_masked_select,
};

const tl_op tl_index_ops[] = {
    TL_OP_INDEX_GET,      TL_OP_INDEX_PUT,     TL_OP_NONZERO,        TL_OP_ARGWHERE,
    TL_OP_GATHER,         TL_OP_SCATTER,       TL_OP_SCATTER_ADD,    TL_OP_SCATTER_REDUCE,
    TL_OP_INDEX_SELECT,   TL_OP_INDEX_ADD,     TL_OP_INDEX_COPY,     TL_OP_INDEX_FILL,
    TL_OP_TAKE,           TL_OP_PUT,           TL_OP_TAKE_ALONG_DIM, TL_OP_MASKED_FILL,
    TL_OP_MASKED_SCATTER, TL_OP_MASKED_SELECT,
};
const size_t tl_index_op_count = sizeof tl_index_ops / sizeof *tl_index_ops;

void tl_index_register(void) { serve(tl_index_ops, tl_index_op_count, &cpu_index); }

static const tl_linalg_kernels cpu_linalg = {
    .linalg_gemm = tl_cpu_linalg_gemm,
    .linalg_solve_ex = tl_cpu_linalg_solve_ex,
    .linalg_inv_ex = tl_cpu_linalg_inv_ex,
    .linalg_cholesky_ex = tl_cpu_linalg_cholesky_ex,
    .linalg_det = tl_cpu_linalg_det,
    .linalg_slogdet = tl_cpu_linalg_slogdet,
    .linalg_logdet = tl_cpu_linalg_logdet,
    .linalg_qr = tl_cpu_linalg_qr,
    .linalg_svd = tl_cpu_linalg_svd,
    .linalg_eigh = tl_cpu_linalg_eigh,
    .linalg_eig = tl_cpu_linalg_eig,
    .linalg_lu_factor_ex = tl_cpu_linalg_lu_factor_ex,
    .linalg_lu = tl_cpu_linalg_lu,
    .linalg_lu_solve = tl_cpu_linalg_lu_solve,
    .linalg_solve_triangular = tl_cpu_linalg_solve_triangular,
    .linalg_lstsq = tl_cpu_linalg_lstsq,
    .linalg_vector_norm = tl_linalg_device_vector_norm,
    .linalg_cross = tl_cpu_linalg_cross,
};

/* Apart from cpu_linalg: the devices that take the linalg family
 * (tl_dispatch_register_family) have no LDL yet (docs/gpu.md). */
static const tl_linalg_kernels cpu_ldl = {
    .linalg_ldl_factor_ex = tl_cpu_linalg_ldl_factor_ex,
    .linalg_ldl_solve = tl_cpu_linalg_ldl_solve,
};

void tl_linalg_register(void)
{
  static const tl_op ops[] = {
      TL_OP_MM,
      TL_OP_MATMUL,
      TL_OP_BMM,
      TL_OP_MV,
      TL_OP_DOT,
      TL_OP_VDOT,
      TL_OP_INNER,
      TL_OP_OUTER,
      TL_OP_GER,
      TL_OP_ADDMM,
      TL_OP_ADDBMM,
      TL_OP_BADDBMM,
      TL_OP_ADDMV,
      TL_OP_ADDR,
      TL_OP_TENSORDOT,
      TL_OP_KRON,
      TL_OP_TRACE,
      TL_OP_SOLVE,
      TL_OP_INV,
      TL_OP_CHOLESKY,
      TL_OP_DET,
      TL_OP_SLOGDET,
      TL_OP_LOGDET,
      TL_OP_QR, TL_OP_GEQRF,
      TL_OP_SVD,
      TL_OP_EIGH,
      TL_OP_EIG,
      TL_OP_LU_FACTOR,
      TL_OP_LU,
      TL_OP_LU_SOLVE,
      TL_OP_SOLVE_TRIANGULAR,
      TL_OP_LSTSQ,
      TL_OP_VECTOR_NORM,
      TL_OP_CROSS,
  };
  serve(ops, sizeof ops / sizeof *ops, &cpu_linalg);
  static const tl_op ldl_ops[] = {TL_OP_LDL_FACTOR, TL_OP_LDL_SOLVE};
  serve(ldl_ops, sizeof ldl_ops / sizeof *ldl_ops, &cpu_ldl);
}

static const tl_random_kernels cpu_random = {
    .random_fill = tl_cpu_random_fill,
    .random_permutation = tl_cpu_random_permutation,
    .random_poisson = tl_cpu_random_poisson,
    .random_multinomial = tl_cpu_random_multinomial,
    .random_sample = tl_cpu_random_sample,
};

void tl_random_register(void)
{
  static const tl_op ops[] = {
      TL_OP_UNIFORM,     TL_OP_NORMAL,  TL_OP_RANDOM_INTEGER, TL_OP_BERNOULLI,
      TL_OP_EXPONENTIAL, TL_OP_CAUCHY,  TL_OP_LOG_NORMAL,     TL_OP_GEOMETRIC,
      TL_OP_RANDPERM,    TL_OP_POISSON, TL_OP_MULTINOMIAL,
      TL_OP_STANDARD_GAMMA, TL_OP_BINOMIAL,
  };
  serve(ops, sizeof ops / sizeof *ops, &cpu_random);
}

static const tl_create_kernels cpu_create = {
    .tensor_fill = tl_cpu_tensor_fill,
    .tensor_arange_fill = tl_cpu_tensor_arange_fill,
    .tensor_linspace_fill = tl_cpu_tensor_linspace_fill,
    .tensor_eye_fill = tl_cpu_tensor_eye_fill,
};

void tl_create_register(void)
{
  static const tl_op ops[] = {
      TL_OP_FILL,
      TL_OP_ARANGE,
      TL_OP_LINSPACE,
      TL_OP_EYE,
  };
  serve(ops, sizeof ops / sizeof *ops, &cpu_create);
}
