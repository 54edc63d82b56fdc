/* bessel.cu - CUDA rows of torch.special's Bessel functions J0, J1, Y0,
 * Y1, K0, K1, e^x K0, e^x K1, spherical j0 and Airy Ai: the CPU's own
 * functions (ndcore/kernels/tl_special_bessel.h, which both devices compile), in double
 * through the one elementwise launcher (tl_gpu_special.cuh); registered with
 * the other elementwise tables by kernels_gpu.c (tl_gpu_bessel_entries). */
#include "gpu/special/tl_gpu_special.cuh"
#include "gpu/special/tl_gpu_special.h"
#include "ndcore/kernels/tl_special_bessel.h"

TL_GPU_SPECIAL_FN(tl_gpu_bessel_j0_fn, tl_bessel_j0)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_j1_fn, tl_bessel_j1)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_y0_fn, tl_bessel_y0)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_y1_fn, tl_bessel_y1)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_k0_fn, tl_bessel_k0)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_k1_fn, tl_bessel_k1)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_k0e_fn, tl_bessel_k0e)
TL_GPU_SPECIAL_FN(tl_gpu_bessel_k1e_fn, tl_bessel_k1e)
TL_GPU_SPECIAL_FN(tl_gpu_spherical_j0_fn, tl_spherical_j0)
TL_GPU_SPECIAL_FN(tl_gpu_airy_ai_fn, tl_airy_ai)

extern "C" const tl_gpu_entry tl_gpu_bessel_entries[] = {
    TL_GPU_SPECIAL_ROWS(TL_OP_BESSEL_J0, tl_gpu_in_double, tl_gpu_bessel_j0_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_BESSEL_J1, tl_gpu_in_double, tl_gpu_bessel_j1_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_BESSEL_Y0, tl_gpu_in_double, tl_gpu_bessel_y0_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_BESSEL_Y1, tl_gpu_in_double, tl_gpu_bessel_y1_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_MODIFIED_BESSEL_K0, tl_gpu_in_double, tl_gpu_bessel_k0_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_MODIFIED_BESSEL_K1, tl_gpu_in_double, tl_gpu_bessel_k1_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SCALED_MODIFIED_BESSEL_K0, tl_gpu_in_double, tl_gpu_bessel_k0e_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SCALED_MODIFIED_BESSEL_K1, tl_gpu_in_double, tl_gpu_bessel_k1e_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SPHERICAL_BESSEL_J0, tl_gpu_in_double, tl_gpu_spherical_j0_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_AIRY_AI, tl_gpu_in_double, tl_gpu_airy_ai_fn),
    {0, 0, NULL},
};
