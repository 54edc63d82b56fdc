/* polynomial.cu - CUDA rows of torch.special's orthogonal polynomials p(x, n)
 * (Chebyshev T U V W and shifted, Hermite H He, Laguerre L, Legendre P): the CPU's own
 * functions (ndcore/kernels/tl_special_poly.h, which both devices compile), in double
 * through the one elementwise launcher (tl_gpu_special.cuh); registered with
 * the other elementwise tables by kernels_gpu.c (tl_gpu_polynomial_entries). */
#include "gpu/special/tl_gpu_special.cuh"
#include "gpu/special/tl_gpu_special.h"
#include "ndcore/kernels/tl_special_poly.h"

TL_GPU_SPECIAL_FN(tl_gpu_chebyshev_t_fn, tl_chebyshev_t)
TL_GPU_SPECIAL_FN(tl_gpu_chebyshev_u_fn, tl_chebyshev_u)
TL_GPU_SPECIAL_FN(tl_gpu_chebyshev_v_fn, tl_chebyshev_v)
TL_GPU_SPECIAL_FN(tl_gpu_chebyshev_w_fn, tl_chebyshev_w)
TL_GPU_SPECIAL_FN(tl_gpu_shifted_chebyshev_t_fn, tl_shifted_chebyshev_t)
TL_GPU_SPECIAL_FN(tl_gpu_shifted_chebyshev_u_fn, tl_shifted_chebyshev_u)
TL_GPU_SPECIAL_FN(tl_gpu_shifted_chebyshev_v_fn, tl_shifted_chebyshev_v)
TL_GPU_SPECIAL_FN(tl_gpu_shifted_chebyshev_w_fn, tl_shifted_chebyshev_w)
TL_GPU_SPECIAL_FN(tl_gpu_hermite_h_fn, tl_hermite_h)
TL_GPU_SPECIAL_FN(tl_gpu_hermite_he_fn, tl_hermite_he)
TL_GPU_SPECIAL_FN(tl_gpu_laguerre_l_fn, tl_laguerre_l)
TL_GPU_SPECIAL_FN(tl_gpu_legendre_p_fn, tl_legendre_p)

extern "C" const tl_gpu_entry tl_gpu_polynomial_entries[] = {
    TL_GPU_SPECIAL_ROWS(TL_OP_CHEBYSHEV_POLYNOMIAL_T, tl_gpu_in_double2, tl_gpu_chebyshev_t_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_CHEBYSHEV_POLYNOMIAL_U, tl_gpu_in_double2, tl_gpu_chebyshev_u_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_CHEBYSHEV_POLYNOMIAL_V, tl_gpu_in_double2, tl_gpu_chebyshev_v_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_CHEBYSHEV_POLYNOMIAL_W, tl_gpu_in_double2, tl_gpu_chebyshev_w_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_T, tl_gpu_in_double2,
                        tl_gpu_shifted_chebyshev_t_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_U, tl_gpu_in_double2,
                        tl_gpu_shifted_chebyshev_u_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_V, tl_gpu_in_double2,
                        tl_gpu_shifted_chebyshev_v_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_W, tl_gpu_in_double2,
                        tl_gpu_shifted_chebyshev_w_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_HERMITE_POLYNOMIAL_H, tl_gpu_in_double2, tl_gpu_hermite_h_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_HERMITE_POLYNOMIAL_HE, tl_gpu_in_double2, tl_gpu_hermite_he_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_LAGUERRE_POLYNOMIAL_L, tl_gpu_in_double2, tl_gpu_laguerre_l_fn),
    TL_GPU_SPECIAL_ROWS(TL_OP_LEGENDRE_POLYNOMIAL_P, tl_gpu_in_double2, tl_gpu_legendre_p_fn),
    {0, 0, NULL},
};
