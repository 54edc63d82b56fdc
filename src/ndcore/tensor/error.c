/* error.c - the thread-local error slot behind tl_error.h. */
#include <stdarg.h>
#include <stdio.h>

#include "ndcore/tensor/tl_error.h"

static _Thread_local tl_status error_status;
static _Thread_local char error_message[512];

tl_status tl_error_set(tl_status status, const char *fmt, ...)
{
  if (error_status != TL_OK)
    return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error_message, sizeof error_message, fmt, ap);
  va_end(ap);
  error_status = status;
  return status;
}

tl_status tl_error_status(void) { return error_status; }
const char *tl_error_message(void) { return error_message; }

void tl_error_clear(void)
{
  error_status = TL_OK;
  error_message[0] = '\0';
}
