/* grid_loops_f32.c - the sampling-grid loops over float (grid_loops.h). */
#define TL_GRID_REAL float
#define TL_GRID_SAMPLE tl_grid_sample_f32
#define TL_GRID_BACKWARD tl_grid_backward_f32
#define TL_AFFINE_GRID tl_affine_grid_f32
#include "nn/grid/grid_loops.h"
