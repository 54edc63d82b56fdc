/* loss_cpu.c - the CPU's nll_loss and its backward (tl_loss.h).  The loss
 * reads one input element per target, so it is a gather, done in one pass
 * in double (float16/bfloat16/float32 inputs accumulate in double too: the
 * gather is N*S elements, not N*C*S); results are written in the work
 * dtype (float64, else float32) and cast to the input's. */
#include "nn/loss/tl_loss.h"

static tl_dtype work_of(tl_dtype d) { return d == TL_DTYPE_F64 ? TL_DTYPE_F64 : TL_DTYPE_F32; }

/* `t` as a contiguous tensor of dtype `work`: t itself, or a copy in *tmp. */
static const tl_tensor *as_work(const tl_tensor *t, tl_dtype work, tl_tensor *tmp)
{
  if (t->dtype == work && tl_tensor_is_contiguous(t))
    return t;
  return tl_tensor_to_dtype(tmp, t, work) == TL_OK ? tmp : NULL;
}

static double get_at(const tl_tensor *t, int64_t i)
{
  return t->dtype == TL_DTYPE_F64 ? ((const double *)tl_tensor_data(t))[i]
                                  : ((const float *)tl_tensor_data(t))[i];
}

static void set_at(tl_tensor *t, int64_t i, double v)
{
  if (t->dtype == TL_DTYPE_F64)
    ((double *)tl_tensor_data(t))[i] = v;
  else
    ((float *)tl_tensor_data(t))[i] = (float)v;
}

/* `out` itself when it has the work dtype, else a work-dtype twin in *tmp
 * (zeroed when `zero`), copied into out by finish(). */
static tl_tensor *work_out(tl_tensor *out, tl_dtype work, bool zero, tl_tensor *tmp)
{
  if (out->dtype == work)
    return out;
  tl_status s = zero ? tl_tensor_zeros(tmp, work, out->ndim, out->shape, tl_tensor_device(out))
                     : tl_tensor_empty(tmp, work, out->ndim, out->shape, tl_tensor_device(out));
  return s == TL_OK ? tmp : NULL;
}

static tl_status finish(tl_tensor *out, tl_tensor *w)
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
  tl_dtype work = work_of(input->dtype);
  tl_tensor xt = {0}, wt = {0}, ot = {0}, tt = {0};
  tl_status status = TL_OK;
  const tl_tensor *x = as_work(input, work, &xt), *w = as_work(weight, work, &wt);
  tl_tensor *o = work_out(out, work, false, &ot), *tw = work_out(total_weight, work, false, &tt);
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
        double wc = get_at(w, t);
        v = -wc * get_at(x, (n * s->C + t) * s->S + j);
        wsum += wc;
      }
      if (s->reduction == TL_REDUCTION_NONE)
        set_at(o, i, v);
      sum += v;
    }
  if (s->reduction != TL_REDUCTION_NONE)
    set_at(o, 0, s->reduction == TL_REDUCTION_MEAN ? sum / wsum : sum);
  set_at(tw, 0, wsum);
  if ((status = finish(out, o)) == TL_OK)
    status = finish(total_weight, tw);
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
  tl_dtype work = work_of(grad_input->dtype);
  tl_tensor gt = {0}, wt = {0}, twt = {0}, dt = {0};
  tl_status status = TL_OK;
  const tl_tensor *g = as_work(grad, work, &gt), *w = as_work(weight, work, &wt),
                  *tw = as_work(total_weight, work, &twt);
  tl_tensor *d = work_out(grad_input, work, true, &dt);
  const int64_t *tg = tl_tensor_data(target);
  if (!g || !w || !tw || !d) {
    status = tl_error_status();
    goto done;
  }
  double scale = s->reduction == TL_REDUCTION_MEAN ? 1 / get_at(tw, 0) : 1;
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t j = 0; j < s->S; j++) {
      int64_t i = n * s->S + j, t = tg[i];
      if (t == s->ignore_index)
        continue;
      if (t < 0 || t >= s->C) {
        status = out_of_bounds(t);
        goto done;
      }
      double gv = get_at(g, s->reduction == TL_REDUCTION_NONE ? i : 0);
      set_at(d, (n * s->C + t) * s->S + j, -get_at(w, t) * gv * scale);
    }
  status = finish(grad_input, d);
done:
  tl_tensor_release(&gt);
  tl_tensor_release(&wt);
  tl_tensor_release(&twt);
  tl_tensor_release(&dt);
  return status;
}
