/* kernels_bessel.c - CPU loops of the modified Bessel functions of the first
 * kind: i0, i1 and their exponentially scaled forms i0e = exp(-|x|) i0,
 * i1e = exp(-|x|) i1; and of torch.special's other Bessel functions (J0, J1,
 * Y0, Y1, K0, K1, e^x K0, e^x K1, spherical j0, Airy Ai: tl_special_bessel.h)
 * (float32 and float64; integers arrive as the default float, half types
 * through float32).  float32 computes in double and rounds once.
 *
 * The functions themselves (the power series for |x| <= 20, the asymptotic
 * expansion beyond) are in tl_special_scalar.h, which the CUDA kernels of
 * i0e and i1e compile too (src/gpu/special; CUDA's math library has i0 and
 * i1 but not the scaled forms).  i0 is even and i1 odd; i0(+-inf) = inf,
 * i1(+-inf) = +-inf, the scaled forms go to 0 there; NaN stays NaN.       */
#include "ndcore/dispatch/tl_kernels.h"
#include "ndcore/kernels/tl_special_bessel.h"

static inline float i0_F32(float x) { return (float)tl_bessel_i(0, x, false); }
static inline double i0_F64(double x) { return tl_bessel_i(0, x, false); }
static inline float i0e_F32(float x) { return (float)tl_i0e(x); }
static inline double i0e_F64(double x) { return tl_i0e(x); }
static inline float i1_F32(float x) { return (float)tl_bessel_i(1, x, false); }
static inline double i1_F64(double x) { return tl_bessel_i(1, x, false); }
static inline float i1e_F32(float x) { return (float)tl_i1e(x); }
static inline double i1e_F64(double x) { return tl_i1e(x); }

TL_UNARY_LOOP(i0_F32_loop, float, float, i0_F32)
TL_UNARY_LOOP(i0_F64_loop, double, double, i0_F64)
TL_UNARY_LOOP(i0e_F32_loop, float, float, i0e_F32)
TL_UNARY_LOOP(i0e_F64_loop, double, double, i0e_F64)
TL_UNARY_LOOP(i1_F32_loop, float, float, i1_F32)
TL_UNARY_LOOP(i1_F64_loop, double, double, i1_F64)
TL_UNARY_LOOP(i1e_F32_loop, float, float, i1e_F32)
TL_UNARY_LOOP(i1e_F64_loop, double, double, i1e_F64)
TL_UNARY_LOOP(bessel_j0_F32_loop, float, float, tl_bessel_j0)
TL_UNARY_LOOP(bessel_j0_F64_loop, double, double, tl_bessel_j0)
TL_UNARY_LOOP(bessel_j1_F32_loop, float, float, tl_bessel_j1)
TL_UNARY_LOOP(bessel_j1_F64_loop, double, double, tl_bessel_j1)
TL_UNARY_LOOP(bessel_y0_F32_loop, float, float, tl_bessel_y0)
TL_UNARY_LOOP(bessel_y0_F64_loop, double, double, tl_bessel_y0)
TL_UNARY_LOOP(bessel_y1_F32_loop, float, float, tl_bessel_y1)
TL_UNARY_LOOP(bessel_y1_F64_loop, double, double, tl_bessel_y1)
TL_UNARY_LOOP(bessel_k0_F32_loop, float, float, tl_bessel_k0)
TL_UNARY_LOOP(bessel_k0_F64_loop, double, double, tl_bessel_k0)
TL_UNARY_LOOP(bessel_k1_F32_loop, float, float, tl_bessel_k1)
TL_UNARY_LOOP(bessel_k1_F64_loop, double, double, tl_bessel_k1)
TL_UNARY_LOOP(bessel_k0e_F32_loop, float, float, tl_bessel_k0e)
TL_UNARY_LOOP(bessel_k0e_F64_loop, double, double, tl_bessel_k0e)
TL_UNARY_LOOP(bessel_k1e_F32_loop, float, float, tl_bessel_k1e)
TL_UNARY_LOOP(bessel_k1e_F64_loop, double, double, tl_bessel_k1e)
TL_UNARY_LOOP(spherical_j0_F32_loop, float, float, tl_spherical_j0)
TL_UNARY_LOOP(spherical_j0_F64_loop, double, double, tl_spherical_j0)
TL_UNARY_LOOP(airy_ai_F32_loop, float, float, tl_airy_ai)
TL_UNARY_LOOP(airy_ai_F64_loop, double, double, tl_airy_ai)

