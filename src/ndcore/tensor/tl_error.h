/* tl_error.h - status codes and the thread-local error message of the C core.
 *
 * Core functions return TL_OK or a status naming the Python exception a user
 * would expect; tl_error_set() leaves the message.  The Python layer reads both
 * (tl_error_status/tl_error_message) and raises.  Only the first error of a call
 * chain is kept, so the innermost, most precise message wins.  Hence a pending
 * error belongs to the call that failed: it is raised (which clears it), or
 * cleared by the code that handles the failure (a fallback, a caller that words
 * the error itself, a release callback); left behind, it would become the
 * message of the next failure on this thread.  The slot is per thread.        */
#ifndef TL_ERROR_H
#define TL_ERROR_H

typedef enum {
  TL_OK = 0,
  TL_ERR_VALUE,          /* ValueError */
  TL_ERR_TYPE,           /* TypeError */
  TL_ERR_INDEX,          /* IndexError */
  TL_ERR_MEMORY,         /* MemoryError */
  TL_ERR_NOT_IMPLEMENTED,/* NotImplementedError */
  TL_ERR_RUNTIME,        /* RuntimeError */
  TL_ERR_OVERFLOW,       /* OverflowError */
  TL_ERR_ZERO_DIVISION,  /* ZeroDivisionError */
  TL_ERR_LINALG,         /* torchlike.linalg.LinAlgError */
  TL_ERR_AXIS,           /* numpy.exceptions.AxisError / IndexError */
  TL_ERR_OUT_OF_MEMORY,  /* torchlike.OutOfMemoryError (a device allocator's) */
  /* Refusals NumPy and PyTorch raise with different classes: the exception is
   * of both, so NumPy code's and PyTorch code's except clauses catch it. */
  TL_ERR_BROADCAST,      /* shapes that do not broadcast: ValueError and RuntimeError */
  TL_ERR_DTYPE,          /* a dtype an op has no loop for: TypeError and NotImplementedError */
  TL_ERR_CAST,           /* a result that cannot be cast into out=: TypeError and RuntimeError */
  TL_ERR_VIEW,           /* a dtype view the memory's layout cannot give: ValueError and
                          * RuntimeError */
  TL_ERR_SIZE,           /* a size no tensor can have (its element count or a stride past
                          * int64, or past torchlike's limit): ValueError and RuntimeError */
  TL_ERR_RAISED,         /* the warning hook raised (a filter made a warning an error): the
                          * exception is set already and the bindings raise it as it is */
} tl_status;

/* Record an error (printf-style) unless one is already pending; returns status. */
tl_status tl_error_set(tl_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
tl_status tl_error_status(void);
const char *tl_error_message(void);
void tl_error_clear(void);

/* How many threads have an error pending.  A check on a hot path (every entry
 * from Python makes one) reads this plain word first and asks its own thread's
 * slot (a call, and a thread-local lookup) only when it is not zero: a thread
 * sees its own set and clear in order, so zero means none pending here. */
extern int tl_error_threads_pending __attribute__((visibility("hidden")));
static inline int tl_error_maybe_pending(void)
{
  return __atomic_load_n(&tl_error_threads_pending, __ATOMIC_RELAXED) != 0 &&
         tl_error_status() != TL_OK;
}

/* Warnings: a call that does what was asked but loses something on the way
 * (the imaginary parts of a complex-to-real cast) tells the user through a
 * hook the Python layer installs.  The hook returns nonzero when a warnings
 * filter turned the warning into an exception; tl_warn then fails with
 * TL_ERR_RAISED and the call stops there, as NumPy's and PyTorch's would. */
typedef enum {
  TL_WARN_COMPLEX_DISCARDED, /* "Casting complex values to real discards the imaginary part" */
} tl_warning;
typedef int (*tl_warn_fn)(tl_warning w);
void tl_warn_set_hook(tl_warn_fn hook);
tl_status tl_warn(tl_warning w);

#endif
