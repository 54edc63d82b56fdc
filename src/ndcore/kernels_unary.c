/* kernels_unary.c - CPU loops of the unary elementwise ops (ops.def, UNARY).
 * Each op is a scalar function per compute type, wrapped by TL_UNARY_LOOP. */
#include <math.h>

#include "ndcore/tl_loops.h"
#include "ndcore/tl_op.h"

static inline float neg_f32(float x) { return -x; }
static inline double neg_f64(double x) { return -x; }
static inline int64_t neg_i64(int64_t x) { return (int64_t)(0 - (uint64_t)x); }

TL_UNARY_LOOP(neg_F32, float, float, neg_f32)
TL_UNARY_LOOP(neg_F64, double, double, neg_f64)
TL_UNARY_LOOP(neg_I64, int64_t, int64_t, neg_i64)
TL_UNARY_LOOP(exp_F32, float, float, expf)
TL_UNARY_LOOP(exp_F64, double, double, exp)

void tl_cpu_unary_init(void)
{
  tl_cpu_loops[TL_OP_NEG][TL_DTYPE_F32] = neg_F32;
  tl_cpu_loops[TL_OP_NEG][TL_DTYPE_F64] = neg_F64;
  tl_cpu_loops[TL_OP_NEG][TL_DTYPE_I64] = neg_I64;
  tl_cpu_loops[TL_OP_EXP][TL_DTYPE_F32] = exp_F32;
  tl_cpu_loops[TL_OP_EXP][TL_DTYPE_F64] = exp_F64;
}
