/* optim_loops_f64.c - the optimizer element loops over double (optim_loops.h). */
#define TL_OPTIM_REAL double
#define TL_SQRT sqrt
#define TL_FABS fabs
#define TL_OPTIM_RANGE tl_optim_range_f64
#include "nn/optim/optim_loops.h"
