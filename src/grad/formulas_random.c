/* formulas_random.c - the nodes of random draws (py_random.c), PyTorch's.
 *
 * A draw is not a differentiable function of its parameters in PyTorch's
 * autograd, but PyTorch records a node for it, and so does the tape:
 *   normal(mean, std), bernoulli(p), poisson(rates), and every in-place draw
 *   (x.normal_(), x.bernoulli_(p) ...):  zero gradients to every input,
 *     the overwritten self included;
 *   _standard_gamma(alpha):  the implicit reparameterisation gradient,
 *     g * _standard_gamma_grad(alpha, x) (torchlike/distributions/_gamma_ops.py);
 *   bernoulli(input, p) with a float p, and binomial(count, prob): a node
 *     PyTorch calls NotImplemented, whose backward raises its error.
 * The draw itself is never replayed: zeros need only the shapes, so the tape
 * keeps stubs of the inputs and outputs (the gamma's reads both). */
#include "grad/py_grad.h"

static void zero_each_input(tl_grad_ctx *c)
{
  PyObject *zeros = CALL("zeros_like", "O", G(0));
  for (int i = 0; zeros && i < c->node->ninputs; i++)
    SEND(c->node->inputs[i].obj, zeros);
}

static void standard_gamma(tl_grad_ctx *c)
{
  PyObject *alpha = X(0, "input");
  SEND(alpha, CALL("mul", "OO", G(0), CALL("_standard_gamma_grad", "OO", alpha, R(0))));
}

/* PyTorch's words for the overloads it has no derivative of. */
static void not_implemented(tl_grad_ctx *c)
{
  tl_grad_not_implemented(c->formula == TL_GRAD_BINOMIAL_DRAW ? "binomial" : "bernoulli", false);
}

/* bernoulli(input, p) with a float p is the overload PyTorch has no derivative
 * for; bernoulli(input) draws with input's probabilities (zeros). */
static void bernoulli(tl_grad_ctx *c)
{
  PyObject *p = ARG(1, "p");
  if (p && p != Py_None)
    not_implemented(c);
  else
    zero_each_input(c);
}

void tl_grad_formulas_random_init(void)
{
  static const int zero[] = {TL_GRAD_NORMAL_DRAW,       TL_GRAD_POISSON_DRAW,
                             TL_GRAD_UNIFORM_DRAW_,     TL_GRAD_NORMAL_DRAW_,
                             TL_GRAD_RANDOM_DRAW_,      TL_GRAD_BERNOULLI_DRAW_,
                             TL_GRAD_EXPONENTIAL_DRAW_, TL_GRAD_CAUCHY_DRAW_,
                             TL_GRAD_LOG_NORMAL_DRAW_,  TL_GRAD_GEOMETRIC_DRAW_};
  TL_GRAD_REGISTER(zero, zero_each_input, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  /* x.bernoulli_(p) into a bool or integer x: drawn, not recorded (PyTorch
   * records it and gives the integer tensor requires_grad, which no other
   * integer tensor can have here) */
  tl_grad_writes_any_dtype[TL_GRAD_BERNOULLI_DRAW_] = true;
  static const int coin[] = {TL_GRAD_BERNOULLI_DRAW};
  TL_GRAD_REGISTER(coin, bernoulli, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  static const int binomial[] = {TL_GRAD_BINOMIAL_DRAW};
  TL_GRAD_REGISTER(binomial, not_implemented, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  static const int gamma[] = {TL_GRAD_STANDARD_GAMMA_DRAW};
  TL_GRAD_REGISTER(gamma, standard_gamma, 0);
}
