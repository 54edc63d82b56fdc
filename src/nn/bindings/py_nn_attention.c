/* py_nn_attention.c - torchlike._C's blocked scaled dot-product attention
 * and its backward op (src/nn/attention).  The arguments are bound by
 * generated code (signatures.txt, [nn_attention]); these run the entry
 * points. */
#include <math.h>

#include "ndcore/bindings/generated/args_nn_attention.h"
#include "nn/attention/tl_attention.h"
#include "nn/bindings/py_nn_results.h"

PyObject *tl_py_impl_flash_attention(tl_op op, const tl_py_args_flash_attention *a)
{
  (void)op;
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  tl_status s = tl_nn_flash_attention(tl_py_t(a->query), tl_py_t(a->key), tl_py_t(a->value),
                                      a->dropout_p, a->is_causal, tl_py_nn_opt(a->attn_mask),
                                      a->has_scale ? a->scale : NAN,
                                      tl_py_nn_opt(a->rng_state), &r[0]->t, &r[1]->t);
  return tl_py_nn_pack(r, 2, s);
}

PyObject *tl_py_impl_flash_attention_backward(tl_op op,
                                              const tl_py_args_flash_attention_backward *a)
{
  (void)op;
  tl_py_tensor *r[3];
  if (tl_py_nn_alloc(r, 3) < 0)
    return NULL;
  tl_status s = tl_nn_flash_attention_backward(
      tl_py_t(a->grad_out), tl_py_t(a->query), tl_py_t(a->key), tl_py_t(a->value),
      tl_py_t(a->out), tl_py_t(a->logsumexp), a->dropout_p, a->is_causal,
      tl_py_nn_opt(a->attn_mask), a->has_scale ? a->scale : NAN, tl_py_nn_opt(a->rng_state),
      &r[0]->t, &r[1]->t, &r[2]->t);
  return tl_py_nn_pack(r, 3, s);
}
