/* tl_gpu_fft.h - torchlike.fft's three primitives on devices (src/gpu/fft).
 *
 * torchlike/fft.py builds every transform from c2c, r2c and c2r (unscaled
 * DFTs over some dims; it scales and resizes with ordinary ops).  On the
 * CPU they are NumPy's pocketfft; on a device they are tl_fft_run, the op
 * layer here (fft.c): it moves the transform dims last, makes the operand
 * contiguous, splits the dims into passes of at most TL_FFT_MAX_RANK, and
 * hands each pass to the device's executor, which sees only contiguous
 * (batch, n...) buffers.  CUDA's executor is cuFFT (fft_cufft.c); the fake
 * device's, for tests, is pocketfft on its host bytes (py_fft.c).        */
#ifndef TL_GPU_FFT_H
#define TL_GPU_FFT_H

#include <stdbool.h>
#include <stdint.h>

#include "ndcore/tensor/tl_error.h"
#include "ndcore/tensor/tl_tensor.h"

#define TL_FFT_MAX_RANK 3 /* cuFFT's plans are of rank 1 to 3 */

typedef enum { TL_FFT_C2C, TL_FFT_R2C, TL_FFT_C2R } tl_fft_kind;

/* One pass: `batch` signals of `rank` dims, contiguous, one after another.
 * n are the signal's sizes, the real side's for r2c and c2r (whose complex
 * side has n[rank - 1] / 2 + 1 entries in its last dim). */
typedef struct {
  tl_fft_kind kind;
  bool inverse; /* c2c only: the exponent's sign is + (c2r is always +) */
  int rank;
  int64_t n[TL_FFT_MAX_RANK];
  int64_t batch;
} tl_fft_desc;

/* A device's executor: the unscaled transform of `in` into `out`, both
 * contiguous on the device, of the pass's dtypes (complex64/complex128,
 * float32/float64 on the real side).  `in` is scratch: it may be
 * overwritten (cuFFT's c2r does). */
typedef tl_status (*tl_fft_exec)(const tl_fft_desc *d, tl_tensor *in, tl_tensor *out);

/* Give device type `type` its executor (NULL: none). */
void tl_fft_register_device(tl_device_type type, tl_fft_exec exec);

/* out = the unscaled DFT of `in` over dims (distinct, in range, not empty)
 * on in's device: c2c (complex in, complex out; `inverse` picks the sign),
 * r2c (real in; dims' last becomes n / 2 + 1) or c2r (complex in whose
 * dims' last holds last_size / 2 + 1 entries; real out of last_size
 * there).  A device with no executor is a NotImplementedError. */
tl_status tl_fft_run(tl_tensor *out, const tl_tensor *in, tl_fft_kind kind, int ndims,
                     const int64_t *dims, bool inverse, int64_t last_size);

#ifdef TL_WITH_CUDA
/* Register cuFFT as CUDA's executor (from tl_gpu_kernels_register). */
void tl_gpu_fft_register(void);
#endif

#endif
