/* loss_cpu.c - the CPU's nll_loss and its backward (tl_loss.h).  The loss
 * reads one input element per target, so it is a gather, done in one pass
 * in double (float16/bfloat16/float32 inputs accumulate in double too: the
 * gather is N*S elements, not N*C*S); results are written in the work
 * dtype (float64, else float32) and cast to the input's. */
#include <math.h>

#include "ndcore/tensor/tl_half.h"
#include "nn/loss/tl_loss.h"
#include "nn/tl_nn_work.h"

#define TL_LOSS_FN static inline
#include "nn/loss/tl_loss_elem.h" /* the element math, shared with CUDA */

tl_tensor *tl_loss_work_out(tl_tensor *out, tl_dtype work, bool zero, tl_tensor *tmp)
{
  if (out->dtype == work)
    return out;
  tl_status s = zero ? tl_tensor_zeros(tmp, work, out->ndim, out->shape, tl_tensor_device(out))
                     : tl_tensor_empty(tmp, work, out->ndim, out->shape, tl_tensor_device(out));
  return s == TL_OK ? tmp : NULL;
}

tl_status tl_loss_finish(tl_tensor *out, tl_tensor *w)
{
  tl_storage_bump(out->storage);
  return w == out ? TL_OK : tl_tensor_copy(out, w);
}

static tl_status out_of_bounds(int64_t t)
{
  return tl_error_set(TL_ERR_INDEX, "Target %lld is out of bounds.", (long long)t);
}

tl_status tl_cpu_nll_loss(const tl_nll_spec *s, const tl_tensor *input, const tl_tensor *target,
                          const tl_tensor *weight, tl_tensor *out, tl_tensor *total_weight)
{
  tl_dtype work = tl_nn_work_dtype(input->dtype);
  tl_tensor xt = {0}, wt = {0}, ot = {0}, tt = {0};
  tl_status status = TL_OK;
  const tl_tensor *x = tl_nn_as_work(input, work, &xt), *w = tl_nn_as_work(weight, work, &wt);
  tl_tensor *o = tl_loss_work_out(out, work, false, &ot);
  tl_tensor *tw = tl_loss_work_out(total_weight, work, false, &tt);
  const int64_t *tg = tl_tensor_data(target);
  double sum = 0, wsum = 0;
  if (!x || !w || !o || !tw) {
    status = tl_error_status();
    goto done;
  }
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t j = 0; j < s->S; j++) {
      int64_t i = n * s->S + j, t = tg[i];
      double v = 0;
      if (t != s->ignore_index) {
        if (t < 0 || t >= s->C) {
          status = out_of_bounds(t);
          goto done;
        }
        double wc = tl_nn_get(w, t);
        v = -wc * tl_nn_get(x, (n * s->C + t) * s->S + j);
        wsum += wc;
      }
      if (s->reduction == TL_REDUCTION_NONE)
        tl_nn_set(o, i, v);
      sum += v;
    }
  if (s->reduction != TL_REDUCTION_NONE)
    tl_nn_set(o, 0, s->reduction == TL_REDUCTION_MEAN ? sum / wsum : sum);
  tl_nn_set(tw, 0, wsum);
  if ((status = tl_loss_finish(out, o)) == TL_OK)
    status = tl_loss_finish(total_weight, tw);
done:
  tl_tensor_release(&xt);
  tl_tensor_release(&wt);
  tl_tensor_release(&ot);
  tl_tensor_release(&tt);
  return status;
}

tl_status tl_cpu_nll_loss_backward(const tl_nll_spec *s, const tl_tensor *grad,
                                   const tl_tensor *target, const tl_tensor *weight,
                                   const tl_tensor *total_weight, tl_tensor *grad_input)
{
  tl_dtype work = tl_nn_work_dtype(grad_input->dtype);
  tl_tensor gt = {0}, wt = {0}, twt = {0}, dt = {0};
  tl_status status = TL_OK;
  const tl_tensor *g = tl_nn_as_work(grad, work, &gt), *w = tl_nn_as_work(weight, work, &wt),
                  *tw = tl_nn_as_work(total_weight, work, &twt);
  tl_tensor *d = tl_loss_work_out(grad_input, work, true, &dt);
  const int64_t *tg = tl_tensor_data(target);
  if (!g || !w || !tw || !d) {
    status = tl_error_status();
    goto done;
  }
  double scale = s->reduction == TL_REDUCTION_MEAN ? 1 / tl_nn_get(tw, 0) : 1;
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t j = 0; j < s->S; j++) {
      int64_t i = n * s->S + j, t = tg[i];
      if (t == s->ignore_index)
        continue;
      if (t < 0 || t >= s->C) {
        status = out_of_bounds(t);
        goto done;
      }
      double gv = tl_nn_get(g, s->reduction == TL_REDUCTION_NONE ? i : 0);
      tl_nn_set(d, (n * s->C + t) * s->S + j, -tl_nn_get(w, t) * gv * scale);
    }
  status = tl_loss_finish(grad_input, d);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&wt);
  tl_tensor_release(&twt);
  tl_tensor_release(&dt);
  return status;
}

/* ---- elementwise losses (tl_loss.h; the element math: tl_loss_elem.h) ------------------ */

/* The operands as contiguous work-dtype tensors. */
typedef struct {
  tl_tensor tmp[5];
  const tl_tensor *v[5]; /* g, x, t, w, p (g, w, p may be NULL) */
} loss_operands;

static tl_status operands_init(loss_operands *o, tl_dtype work, const tl_tensor *const *in)
{
  for (int i = 0; i < 5; i++)
    if (in[i] && !(o->v[i] = tl_nn_as_work(in[i], work, &o->tmp[i])))
      return tl_error_status();
  return TL_OK;
}

