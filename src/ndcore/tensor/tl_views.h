/* tl_views.h - view ops: the result shares the input's storage. */
#ifndef TL_VIEWS_H
#define TL_VIEWS_H

#include "ndcore/tensor/tl_tensor.h"

/* One -1 in shape is inferred.  Without allow_copy, a layout that cannot be
 * viewed is an error (Tensor.view); with it, the data is copied (reshape). */
tl_status tl_view_reshape(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *shape,
                          bool allow_copy);
tl_status tl_view_permute(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *dims);
tl_status tl_view_transpose(tl_tensor *out, const tl_tensor *in, int64_t d0, int64_t d1);
tl_status tl_view_expand(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *shape);
/* Drop the size-1 dims whose bit is set in dims. */
tl_status tl_view_squeeze(tl_tensor *out, const tl_tensor *in, uint64_t dims);
tl_status tl_view_unsqueeze(tl_tensor *out, const tl_tensor *in, int64_t dim);
tl_status tl_view_flatten(tl_tensor *out, const tl_tensor *in, int64_t start, int64_t end);
/* Move dims src[i] to dst[i]; the others keep their order (torch.movedim). */
tl_status tl_view_movedim(tl_tensor *out, const tl_tensor *in, int n, const int64_t *src,
                          const int64_t *dst);
/* The diagonal of dims (dim1, dim2), appended as the last dim. */
tl_status tl_view_diagonal(tl_tensor *out, const tl_tensor *in, int64_t offset, int64_t dim1,
                           int64_t dim2);
tl_status tl_view_narrow(tl_tensor *out, const tl_tensor *in, int64_t dim, int64_t start,
                         int64_t length);
/* Windows of `size` every `step` along dim, the window as a new last dim. */
tl_status tl_view_unfold(tl_tensor *out, const tl_tensor *in, int64_t dim, int64_t size,
                         int64_t step);
/* Any layout on in's storage, checked to stay inside it (offset in elements). */
tl_status tl_view_as_strided(tl_tensor *out, const tl_tensor *in, int ndim, const int64_t *shape,
                             const int64_t *strides, int64_t offset);
/* Split dim into sizes (one may be -1). */
tl_status tl_view_unflatten(tl_tensor *out, const tl_tensor *in, int64_t dim, int n,
                            const int64_t *sizes);
/* The same bytes read as another dtype (Tensor.view(dtype)); the last dim
 * scales when the item sizes differ. */
tl_status tl_view_dtype(tl_tensor *out, const tl_tensor *in, tl_dtype dtype);
/* The real (imag false) or imaginary part of a complex tensor as a real view
 * of the same storage (Tensor.real / Tensor.imag). */
tl_status tl_view_complex_part(tl_tensor *out, const tl_tensor *in, bool imag);
/* NumPy's atleast_{1,2,3}d (ndim 1..3). */
tl_status tl_view_atleast(tl_tensor *out, const tl_tensor *in, int ndim);
/* In-place edits of a view being built (indexing): */
void tl_view_slice(tl_tensor *out, int dim, int64_t start, int64_t length, int64_t step);
tl_status tl_view_select(tl_tensor *out, int dim, int64_t index);

#endif
