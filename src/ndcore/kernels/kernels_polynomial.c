/* kernels_polynomial.c - CPU loops of torch.special's orthogonal polynomials
 * p(x, n): Chebyshev T U V W and their shifted forms, Hermite H and He,
 * Laguerre L, Legendre P (float32 and float64; integers arrive as the
 * default float, half types through float32; the order n arrives in x's
 * dtype).  The polynomials are tl_special_poly.h's, which the CUDA kernels
 * compile too; float32 computes in double and rounds once.               */
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/kernels/tl_special_poly.h"

TL_BINARY_LOOP(chebyshev_t_F32_loop, float, float, tl_chebyshev_t)
TL_BINARY_LOOP(chebyshev_t_F64_loop, double, double, tl_chebyshev_t)
TL_BINARY_LOOP(chebyshev_u_F32_loop, float, float, tl_chebyshev_u)
TL_BINARY_LOOP(chebyshev_u_F64_loop, double, double, tl_chebyshev_u)
TL_BINARY_LOOP(chebyshev_v_F32_loop, float, float, tl_chebyshev_v)
TL_BINARY_LOOP(chebyshev_v_F64_loop, double, double, tl_chebyshev_v)
TL_BINARY_LOOP(chebyshev_w_F32_loop, float, float, tl_chebyshev_w)
TL_BINARY_LOOP(chebyshev_w_F64_loop, double, double, tl_chebyshev_w)
TL_BINARY_LOOP(shifted_chebyshev_t_F32_loop, float, float, tl_shifted_chebyshev_t)
TL_BINARY_LOOP(shifted_chebyshev_t_F64_loop, double, double, tl_shifted_chebyshev_t)
TL_BINARY_LOOP(shifted_chebyshev_u_F32_loop, float, float, tl_shifted_chebyshev_u)
TL_BINARY_LOOP(shifted_chebyshev_u_F64_loop, double, double, tl_shifted_chebyshev_u)
TL_BINARY_LOOP(shifted_chebyshev_v_F32_loop, float, float, tl_shifted_chebyshev_v)
TL_BINARY_LOOP(shifted_chebyshev_v_F64_loop, double, double, tl_shifted_chebyshev_v)
TL_BINARY_LOOP(shifted_chebyshev_w_F32_loop, float, float, tl_shifted_chebyshev_w)
TL_BINARY_LOOP(shifted_chebyshev_w_F64_loop, double, double, tl_shifted_chebyshev_w)
TL_BINARY_LOOP(hermite_h_F32_loop, float, float, tl_hermite_h)
TL_BINARY_LOOP(hermite_h_F64_loop, double, double, tl_hermite_h)
TL_BINARY_LOOP(hermite_he_F32_loop, float, float, tl_hermite_he)
TL_BINARY_LOOP(hermite_he_F64_loop, double, double, tl_hermite_he)
TL_BINARY_LOOP(laguerre_l_F32_loop, float, float, tl_laguerre_l)
TL_BINARY_LOOP(laguerre_l_F64_loop, double, double, tl_laguerre_l)
TL_BINARY_LOOP(legendre_p_F32_loop, float, float, tl_legendre_p)
TL_BINARY_LOOP(legendre_p_F64_loop, double, double, tl_legendre_p)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_polynomial_register. */
static const tl_k_entry polynomial_loops[] = {
    {TL_OP_CHEBYSHEV_POLYNOMIAL_T, TL_DTYPE_F32, chebyshev_t_F32_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_T, TL_DTYPE_F64, chebyshev_t_F64_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_U, TL_DTYPE_F32, chebyshev_u_F32_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_U, TL_DTYPE_F64, chebyshev_u_F64_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_V, TL_DTYPE_F32, chebyshev_v_F32_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_V, TL_DTYPE_F64, chebyshev_v_F64_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_W, TL_DTYPE_F32, chebyshev_w_F32_loop},
    {TL_OP_CHEBYSHEV_POLYNOMIAL_W, TL_DTYPE_F64, chebyshev_w_F64_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_T, TL_DTYPE_F32, shifted_chebyshev_t_F32_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_T, TL_DTYPE_F64, shifted_chebyshev_t_F64_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_U, TL_DTYPE_F32, shifted_chebyshev_u_F32_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_U, TL_DTYPE_F64, shifted_chebyshev_u_F64_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_V, TL_DTYPE_F32, shifted_chebyshev_v_F32_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_V, TL_DTYPE_F64, shifted_chebyshev_v_F64_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_W, TL_DTYPE_F32, shifted_chebyshev_w_F32_loop},
    {TL_OP_SHIFTED_CHEBYSHEV_POLYNOMIAL_W, TL_DTYPE_F64, shifted_chebyshev_w_F64_loop},
    {TL_OP_HERMITE_POLYNOMIAL_H, TL_DTYPE_F32, hermite_h_F32_loop},
    {TL_OP_HERMITE_POLYNOMIAL_H, TL_DTYPE_F64, hermite_h_F64_loop},
    {TL_OP_HERMITE_POLYNOMIAL_HE, TL_DTYPE_F32, hermite_he_F32_loop},
    {TL_OP_HERMITE_POLYNOMIAL_HE, TL_DTYPE_F64, hermite_he_F64_loop},
    {TL_OP_LAGUERRE_POLYNOMIAL_L, TL_DTYPE_F32, laguerre_l_F32_loop},
    {TL_OP_LAGUERRE_POLYNOMIAL_L, TL_DTYPE_F64, laguerre_l_F64_loop},
    {TL_OP_LEGENDRE_POLYNOMIAL_P, TL_DTYPE_F32, legendre_p_F32_loop},
    {TL_OP_LEGENDRE_POLYNOMIAL_P, TL_DTYPE_F64, legendre_p_F64_loop},
};

void tl_cpu_polynomial_register(void)
{
  tl_k_register_all(polynomial_loops, sizeof polynomial_loops / sizeof *polynomial_loops);
}
