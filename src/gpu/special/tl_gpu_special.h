/* tl_gpu_special.h - the CUDA rows of special.cu: the elementwise (op,
 * dtype) pairs whose CPU loops are written by hand with no device twin in
 * CUDA's math library or in the generated functors (scripts/gen_kernels.py):
 * digamma, _polygamma, i0e, i1e in float32/float64, nan_to_num and nextafter
 * in float16/bfloat16.  Read by C (kernels_gpu.c, which registers the rows
 * with the other elementwise tables) and by CUDA C++.                     */
#ifndef TL_GPU_SPECIAL_H
#define TL_GPU_SPECIAL_H

#include "gpu/tl_gpu_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* (op, compute dtype, launcher) rows, ending with a row whose launch is NULL. */
extern const tl_gpu_entry tl_gpu_special_entries[];
/* torch.special's functions, float32 and float64: normal.cu, bessel.cu, polynomial.cu */
extern const tl_gpu_entry tl_gpu_normal_entries[];
extern const tl_gpu_entry tl_gpu_bessel_entries[];
extern const tl_gpu_entry tl_gpu_polynomial_entries[];

#ifdef __cplusplus
}
#endif

#endif
