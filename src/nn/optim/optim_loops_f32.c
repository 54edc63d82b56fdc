/* optim_loops_f32.c - the optimizer element loops over float (optim_loops.h). */
#define TL_OPTIM_REAL float
#define TL_SQRT sqrtf
#define TL_FABS fabsf
#define TL_OPTIM_RANGE tl_optim_range_f32
#include "nn/optim/optim_loops.h"
