/* grid_taps.h - the taps of one grid point (which input pixels a sample
 * reads, with which weights and derivatives) and the base coordinates of
 * affine_grid: the arithmetic shared by the CPU's loops (grid_loops.h) and
 * the CUDA kernels (src/gpu/nn/grid.cu), so both pick the same pixels.
 *
 * No include guard: it is included once per work type.  The includer
 * defines `real` (float or double), TL_GRID_FN (the functions' qualifiers:
 * static inline on the CPU, a device function on CUDA) and includes
 * <math.h> and nn/grid/tl_grid_spec.h first. */

enum { MAXTAPS = 16 }; /* bicubic's 4 x 4 */

/* The taps of one grid point: plane offsets (-1: outside, reads 0), weights
 * and their derivatives by each pixel coordinate k (x, y, z), and the
 * derivative of each pixel coordinate by its grid value. */
typedef struct {
  int count;
  int64_t off[MAXTAPS];
  real w[MAXTAPS];
  real dw[3][MAXTAPS];
  real mult[3];
  real wx[4], wy[4]; /* bicubic: the per-dim weights (the forward sums rows first) */
} taps_t;

/* c reflected into [low2 / 2, high2 / 2] (the bounds given doubled, so that
 * half-pixel borders stay integers); *d the derivative, +1 or -1. */
TL_GRID_FN real reflect(real c, real low2, real high2, real *d)
{
  if (low2 == high2) {
    *d = 0;
    return 0;
  }
  real lo = low2 / 2, span = (high2 - low2) / 2, sign = 1;
  c -= lo;
  if (c < 0) {
    sign = -1;
    c = -c;
  }
  real extra = (real)fmod(c, span);
  int64_t flips = (int64_t)floor(c / span);
  if (flips % 2 == 0) {
    *d = sign;
    return extra + lo;
  }
  *d = -sign;
  return span - extra + lo;
}

/* c clipped to [0, S - 1]; *d 1 strictly inside, 0 where clipped.  A
 * point on a border counts as clipped (derivative 0), as in PyTorch's
 * kernels: the gradient of a grid point that lands exactly on the edge. */
TL_GRID_FN real clip(real c, int64_t S, real *d)
{
  real hi = (real)(S - 1);
  *d = c <= 0 || c >= hi ? 0 : 1;
  return c < 0 ? 0 : c > hi ? hi : c;
}

/* A position moved inside by the padding mode (border, reflection); *d its
 * derivative. */
TL_GRID_FN real pad_coord(const tl_grid_spec *s, real c, int64_t S, real *d)
{
  real d1 = 1, d2 = 1;
  if (s->padding == TL_GRID_BORDER) {
    c = clip(c, S, &d1);
  } else if (s->padding == TL_GRID_REFLECTION) {
    c = s->align_corners ? reflect(c, 0, 2 * (real)(S - 1), &d1)
                         : reflect(c, -1, 2 * (real)S - 1, &d1);
    c = clip(c, S, &d2);
  }
  *d = d1 * d2;
  return c;
}

/* Keys' cubic convolution (a = -0.75) weights of the taps at -1, 0, 1, 2
 * for the offset t in [0, 1), and their derivatives by t. */
