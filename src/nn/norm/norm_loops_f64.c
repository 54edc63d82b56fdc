/* norm_loops_f64.c - the normalisation loops over double (norm_loops.h). */
#define TL_NORM_REAL double
#define TL_NORM_SQRT sqrt
#define TL_NORM_FORWARD tl_norm_forward_f64
#define TL_NORM_BACKWARD tl_norm_backward_f64
#define TL_NORM_CL_LINES tl_norm_cl_lines_f64
#define TL_NORM_CL_REDUCE tl_norm_cl_reduce_f64
#define TL_NORM_CL_APPLY tl_norm_cl_apply_f64
#include "nn/norm/norm_loops.h"
