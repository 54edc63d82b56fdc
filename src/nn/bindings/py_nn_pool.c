/* py_nn_pool.c - torchlike._C's pooling and resampling ops (src/nn/pool).
 * The arguments are bound by generated code (signatures.txt, [nn_pool]);
 * these turn the int lists into per-dim arrays and run the entry points.
 * The number of spatial dims n is the length of kernel_size / output_size
 * (1 to 3); the other int lists are one int or n of them. */
#include <string.h>

#include "ndcore/bindings/generated/args_nn_pool.h"
#include "ndcore/bindings/py_tensor.h"
#include "nn/bindings/py_nn_results.h"
#include "nn/pool/tl_pool.h"

/* v's ints as n per-dim values (one int repeats; none: the default dflt);
 * -1 with a ValueError. */
static int per_dim_or(tl_op op, const char *what, const tl_py_ints *v, int n, int64_t dflt,
                      int64_t *out)
{
  if (v->n == 0) {
    for (int d = 0; d < n; d++)
      out[d] = dflt;
    return 0;
  }
  if (v->n != 1 && v->n != n)
    return PyErr_Format(PyExc_ValueError, "%s(): %s must be an int or %d ints, got %d",
                        tl_op_infos[op].name, what, n, v->n),
           -1;
  for (int d = 0; d < n; d++)
    out[d] = v->v[v->n == 1 ? 0 : d];
  return 0;
}

static int per_dim(tl_op op, const char *what, const tl_py_ints *v, int n, int64_t *out)
{
  if (v->n == 0)
    return PyErr_Format(PyExc_ValueError, "%s(): %s must be an int or %d ints, got none",
                        tl_op_infos[op].name, what, n), -1;
  return per_dim_or(op, what, v, n, 0, out);
}

/* n from the list that decides it. */
static int spatial_dims(tl_op op, const char *what, const tl_py_ints *v)
{
  if (v->n >= 1 && v->n <= TL_NN_POOL_MAX_DIMS)
    return v->n;
  PyErr_Format(PyExc_ValueError, "%s(): %s must have 1 to %d elements, got %d",
               tl_op_infos[op].name, what, TL_NN_POOL_MAX_DIMS, v->n);
  return -1;
}

static PyObject *one(tl_py_tensor *r, tl_status status)
{
  if (status != TL_OK) {
    Py_DECREF(r);
    return tl_py_raise();
  }
  return (PyObject *)r;
}

/* The window of _max_pool / _avg_pool; -1 with an error set. */
static int window_of(tl_op op, const tl_py_ints *k, const tl_py_ints *s, const tl_py_ints *p,
                     const tl_py_ints *dil, tl_nn_pool_window *w)
{
  static const tl_py_ints none = {.n = 0};
  memset(w, 0, sizeof *w);
  if ((w->n = spatial_dims(op, "kernel_size", k)) < 0 ||
      per_dim(op, "kernel_size", k, w->n, w->kernel) < 0 ||
      per_dim_or(op, "padding", p, w->n, 0, w->padding) < 0 ||
      per_dim_or(op, "dilation", dil ? dil : &none, w->n, 1, w->dilation) < 0)
    return -1;
  /* an empty stride means the kernel size, as PyTorch's default */
  if (s->n == 0)
    memcpy(w->stride, w->kernel, sizeof w->stride);
  else if (per_dim(op, "stride", s, w->n, w->stride) < 0)
    return -1;
  return 0;
}

