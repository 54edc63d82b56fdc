/* reduce.c - reductions (ops.def, REDUCE / REDUCE_PAIR / SCAN).
 * Placeholder engine: the reduction issue work replaces it.               */
#include "ndcore/tl_op.h"

void tl_cpu_reduce_init(void) {}

tl_status tl_op_reduce(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                       tl_tensor *indices)
{
  (void)in; (void)a; (void)out; (void)indices;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s() is not implemented yet", tl_op_infos[op].name);
}

tl_status tl_op_scan(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out)
{
  (void)in; (void)dim; (void)dtype; (void)out;
  return tl_error_set(TL_ERR_NOT_IMPLEMENTED, "%s() is not implemented yet", tl_op_infos[op].name);
}
