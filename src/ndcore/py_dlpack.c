/* py_dlpack.c - DLPack export/import and the buffer protocol.
 * Placeholder until the interchange work lands.                            */
#include "ndcore/py_tensor.h"

PyMethodDef tl_py_dlpack_methods[] = {{NULL, NULL, 0, NULL}};
PyMethodDef tl_py_dlpack_functions[] = {{NULL, NULL, 0, NULL}};
PyType_Slot tl_py_buffer_slots[] = {{0, NULL}};