TL_GRID_FN void cubic_weights(real t, real *w, real *dw)
{
  const real A = (real)-0.75;
  real u = 1 - t, p = t + 1, q = u + 1;
  w[0] = ((A * p - 5 * A) * p + 8 * A) * p - 4 * A;
  w[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
  w[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
  w[3] = ((A * q - 5 * A) * q + 8 * A) * q - 4 * A;
  dw[0] = (3 * A * p - 10 * A) * p + 8 * A;
  dw[1] = (3 * (A + 2) * t - 2 * (A + 3)) * t;
  dw[2] = -(3 * (A + 2) * u - 2 * (A + 3)) * u;
  dw[3] = -((3 * A * q - 10 * A) * q + 8 * A);
}

/* The taps of the grid point gp (n values); their weights' derivatives only
 * when want_dw (the forward, inlining a constant false, drops that work). */
TL_GRID_FN void taps_of(const tl_grid_spec *s, const real *gp, taps_t *t, bool want_dw)
{
  int n = s->n;
  int64_t S[3] = {s->in[2], s->in[1], s->in[0]};              /* along x, y, z */
  int64_t stride[3] = {1, s->in[2], s->in[1] * s->in[2]};
  real c[3];
  for (int k = 0; k < n; k++) {
    real g = gp[k], d;
    if (s->align_corners) {
      c[k] = (g + 1) / 2 * (real)(S[k] - 1);
      t->mult[k] = (real)(S[k] - 1) / 2;
    } else {
      c[k] = ((g + 1) * (real)S[k] - 1) / 2;
      t->mult[k] = (real)S[k] / 2;
    }
    if (s->mode != TL_GRID_BICUBIC) { /* bicubic pads its taps instead */
      c[k] = pad_coord(s, c[k], S[k], &d);
      t->mult[k] *= d;
    }
    /* not finite, or too far out for any tap to land inside (bicubic moves
     * its taps inside unless padding with zeros): nothing to read */
    bool far = !(c[k] > -4 && c[k] < (real)S[k] + 3);
    if (!isfinite(c[k]) || (far && (s->mode != TL_GRID_BICUBIC || s->padding == TL_GRID_ZEROS))) {
      t->count = 0;
      return;
    }
  }
  if (s->mode == TL_GRID_NEAREST) {
    int64_t off = 0;
    bool inside = true;
    for (int k = 0; k < n; k++) {
      int64_t i = (int64_t)nearbyint(c[k]);
      inside &= i >= 0 && i < S[k];
      off += i * stride[k];
    }
    t->count = 1;
    t->off[0] = inside ? off : -1;
    t->w[0] = 1;
    for (int k = 0; k < n; k++)
      t->dw[k][0] = 0;
    return;
  }
  if (s->mode == TL_GRID_BILINEAR) {
    int64_t i0[3];
    real w0[3], w1[3];
    for (int k = 0; k < n; k++) {
      i0[k] = (int64_t)floor(c[k]);
      w0[k] = (real)(i0[k] + 1) - c[k];
      w1[k] = c[k] - (real)i0[k];
    }
    t->count = 1 << n;
    for (int q = 0; q < t->count; q++) {
      int64_t off = 0;
      bool inside = true;
      real w = 1;
      for (int k = 0; k < n; k++) {
        int bit = (q >> k) & 1;
        int64_t i = i0[k] + bit;
        inside &= i >= 0 && i < S[k];
        off += i * stride[k];
        w *= bit ? w1[k] : w0[k];
      }
      t->off[q] = inside ? off : -1;
      t->w[q] = w;
      for (int k = 0; want_dw && k < n; k++) {
        real d = (q >> k) & 1 ? 1 : -1;
        for (int m = 0; m < n; m++)
          if (m != k)
            d *= (q >> m) & 1 ? w1[m] : w0[m];
        t->dw[k][q] = d;
      }
    }
    return;
  }
  /* bicubic, n == 2: rows j (y) of taps i (x) */
  real fx = floor(c[0]), fy = floor(c[1]), dwx[4], dwy[4], d;
  cubic_weights(c[0] - fx, t->wx, dwx);
  cubic_weights(c[1] - fy, t->wy, dwy);
  t->count = 16;
  for (int j = 0; j < 4; j++) {
    int64_t iy = (int64_t)pad_coord(s, fy - 1 + (real)j, S[1], &d);
    bool in_y = iy >= 0 && iy < S[1];
    for (int i = 0; i < 4; i++) {
      int64_t ix = (int64_t)pad_coord(s, fx - 1 + (real)i, S[0], &d);
      bool inside = in_y && ix >= 0 && ix < S[0];
      int q = j * 4 + i;
      t->off[q] = inside ? iy * S[0] + ix : -1;
      t->w[q] = t->wx[i] * t->wy[j];
      if (want_dw) {
        t->dw[0][q] = dwx[i] * t->wy[j];
        t->dw[1][q] = t->wx[i] * dwy[j];
      }
    }
  }
}

/* Pixel i's normalised coordinate along a dim of `steps` pixels: PyTorch's
 * linspace(-1, 1, steps) (each half counted from its own end), scaled by
 * (steps - 1) / steps without align_corners. */
TL_GRID_FN real base_coord(int64_t i, int64_t steps, bool align)
{
  if (steps <= 1)
    return 0;
  real step = (real)2 / (real)(steps - 1);
  real v = i < steps / 2 ? (real)-1 + step * (real)i : (real)1 - step * (real)(steps - 1 - i);
  return align ? v : v * (real)(steps - 1) / (real)steps;
}

