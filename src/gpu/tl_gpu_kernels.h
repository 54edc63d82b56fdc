/* tl_gpu_kernels.h - what the C side of the GPU layer hands its CUDA kernels.
 *
 * Read by C (elementwise_gpu.c, copy_gpu.c) and by CUDA C++ (the .cu files),
 * so it holds plain data only: no tl_tensor, no tl_scalar (whose C complex
 * member C++ cannot spell).  The C side turns the device-neutral iterator
 * plan (tl_iter.h) and the op's parameters into these; a kernel launcher
 * reads nothing else.
 *
 * Operands: output first, then the inputs, each in the dtype the kernel
 * computes in (the C side casts the others on the device first).  An input
 * may be a host scalar: one element, held in the plan by value, never read
 * through a device pointer.                                                 */
#ifndef TL_GPU_KERNELS_H
#define TL_GPU_KERNELS_H

#include <stdint.h>

#include "ndcore/kernels/tl_extrema_rule.h"

#ifdef __cplusplus
#define TL_GPU_ALIGN16 alignas(16)
extern "C" {
#else
#define TL_GPU_ALIGN16 _Alignas(16)
#endif

/* Operands of one launch: the output and up to three inputs (where, clamp). */
#define TL_GPU_MAX_OPERANDS 4
/* Dimensions a launch indexes after coalescing; the C side refuses more
 * (a plan that still has more than this many dims is very rare, and the
 * bound keeps the kernel parameters small). */
#define TL_GPU_MAX_DIMS 10

typedef struct {
  int ndim;
  int noperands;
  int64_t numel;
  int64_t shape[TL_GPU_MAX_DIMS];                        /* innermost last */
  int64_t strides[TL_GPU_MAX_OPERANDS][TL_GPU_MAX_DIMS]; /* bytes; 0 when broadcast */
  char *data[TL_GPU_MAX_OPERANDS];                       /* device pointers */
  uint32_t host_scalar; /* bit k: operand k's one value is in scalar[k] */
  TL_GPU_ALIGN16 unsigned char scalar[TL_GPU_MAX_OPERANDS][16];
} tl_gpu_plan;

/* An op's extra arguments, already converted on the host:
 *   value[k]  s[k] stored in the compute dtype (add/sub alpha);
 *   real[k]   s[k] as a double (nan_to_num's replacements, already
 *             defaulted to the output dtype's limits);
 *   i         the op's integer (round's decimals, clamp's bound mask). */
typedef struct {
  TL_GPU_ALIGN16 unsigned char value[3][16];
  double real[3];
  int64_t i;
} tl_gpu_params;

/* A launcher runs one (op, compute dtype) over a plan on `stream` (a
 * cudaStream_t; NULL is the legacy default stream) and returns the CUDA
 * error code of the launch (0 when it was queued). */
typedef int (*tl_gpu_launch_fn)(const tl_gpu_plan *plan, const tl_gpu_params *params,
                                void *stream);

typedef struct {
  int op;    /* tl_op */
  int dtype; /* tl_dtype: the compute dtype */
  tl_gpu_launch_fn launch;
} tl_gpu_entry;

/* The elementwise launchers, one table per .cu file (generated rows plus the
 * hand-written ones), each ending with a row whose launch is NULL. */
extern const tl_gpu_entry tl_gpu_unary_entries[];
extern const tl_gpu_entry tl_gpu_binary_entries[];
extern const tl_gpu_entry tl_gpu_compare_entries[];
/* float32 (f64 false) or float64 maximum (is_max) or minimum over a plan of
 * three operands, by PyTorch's CPU rule: each element's bits follow its
 * place in the CPU's runs (tl_extrema_rule.h); elementwise_compare.cu. */
int tl_gpu_extrema_launch(const tl_gpu_plan *plan, const tl_extrema_runs *runs, int is_max,
                          int f64, void *stream);

/* Copy with cast: operand 1 (dtype from) into operand 0 (dtype to), any
 * strides, operand 1 possibly a host scalar (fills). */
int tl_gpu_copy_launch(const tl_gpu_plan *plan, int to, int from, void *stream);
/* out[i] = start + i * step for a contiguous out of dtype; start and step are
 * read as int64 for integer dtypes (exact), as double (re, im) otherwise. */
int tl_gpu_arange_launch(char *out, int dtype, int64_t n, int64_t istart, int64_t istep,
                         const double start[2], const double step[2], void *stream);
/* linspace: out[i] = start + i * step, with the last half counted back
 * from end (NumPy's symmetric form); log: base ** that. */
int tl_gpu_linspace_launch(char *out, int dtype, int64_t n, const double start[2],
                           const double end[2], int log, double base, void *stream);
/* Write `one` (16 bytes of the dtype) at out + i * stride for i < n (eye's
 * diagonal, once the matrix is zeroed). */
int tl_gpu_scatter_value_launch(char *out, int64_t stride, int64_t n, int itemsize,
                                const unsigned char *one, void *stream);

#ifdef __cplusplus
}
#endif
#endif
