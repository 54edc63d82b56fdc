/* tl_meta.h - the meta device's kernels (meta.c, src/nn/nn_meta.c). */
#ifndef TL_META_H
#define TL_META_H

/* Give the meta device its kernels, every one doing nothing: the op layer
 * checks arguments and allocates outputs (storages of no memory) as on any
 * device, so results carry the shapes, dtypes and strides of the CPU's.
 * Once, at import, after the CPU rows. */
void tl_dispatch_meta_register(void);
/* The same for the nn families that have meta kernels (nn_meta.c). */
void tl_nn_meta_register(void);

#endif
