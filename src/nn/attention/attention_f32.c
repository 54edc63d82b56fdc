/* attention_f32.c - the blocked attention loops over float (attention_loops.h). */
#include "ndcore/kernels/tl_vecmath.h"
#define TL_ATTN_REAL float
#define TL_ATTN_EXP tl_expf
#define TL_ATTN_LOG logf
#define TL_ATTN_GEMM TL_BLAS(cblas_sgemm)
#define TL_ATTN_FORWARD tl_attn_forward_f32
#define TL_ATTN_BACKWARD tl_attn_backward_f32
#define TL_ATTN_KPANELS tl_attn_kpanels_f32
#include "nn/attention/attention_loops.h"
