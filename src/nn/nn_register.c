/* nn_register.c - every src/nn family's kernel rows, registered at import. */
#include "nn/tl_nn.h"

void tl_nn_register(void)
{
  tl_nn_softmax_register();
  tl_nn_norm_register();
  tl_nn_loss_register();
}
