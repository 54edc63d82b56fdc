/* tl_meta.h - the meta device's kernels for the core's families (meta.c);
 * src/nn's are registered by tl_nn_meta_register (nn/tl_nn.h). */
#ifndef TL_META_H
#define TL_META_H

/* Give the meta device its kernels, every one doing nothing: the op layer
 * checks arguments and allocates outputs (storages of no memory) as on any
 * device, so results carry the shapes, dtypes and strides of the CPU's.
 * Once, at import, after the CPU rows. */
void tl_dispatch_meta_register(void);

#endif