static void operands_release(loss_operands *o)
{
  for (int i = 0; i < 5; i++)
    tl_tensor_release(&o->tmp[i]);
}

/* PyTorch's CPU check of binary_cross_entropy's operands, input first (a
 * NaN fails it too); the other kinds take any value. */
static tl_status bce_in_range(const tl_loss_spec *s, double x, double t)
{
  if (s->kind != TL_LOSS_BCE)
    return TL_OK;
  if (!(x >= 0 && x <= 1))
    return tl_error_set(TL_ERR_RUNTIME, "all elements of input should be between 0 and 1");
  if (!(t >= 0 && t <= 1))
    return tl_error_set(TL_ERR_RUNTIME, "all elements of target should be between 0 and 1");
  return TL_OK;
}

/* ---- mse_loss in float16/bfloat16 ------------------------------------------------------
 * PyTorch's CPU kernels compute it in the half dtype itself, each operation
 * rounded: the loss as (x - t) then its square, the mean of those in float;
 * the gradient as (alpha (x - t)) g with alpha = 2 (2 / n for the mean)
 * rounded to the dtype.  Its CUDA kernels compute in float (tl_loss_elem). */

static bool half_mse(const tl_loss_spec *s, const tl_tensor *x)
{
  return s->kind == TL_LOSS_MSE && (x->dtype == TL_DTYPE_F16 || x->dtype == TL_DTYPE_BF16);
}

static double round_half(tl_dtype d, double v)
{
  float f = (float)v;
  return d == TL_DTYPE_BF16 ? tl_bf16_to_f32(tl_f32_to_bf16(f)) : tl_f16_to_f32(tl_f32_to_f16(f));
}

tl_status tl_cpu_pointwise_loss(const tl_loss_spec *s, const tl_tensor *x, const tl_tensor *t,
                                const tl_tensor *w, const tl_tensor *p, tl_tensor *out)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  loss_operands o = {0};
  tl_tensor ot = {0};
  const tl_tensor *in[5] = {NULL, x, t, w, p};
  tl_status status = operands_init(&o, work, in);
  tl_tensor *r = status == TL_OK ? tl_loss_work_out(out, work, false, &ot) : NULL;
  if (!r) {
    status = tl_error_status();
    goto done;
  }
  int64_t n = tl_tensor_numel(x);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) {
    double xv = tl_nn_get(o.v[1], i), tv = tl_nn_get(o.v[2], i);
    if ((status = bce_in_range(s, xv, tv)) != TL_OK)
      goto done;
    double l = tl_loss_elem(s->kind, s->param, xv, tv, w ? tl_nn_get(o.v[3], i) : 1,
                            p ? tl_nn_get(o.v[4], i) : 1, NULL, NULL);
    if (half_mse(s, x)) {
      double d = round_half(x->dtype, xv - tv);
      l = round_half(x->dtype, d * d);
    }
    if (s->reduction == TL_REDUCTION_NONE)
      tl_nn_set(r, i, l);
    sum += l;
  }
  if (s->reduction != TL_REDUCTION_NONE)
    tl_nn_set(r, 0, s->reduction == TL_REDUCTION_MEAN ? sum / (double)n : sum);
  status = tl_loss_finish(out, r);
done:
  operands_release(&o);
  tl_tensor_release(&ot);
  return status;
}

tl_status tl_cpu_pointwise_loss_backward(const tl_loss_spec *s, const tl_tensor *g,
                                         const tl_tensor *x, const tl_tensor *t,
                                         const tl_tensor *w, const tl_tensor *p, tl_tensor *dx,
                                         tl_tensor *dt)
{
  tl_dtype work = tl_nn_work_dtype(x->dtype);
  loss_operands o = {0};
  tl_tensor xt = {0}, tt = {0};
  const tl_tensor *in[5] = {g, x, t, w, p};
  tl_status status = operands_init(&o, work, in);
  tl_tensor *rx = status == TL_OK ? tl_loss_work_out(dx, work, false, &xt) : NULL;
  tl_tensor *rt = rx ? tl_loss_work_out(dt, tl_nn_work_dtype(dt->dtype), false, &tt) : NULL;
  if (!rt) {
    status = tl_error_status();
    goto done;
  }
  int64_t n = tl_tensor_numel(x);
  double scale = s->reduction == TL_REDUCTION_MEAN ? 1 / (double)n : 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t gi = s->reduction == TL_REDUCTION_NONE ? i : 0;
    double gx, gt, gv = tl_nn_get(o.v[0], gi) * scale;
    double xv = tl_nn_get(o.v[1], i), tv = tl_nn_get(o.v[2], i);
    if ((status = bce_in_range(s, xv, tv)) != TL_OK)
      goto done;
    tl_loss_elem(s->kind, s->param, xv, tv, w ? tl_nn_get(o.v[3], i) : 1,
                 p ? tl_nn_get(o.v[4], i) : 1, &gx, &gt);
    if (half_mse(s, x)) {
      tl_dtype d = x->dtype;
      double alpha = round_half(d, 2 * scale), g1 = tl_nn_get(o.v[0], gi);
      double v = round_half(d, round_half(d, alpha * round_half(d, xv - tv)) * g1);
      tl_nn_set(rx, i, v);
      tl_nn_set(rt, i, -v);
      continue;
    }
    tl_nn_set(rx, i, gv * gx);
    tl_nn_set(rt, i, gv * gt);
  }
  if ((status = tl_loss_finish(dx, rx)) == TL_OK)
    status = tl_loss_finish(dt, rt);
done:
  operands_release(&o);
  tl_tensor_release(&xt);
  tl_tensor_release(&tt);
  return status;
}
