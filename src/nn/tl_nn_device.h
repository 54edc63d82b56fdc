/* tl_nn_device.h - one device's kernel sets for every src/nn family, and
 * their registration: the test devices (the fake device's emulation in
 * nn_emulate.c, the meta device in nn_meta.c) give all of them at once. */
#ifndef TL_NN_DEVICE_H
#define TL_NN_DEVICE_H

#include "nn/activation/tl_activation.h"
#include "nn/attention/tl_attention.h"
#include "nn/conv/tl_conv.h"
#include "nn/dropout/tl_dropout.h"
#include "nn/embedding/tl_embedding.h"
#include "nn/grid/tl_grid.h"
#include "nn/loss/tl_loss.h"
#include "nn/norm/tl_norm.h"
#include "nn/pool/tl_pool.h"
#include "nn/rnn/tl_rnn.h"
#include "nn/softmax/tl_softmax.h"

typedef struct {
  const tl_nn_conv_kernels *conv;
  const tl_nn_pool_kernels *pool;
  const tl_nn_norm_kernels *norm;
  const tl_nn_softmax_kernels *softmax;
  const tl_nn_activation_kernels *activation;
  const tl_nn_embedding_kernels *embedding;
  const tl_nn_loss_kernels *nll;
  const tl_nn_pointwise_loss_kernels *pointwise_loss;
  const tl_nn_class_loss_kernels *class_loss;
  const tl_nn_grid_kernels *grid;
  const tl_nn_rnn_kernels *rnn;
  const tl_nn_attention_kernels *attention;
  const tl_nn_dropout_kernels *dropout;
} tl_nn_device_sets;

/* Every set of `sets` as the device's kernels for its family's ops. */
void tl_nn_register_device(tl_device_type device, const tl_nn_device_sets *sets);

#endif
