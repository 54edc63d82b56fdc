/* error.c - the thread-local error slot behind tl_error.h. */
#include <stdarg.h>
#include <stdio.h>

#include "ndcore/tensor/tl_error.h"

static _Thread_local tl_status error_status;
static _Thread_local char error_message[512];
int tl_error_threads_pending;

tl_status tl_error_set(tl_status status, const char *fmt, ...)
{
  if (error_status != TL_OK)
    return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_message, sizeof error_message, fmt, ap);
  va_end(ap);
  if (status != TL_OK)
    __atomic_add_fetch(&tl_error_threads_pending, 1, __ATOMIC_RELAXED);
  error_status = status;
  return status;
}

tl_status tl_error_status(void) { return error_status; }
const char *tl_error_message(void) { return error_message; }

void tl_error_clear(void)
{
  if (error_status != TL_OK)
    __atomic_sub_fetch(&tl_error_threads_pending, 1, __ATOMIC_RELAXED);
  error_status = TL_OK;
  error_message[0] = '\0';
}

static tl_warn_fn warn_hook;

void tl_warn_set_hook(tl_warn_fn hook) { warn_hook = hook; }

tl_status tl_warn(tl_warning w)
{
  if (!warn_hook || warn_hook(w) == 0)
    return TL_OK;
  return tl_error_set(TL_ERR_RAISED, "a warning was raised as an exception");
}
