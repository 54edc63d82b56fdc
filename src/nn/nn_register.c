/* nn_register.c - every src/nn family's kernel rows, registered at import. */
#include "nn/tl_nn.h"

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
