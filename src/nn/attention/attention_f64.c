/* attention_f64.c - the blocked attention loops over double (attention_loops.h). */
#define TL_ATTN_REAL double
#define TL_ATTN_EXP exp
#define TL_ATTN_LOG log
#define TL_ATTN_GEMM TL_BLAS(cblas_dgemm)
#define TL_ATTN_FORWARD tl_attn_forward_f64
#define TL_ATTN_BACKWARD tl_attn_backward_f64
#define TL_ATTN_KPANELS tl_attn_kpanels_f64
#include "nn/attention/attention_loops.h"
