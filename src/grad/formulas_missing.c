/* formulas_missing.c - calls PyTorch records but cannot differentiate, and
 * the errors their backward raises, in PyTorch's words.  Two kinds:
 *   declared (derivatives.yaml says not_implemented): the node keeps the
 *     op's name (GeqrfBackward0, Unique2Backward0) and backward raises
 *     NotImplementedError "the derivative for 'geqrf' is not implemented.";
 *   undeclared (no derivative entry at all): the node is NotImplemented
 *     (node_names.c) and backward raises RuntimeError "derivative for
 *     aten::heaviside is not implemented".
 * A formula without an entry here and without a formula of its own raises
 * the declared kind under its torchlike name (py_engine.c). */
#include "grad/py_grad.h"

typedef struct {
  int formula;
  const char *aten; /* PyTorch's op name in the message */
  bool declared;
} missing_derivative;

static const missing_derivative missing[] = {
    {TL_OP_HEAVISIDE, "heaviside", false},
    {TL_OP_BINCOUNT, "bincount", false},
    {TL_OP_UNIQUE_CONSECUTIVE, "unique_consecutive", true},
    {TL_GRAD_LINALG_LDL_FACTOR_EX, "linalg_ldl_factor_ex", false},
    {TL_GRAD_LINALG_LDL_SOLVE, "linalg_ldl_solve", false},
    {TL_GRAD_GEQRF, "geqrf", true},
    {TL_GRAD_HISTOGRAM, "histogram", false},
    {TL_GRAD_HISTOGRAMDD, "_histogramdd_from_bin_cts", false},
    {TL_GRAD_STANDARD_GAMMA_GRAD, "_standard_gamma_grad", true},
};

void tl_grad_not_implemented(const char *aten, bool declared)
{
  if (declared)
    PyErr_Format(PyExc_NotImplementedError, "the derivative for '%s' is not implemented.", aten);
  else
    PyErr_Format(PyExc_RuntimeError, "derivative for aten::%s is not implemented", aten);
}

static void raise_missing(tl_grad_ctx *c)
{
  for (size_t i = 0; i < sizeof missing / sizeof *missing; i++)
    if (missing[i].formula == c->formula)
      tl_grad_not_implemented(missing[i].aten, missing[i].declared);
}

/* unique(dim=None) is PyTorch's _unique2, unique(dim=d) its unique_dim */
static void unique(tl_grad_ctx *c)
{
  PyObject *dim = ARG(4, "dim");
  tl_grad_not_implemented(dim && dim != Py_None ? "unique_dim" : "_unique2", true);
}

void tl_grad_formulas_missing_init(void)
{
  for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) {
    int id[] = {missing[i].formula};
    TL_GRAD_REGISTER(id, raise_missing, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
  }
  static const int uniq[] = {TL_OP_UNIQUE};
  TL_GRAD_REGISTER(uniq, unique, TL_GRAD_DROP_INPUTS | TL_GRAD_DROP_OUTPUTS);
}
