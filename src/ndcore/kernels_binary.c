/* kernels_binary.c - CPU loops of the binary elementwise ops (ops.def, BINARY).
 * Each op is a scalar function per compute type, wrapped by TL_BINARY_LOOP. */
#include <math.h>

#include "ndcore/tl_loops.h"
#include "ndcore/tl_op.h"

static inline float add_f32(float a, float b) { return a + b; }
static inline double add_f64(double a, double b) { return a + b; }
static inline int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline float mul_f32(float a, float b) { return a * b; }
static inline double mul_f64(double a, double b) { return a * b; }
static inline int64_t mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

TL_BINARY_LOOP(add_F32, float, float, add_f32)
TL_BINARY_LOOP(add_F64, double, double, add_f64)
TL_BINARY_LOOP(add_I64, int64_t, int64_t, add_i64)
TL_BINARY_LOOP(mul_F32, float, float, mul_f32)
TL_BINARY_LOOP(mul_F64, double, double, mul_f64)
TL_BINARY_LOOP(mul_I64, int64_t, int64_t, mul_i64)

void tl_cpu_binary_init(void)
{
  tl_cpu_loops[TL_OP_ADD][TL_DTYPE_F32] = add_F32;
  tl_cpu_loops[TL_OP_ADD][TL_DTYPE_F64] = add_F64;
  tl_cpu_loops[TL_OP_ADD][TL_DTYPE_I64] = add_I64;
  tl_cpu_loops[TL_OP_MUL][TL_DTYPE_F32] = mul_F32;
  tl_cpu_loops[TL_OP_MUL][TL_DTYPE_F64] = mul_F64;
  tl_cpu_loops[TL_OP_MUL][TL_DTYPE_I64] = mul_I64;
}
