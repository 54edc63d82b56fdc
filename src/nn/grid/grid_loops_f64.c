/* grid_loops_f64.c - the sampling-grid loops over double (grid_loops.h). */
#define TL_GRID_REAL double
#define TL_GRID_SAMPLE tl_grid_sample_f64
#define TL_GRID_BACKWARD tl_grid_backward_f64
#define TL_AFFINE_GRID tl_affine_grid_f64
#include "nn/grid/grid_loops.h"