PyObject *tl_py_impl_max_pool(tl_op op, const tl_py_args_max_pool *a)
{
  tl_nn_pool_window w;
  tl_py_tensor *r[2]; /* values, indices */
  if (window_of(op, &a->kernel_size, &a->stride, &a->padding, &a->dilation, &w) < 0 ||
      tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  w.ceil_mode = a->ceil_mode;
  return tl_py_nn_pack(r, 2, tl_nn_max_pool(op, tl_py_t(a->input), &w, &r[0]->t, &r[1]->t));
}

PyObject *tl_py_impl_adaptive_pool(tl_op op, const tl_py_args_adaptive_pool *a)
{
  int n = spatial_dims(op, "output_size", &a->output_size);
  if (n < 0)
    return NULL;
  if (op == TL_OP_ADAPTIVE_AVG_POOL) {
    tl_py_tensor *r = tl_py_tensor_alloc();
    return r ? one(r, tl_nn_adaptive_avg_pool(op, tl_py_t(a->input), n, a->output_size.v, &r->t))
             : NULL;
  }
  tl_py_tensor *r[2];
  if (tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  return tl_py_nn_pack(r, 2, tl_nn_adaptive_max_pool(op, tl_py_t(a->input), n, a->output_size.v,
                                                     &r[0]->t, &r[1]->t));
}

PyObject *tl_py_impl_adaptive_pool_backward(tl_op op, const tl_py_args_adaptive_pool_backward *a)
{
  int n = spatial_dims(op, "input_size", &a->input_size);
  tl_py_tensor *r = n < 0 ? NULL : tl_py_tensor_alloc();
  return r ? one(r, tl_nn_adaptive_avg_pool(op, tl_py_t(a->grad_output), n, a->input_size.v,
                                            &r->t))
           : NULL;
}

PyObject *tl_py_impl_fractional_max_pool(tl_op op, const tl_py_args_fractional_max_pool *a)
{
  int64_t k[TL_NN_POOL_MAX_DIMS], o[TL_NN_POOL_MAX_DIMS];
  int n = spatial_dims(op, "kernel_size", &a->kernel_size);
  tl_py_tensor *r[2];
  if (n < 0 || per_dim(op, "kernel_size", &a->kernel_size, n, k) < 0 ||
      per_dim(op, "output_size", &a->output_size, n, o) < 0 || tl_py_nn_alloc(r, 2) < 0)
    return NULL;
  return tl_py_nn_pack(r, 2, tl_nn_fractional_max_pool(op, tl_py_t(a->input), n, k, o,
                                                       tl_py_t(a->samples), &r[0]->t, &r[1]->t));
}

/* _max_pool_backward and _max_unpool: src scattered at indices into `size`. */
static PyObject *scatter_run(tl_op op, PyObject *src, PyObject *indices, const tl_py_ints *size,
                             const char *what)
{
  int n = spatial_dims(op, what, size);
  tl_py_tensor *r = n < 0 ? NULL : tl_py_tensor_alloc();
  return r ? one(r, tl_nn_pool_scatter(op, tl_py_t(src), tl_py_t(indices), n, size->v, &r->t))
           : NULL;
}

PyObject *tl_py_impl_max_pool_backward(tl_op op, const tl_py_args_max_pool_backward *a)
{
  return scatter_run(op, a->grad_output, a->indices, &a->input_size, "input_size");
}

PyObject *tl_py_impl_max_unpool(tl_op op, const tl_py_args_max_unpool *a)
{
  return scatter_run(op, a->input, a->indices, &a->output_size, "output_size");
}

/* The window of _avg_pool / _avg_pool_backward; -1 with an error set. */
static int avg_window_of(tl_op op, const tl_py_ints *k, const tl_py_ints *s, const tl_py_ints *p,
                         bool ceil_mode, bool count_include_pad, bool has_divisor,
                         int64_t divisor, tl_nn_pool_window *w)
{
  if (window_of(op, k, s, p, NULL, w) < 0)
    return -1;
  if (has_divisor && divisor == 0)
    return PyErr_Format(PyExc_RuntimeError, "divisor must be not zero"), -1;
  w->ceil_mode = ceil_mode;
  w->count_include_pad = count_include_pad;
  w->divisor = has_divisor ? divisor : 0;
  return 0;
}

PyObject *tl_py_impl_avg_pool(tl_op op, const tl_py_args_avg_pool *a)
{
  tl_nn_pool_window w;
  if (avg_window_of(op, &a->kernel_size, &a->stride, &a->padding, a->ceil_mode,
                    a->count_include_pad, a->has_divisor_override, a->divisor_override, &w) < 0)
    return NULL;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_avg_pool(op, tl_py_t(a->input), &w, NULL, &r->t)) : NULL;
}

PyObject *tl_py_impl_avg_pool_backward(tl_op op, const tl_py_args_avg_pool_backward *a)
{
  tl_nn_pool_window w;
  int64_t size[TL_NN_POOL_MAX_DIMS];
  if (avg_window_of(op, &a->kernel_size, &a->stride, &a->padding, a->ceil_mode,
                    a->count_include_pad, a->has_divisor_override, a->divisor_override, &w) < 0 ||
      per_dim(op, "input_size", &a->input_size, w.n, size) < 0)
    return NULL;
  tl_py_tensor *r = tl_py_tensor_alloc();
  return r ? one(r, tl_nn_avg_pool(op, tl_py_t(a->grad_output), &w, size, &r->t)) : NULL;
}

/* The resampling arguments; -1 with an error set. */
static int resample_of(tl_op op, int n, const char *mode, bool align_corners, PyObject *scales,
                       bool antialias, tl_nn_resample *r)
{
  static const char *const modes[] = {"nearest", "nearest-exact", "linear", "cubic"};
  memset(r, 0, sizeof *r);
  r->n = n;
  r->align_corners = align_corners;
  r->antialias = antialias;
  size_t m = 0;
  while (m < sizeof modes / sizeof *modes && strcmp(mode, modes[m]))
    m++;
  if (m == sizeof modes / sizeof *modes)
    return PyErr_Format(PyExc_ValueError, "%s(): mode must be one of nearest, nearest-exact, "
                        "linear or cubic, got '%s'", tl_op_infos[op].name, mode), -1;
  r->mode = (tl_nn_resample_mode)m;
  if (antialias && r->mode != TL_NN_RESAMPLE_LINEAR && r->mode != TL_NN_RESAMPLE_CUBIC)
    return PyErr_Format(PyExc_ValueError, "%s(): antialias needs mode linear or cubic",
                        tl_op_infos[op].name), -1;
  if (!scales || scales == Py_None)
    return 0;
  PyObject *seq = PySequence_Fast(scales, "scales must be a sequence of floats or None");
  if (!seq)
    return -1;
  int rc = 0;
  if (PySequence_Fast_GET_SIZE(seq) != n) {
    PyErr_Format(PyExc_ValueError, "%s(): scales must have %d elements", tl_op_infos[op].name, n);
    rc = -1;
  }
  for (int d = 0; rc == 0 && d < n; d++) {
    PyObject *s = PySequence_Fast_GET_ITEM(seq, d);
    r->scales[d] = s == Py_None ? 0 : PyFloat_AsDouble(s);
    rc = PyErr_Occurred() ? -1 : 0;
  }
  Py_DECREF(seq);
  return rc;
}

PyObject *tl_py_impl_upsample(tl_op op, const tl_py_args_upsample *a)
{
  tl_nn_resample r;
  int n = spatial_dims(op, "output_size", &a->output_size);
  if (n < 0 || resample_of(op, n, a->mode, a->align_corners, a->scales, a->antialias, &r) < 0)
    return NULL;
  tl_py_tensor *t = tl_py_tensor_alloc();
  return t ? one(t, tl_nn_upsample(op, tl_py_t(a->input), &r, a->output_size.v, &t->t)) : NULL;
}

PyObject *tl_py_impl_upsample_backward(tl_op op, const tl_py_args_upsample_backward *a)
{
  tl_nn_resample r;
  int n = spatial_dims(op, "input_size", &a->input_size);
  if (n < 0 || resample_of(op, n, a->mode, a->align_corners, a->scales, a->antialias, &r) < 0)
    return NULL;
  tl_py_tensor *t = tl_py_tensor_alloc();
  return t ? one(t, tl_nn_upsample(op, tl_py_t(a->grad_output), &r, a->input_size.v, &t->t))
           : NULL;
}
