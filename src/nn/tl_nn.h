/* tl_nn.h - the neural-network kernel families of src/nn, as seen by the
 * module's import: each family registers its CPU kernel set in the kernel
 * table (tl_dispatch.h), as the core's families do in register.c.
 *
 * A family lives in its own folder, src/nn/<family>/:
 *   tl_<family>.h     its arguments, its kernel set and its entry points
 *   <family>.c        the device-neutral entry points (shapes, dtypes, the
 *                     output's allocation on the inputs' device, then the
 *                     device's kernel through tl_dispatch_kernel) and the
 *                     registration of the CPU set
 *   <family>_cpu.c    the CPU kernels
 * Its Python binding is src/nn/bindings/py_nn_<family>.c (the arguments are
 * bound by generated code from signatures.txt) and its derivatives are
 * src/grad/formulas_nn_<family>.c.                                          */
#ifndef TL_NN_H
#define TL_NN_H

/* Register every family's CPU kernels (after tl_dispatch_init). */
void tl_nn_register(void);

void tl_nn_softmax_register(void);
void tl_nn_activation_register(void);
void tl_nn_dropout_register(void);
void tl_nn_embedding_register(void);
void tl_nn_pool_register(void);
void tl_nn_grid_register(void);
void tl_nn_rnn_register(void);
void tl_nn_attention_register(void);
void tl_nn_conv_register(void);
void tl_nn_norm_register(void);
void tl_nn_loss_register(void);

/* Test hook (nn_emulate.c): the fake device given these families' CPU
 * kernels as its device kernels, after tl_dispatch_emulate_device. */
void tl_nn_emulate_device(void);

/* The meta device's kernels for these families, each doing nothing
 * (nn_meta.c); at import, after tl_nn_register. */
void tl_nn_meta_register(void);

#endif