/* The CPU loops of this file: (op, compute dtype, loop), registered in the
 * kernel table by tl_cpu_bessel_register. */
static const tl_k_entry bessel_loops[] = {
    {TL_OP_I0, TL_DTYPE_F32, i0_F32_loop},
    {TL_OP_I0, TL_DTYPE_F64, i0_F64_loop},
    {TL_OP_I0E, TL_DTYPE_F32, i0e_F32_loop},
    {TL_OP_I0E, TL_DTYPE_F64, i0e_F64_loop},
    {TL_OP_I1, TL_DTYPE_F32, i1_F32_loop},
    {TL_OP_I1, TL_DTYPE_F64, i1_F64_loop},
    {TL_OP_I1E, TL_DTYPE_F32, i1e_F32_loop},
    {TL_OP_I1E, TL_DTYPE_F64, i1e_F64_loop},
    {TL_OP_BESSEL_J0, TL_DTYPE_F32, bessel_j0_F32_loop},
    {TL_OP_BESSEL_J0, TL_DTYPE_F64, bessel_j0_F64_loop},
    {TL_OP_BESSEL_J1, TL_DTYPE_F32, bessel_j1_F32_loop},
    {TL_OP_BESSEL_J1, TL_DTYPE_F64, bessel_j1_F64_loop},
    {TL_OP_BESSEL_Y0, TL_DTYPE_F32, bessel_y0_F32_loop},
    {TL_OP_BESSEL_Y0, TL_DTYPE_F64, bessel_y0_F64_loop},
    {TL_OP_BESSEL_Y1, TL_DTYPE_F32, bessel_y1_F32_loop},
    {TL_OP_BESSEL_Y1, TL_DTYPE_F64, bessel_y1_F64_loop},
    {TL_OP_MODIFIED_BESSEL_K0, TL_DTYPE_F32, bessel_k0_F32_loop},
    {TL_OP_MODIFIED_BESSEL_K0, TL_DTYPE_F64, bessel_k0_F64_loop},
    {TL_OP_MODIFIED_BESSEL_K1, TL_DTYPE_F32, bessel_k1_F32_loop},
    {TL_OP_MODIFIED_BESSEL_K1, TL_DTYPE_F64, bessel_k1_F64_loop},
    {TL_OP_SCALED_MODIFIED_BESSEL_K0, TL_DTYPE_F32, bessel_k0e_F32_loop},
    {TL_OP_SCALED_MODIFIED_BESSEL_K0, TL_DTYPE_F64, bessel_k0e_F64_loop},
    {TL_OP_SCALED_MODIFIED_BESSEL_K1, TL_DTYPE_F32, bessel_k1e_F32_loop},
    {TL_OP_SCALED_MODIFIED_BESSEL_K1, TL_DTYPE_F64, bessel_k1e_F64_loop},
    {TL_OP_SPHERICAL_BESSEL_J0, TL_DTYPE_F32, spherical_j0_F32_loop},
    {TL_OP_SPHERICAL_BESSEL_J0, TL_DTYPE_F64, spherical_j0_F64_loop},
    {TL_OP_AIRY_AI, TL_DTYPE_F32, airy_ai_F32_loop},
    {TL_OP_AIRY_AI, TL_DTYPE_F64, airy_ai_F64_loop},
};

void tl_cpu_bessel_register(void)
{
  tl_k_register_all(bessel_loops, sizeof bessel_loops / sizeof *bessel_loops);
}
