/* tl_views.h - view ops: the result shares the input's storage. */
#ifndef TL_VIEWS_H
#define TL_VIEWS_H

#include "ndcore/tl_tensor.h"

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
/* In-place edits of a view being built (indexing): */
void tl_view_slice(tl_tensor *out, int dim, int64_t start, int64_t length, int64_t step);
tl_status tl_view_select(tl_tensor *out, int dim, int64_t index);

#endif
