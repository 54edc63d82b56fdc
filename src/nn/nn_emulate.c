/* nn_emulate.c - test hook: the conv, pool and norm families on the fake
 * device, with the CPU's kernels as its device kernels (the nn side of
 * src/ndcore/dispatch/emulate.c, which does the same for the core's ops).
 * Each kernel runs with the fake device's memory counted as host memory for
 * its duration only, so everything around it (the op layer: checks,
 * allocation on the input's device, work copies, the derivatives) takes
 * the device paths, as it does on CUDA.  Called after the core's hook,
 * whose fake storages hold plain host addresses. */
#include "nn/conv/tl_conv.h"
#include "nn/norm/tl_norm.h"
#include "nn/pool/tl_pool.h"
#include "nn/tl_nn.h"

static bool *host_flag(void) { return &tl_dispatch_host_memory_table[TL_DEVICE_FAKE]; }

#define HOSTED(CALL)                                                                               \
  do {                                                                                             \
    bool was = *host_flag();                                                                       \
    *host_flag() = true;                                                                           \
    tl_status status = CALL;                                                                       \
    *host_flag() = was;                                                                            \
    return status;                                                                                 \
  } while (0)

static tl_status emu_conv(const tl_tensor *big, const tl_tensor *w, const tl_tensor *b,
                          const tl_nn_conv_geom *g, tl_tensor *small)
{
  HOSTED(tl_cpu_conv_kernels.conv(big, w, b, g, small));
}
static tl_status emu_conv_t(const tl_tensor *small, const tl_tensor *w, const tl_tensor *b,
                            const tl_nn_conv_geom *g, tl_tensor *big)
{
  HOSTED(tl_cpu_conv_kernels.conv_t(small, w, b, g, big));
}
static tl_status emu_conv_weight(const tl_tensor *small, const tl_tensor *big,
                                 const tl_nn_conv_geom *g, tl_tensor *dw)
{
  HOSTED(tl_cpu_conv_kernels.weight(small, big, g, dw));
}
static tl_status emu_im2col(const tl_tensor *big, const tl_nn_conv_geom *g, tl_tensor *cols)
{
  HOSTED(tl_cpu_conv_kernels.im2col(big, g, cols));
}
static tl_status emu_col2im(const tl_tensor *cols, const tl_nn_conv_geom *g, tl_tensor *big)
{
  HOSTED(tl_cpu_conv_kernels.col2im(cols, g, big));
}

static tl_status emu_window_max(const tl_tensor *in, int n, const tl_nn_taps *taps, tl_tensor *out,
                                tl_tensor *indices)
{
  HOSTED(tl_cpu_pool_window_max(in, n, taps, out, indices));
}
static tl_status emu_weighted(const tl_tensor *in, int n, const tl_nn_taps *taps, bool transpose,
                              tl_tensor *out)
{
  HOSTED(tl_cpu_pool_weighted(in, n, taps, transpose, out));
}
static tl_status emu_scatter(const tl_tensor *src, const tl_tensor *indices, int n, bool accumulate,
                             tl_tensor *out)
{
  HOSTED(tl_cpu_pool_scatter(src, indices, n, accumulate, out));
}

static tl_status emu_norm_forward(const tl_norm_spec *s, const tl_tensor *x, const tl_tensor *w,
                                  const tl_tensor *b, tl_tensor *rm, tl_tensor *rv, tl_tensor *y,
                                  tl_tensor *mean, tl_tensor *rstd)
{
  HOSTED(tl_cpu_norm_forward(s, x, w, b, rm, rv, y, mean, rstd));
}
static tl_status emu_norm_backward(const tl_norm_spec *s, const tl_tensor *g, const tl_tensor *x,
                                   const tl_tensor *mean, const tl_tensor *rstd, const tl_tensor *w,
                                   tl_tensor *dx, tl_tensor *dw, tl_tensor *db)
{
  HOSTED(tl_cpu_norm_backward(s, g, x, mean, rstd, w, dx, dw, db));
}
static tl_status emu_lrn(const tl_lrn_spec *s, const tl_tensor *g, const tl_tensor *x,
                         tl_tensor *out)
{
  HOSTED(tl_cpu_lrn(s, g, x, out));
}
#undef HOSTED

void tl_nn_emulate_device(void)
{
  static const tl_nn_conv_kernels conv = {.conv = emu_conv,
                                          .conv_t = emu_conv_t,
                                          .weight = emu_conv_weight,
                                          .im2col = emu_im2col,
                                          .col2im = emu_col2im};
  static const tl_nn_pool_kernels pool = {
      .window_max = emu_window_max, .weighted = emu_weighted, .scatter = emu_scatter};
  static const tl_nn_norm_kernels norm = {
      .forward = emu_norm_forward, .backward = emu_norm_backward, .lrn = emu_lrn};
  tl_nn_conv_register_set(TL_DEVICE_FAKE, &conv);
  tl_nn_pool_register_set(TL_DEVICE_FAKE, &pool);
  tl_nn_norm_register_set(TL_DEVICE_FAKE, &norm);
}
