/* normal.cu - CUDA rows of torch.special's erfcx, ndtr, log_ndtr, ndtri,
 * entr, xlog1py, igamma, igammac and zeta: the CPU's own
 * functions (ndcore/kernels/tl_special_normal.h, which both devices compile), in double
 * through the one elementwise launcher (tl_gpu_special.cuh); registered with
 * the other elementwise tables by kernels_gpu.c (tl_gpu_normal_entries). */
#include "gpu/special/tl_gpu_special.cuh"
#include "gpu/special/tl_gpu_special.h"
#include "ndcore/kernels/tl_special_normal.h"

TL_GPU_SPECIAL_FN(tl_gpu_erfcx_fn, tl_erfcx)
TL_GPU_SPECIAL_FN(tl_gpu_ndtr_fn, tl_ndtr)
TL_GPU_SPECIAL_FN(tl_gpu_log_ndtr_fn, tl_log_ndtr)
TL_GPU_SPECIAL_FN(tl_gpu_ndtri_fn, tl_ndtri)
TL_GPU_SPECIAL_FN(tl_gpu_entr_fn, tl_entr)
TL_GPU_SPECIAL_FN(tl_gpu_xlog1py_fn, tl_xlog1py)
TL_GPU_SPECIAL_FN(tl_gpu_zeta_fn, tl_zeta)
TL_GPU_SPECIAL_FN(tl_gpu_igamma_fn, tl_igamma)
TL_GPU_SPECIAL_FN(tl_gpu_igammac_fn, tl_igammac)

extern "C" const tl_gpu_entry tl_gpu_normal_entries[] = {
    TL_GPU_SPECIAL_ROWS(TL_OP_ERFCX, tl_gpu_in_double, tl_gpu_erfcx_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_NDTR, tl_gpu_in_double, tl_gpu_ndtr_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_LOG_NDTR, tl_gpu_in_double, tl_gpu_log_ndtr_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_NDTRI, tl_gpu_in_double, tl_gpu_ndtri_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_ENTR, tl_gpu_in_double, tl_gpu_entr_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_XLOG1PY, tl_gpu_in_double2, tl_gpu_xlog1py_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_ZETA, tl_gpu_in_double2, tl_gpu_zeta_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_IGAMMA, tl_gpu_in_double2, tl_gpu_igamma_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_IGAMMAC, tl_gpu_in_double2, tl_gpu_igammac_fn),
    {0, 0, NULL},
};
