/* formulas_nn_grid.c - derivatives of the sampling-grid ops (src/nn/grid)
 * and of their backward ops, for double backward.
 *
 *   grid_sampler:            (dx, dgrid) = grid_sampler_backward(g, x, grid, ...)
 *   grid_sampler_backward:   the composed VJP (tl_grad_nn_composed_vjp):
 *                            grid_sample written with gathers and
 *                            differentiated twice (torchlike/nn/_backward_vjp.py)
 *   affine_grid_generator and its backward are linear maps and each other's
 *   transpose: each one's derivative is the other. */
#include "grad/py_grad.h"

static void sampler_ops(tl_grad_ctx *c)
{
  PyObject *x = ARG(0, "input"), *grid = ARG(1, "grid");
  if (!NEEDS(x) && !NEEDS(grid))
    return;
  PyObject *r = CALL("grid_sampler_backward", "OOOOOO", G(0), X(0, "input"), X(1, "grid"),
                     ARG(2, "interpolation_mode"), ARG(3, "padding_mode"),
                     ARG(4, "align_corners"));
  if (!r)
    return;
  if (NEEDS(x))
    SEND(x, PyTuple_GET_ITEM(r, 0));
  if (NEEDS(grid))
    SEND(grid, PyTuple_GET_ITEM(r, 1));
}

static const char *const sampler_params[] = {"grad_output", "input", "grid", "interpolation_mode",
                                             "padding_mode", "align_corners", NULL};

static void sampler_backward_ops(tl_grad_ctx *c) { tl_grad_nn_composed_vjp(c, sampler_params); }

static void affine_ops(tl_grad_ctx *c)
{
  bool backward = c->formula == TL_OP_AFFINE_GRID_GENERATOR_BACKWARD;
  PyObject *src = ARG(0, backward ? "grad" : "theta");
  if (NEEDS(src))
    SEND(src, CALL(backward ? "affine_grid_generator" : "affine_grid_generator_backward", "OOO",
                   G(0), ARG(1, "size"), ARG(2, "align_corners")));
}

void tl_grad_formulas_nn_grid_init(void)
{
  static const int sampler[] = {TL_OP_GRID_SAMPLER};
  TL_GRAD_REGISTER(sampler, sampler_ops, TL_GRAD_DROP_OUTPUTS);
  static const int backward[] = {TL_OP_GRID_SAMPLER_BACKWARD};
  TL_GRAD_REGISTER(backward, sampler_backward_ops, TL_GRAD_DROP_OUTPUTS);
  static const int affine[] = {TL_OP_AFFINE_GRID_GENERATOR, TL_OP_AFFINE_GRID_GENERATOR_BACKWARD};
  TL_GRAD_REGISTER(affine, affine_ops, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
}
