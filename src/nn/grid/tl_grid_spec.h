/* tl_grid_spec.h - a sampling grid's shape and options (tl_grid.h's
 * legend), as plain data: read by the C kernels and by CUDA C++
 * (src/gpu/nn/grid.cu), which cannot include the op headers. */
#ifndef TL_GRID_SPEC_H
#define TL_GRID_SPEC_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { TL_GRID_BILINEAR, TL_GRID_NEAREST, TL_GRID_BICUBIC } tl_grid_mode;
typedef enum { TL_GRID_ZEROS, TL_GRID_BORDER, TL_GRID_REFLECTION } tl_grid_padding;

typedef struct {
  int n;                /* spatial dims, 2 or 3 */
  int64_t N, C;         /* batch, channels */
  int64_t in[3], out[3]; /* spatial sizes, (D, H, W): for n = 2, D = 1 */
  tl_grid_mode mode;
  tl_grid_padding padding;
  bool align_corners;
} tl_grid_spec;

#endif
