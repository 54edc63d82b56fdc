/* norm_loops_f32.c - the normalisation loops over float (norm_loops.h). */
#define TL_NORM_REAL float
#define TL_NORM_SQRT sqrtf
#define TL_NORM_FORWARD tl_norm_forward_f32
#define TL_NORM_BACKWARD tl_norm_backward_f32
#define TL_NORM_CL_LINES tl_norm_cl_lines_f32
#define TL_NORM_CL_REDUCE tl_norm_cl_reduce_f32
#define TL_NORM_CL_APPLY tl_norm_cl_apply_f32
#include "nn/norm/norm_loops.h"
