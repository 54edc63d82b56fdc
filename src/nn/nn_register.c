/* nn_register.c - every src/nn family's kernel rows, registered at import. */
#include "ndcore/dispatch/tl_dispatch.h"
#include "nn/tl_nn.h"
#include "nn/tl_nn_device.h"

void tl_nn_register(void)
{
  tl_nn_softmax_register();
  tl_nn_activation_register();
  tl_nn_dropout_register();
  tl_nn_embedding_register();
  tl_nn_pool_register();
  tl_nn_grid_register();
  tl_nn_rnn_register();
  tl_nn_attention_register();
  tl_nn_conv_register();
  tl_nn_norm_register();
  tl_nn_loss_register();
}

void tl_nn_register_device(tl_device_type device, const tl_nn_device_sets *s)
{
  /* a family's ops are those whose CPU set is its representative's */
  const struct {
    tl_op like;
    const void *set;
  } families[] = {{TL_OP_SOFTMAX, s->softmax},           {TL_OP_RELU, s->activation},
                  {TL_OP_EMBEDDING, s->embedding},       {TL_OP_NLL_LOSS_ND, s->nll},
                  {TL_OP_POINTWISE_LOSS, s->pointwise_loss}, {TL_OP_CROSS_ENTROPY, s->class_loss},
                  {TL_OP_GRID_SAMPLER, s->grid}};
  for (size_t f = 0; f < sizeof families / sizeof *families; f++)
    tl_dispatch_register_family(families[f].like, device, families[f].set);
  tl_nn_conv_register_set(device, s->conv);
  tl_nn_pool_register_set(device, s->pool);
  tl_nn_norm_register_set(device, s->norm);
  tl_nn_rnn_register_set(device, s->rnn);
  tl_nn_attention_register_set(device, s->attention);
  tl_dispatch_register_set(TL_OP_DROPOUT, device, TL_DTYPES_ALL, s->dropout);
  tl_dispatch_register_set(TL_OP_DROPOUT_BACKWARD, device, TL_DTYPES_ALL, s->dropout);
}
