/* tl_tensor.h - the tensor core's public types: dtypes, devices, storage, views.
 *
 * A tensor is a view (dtype, shape, strides in elements, offset in elements) on a
 * refcounted storage (bytes, device, version counter, owner).  Views share storage.
 * Nothing here includes Python.h: functions return a tl_status and leave a message
 * in tl_error (see tl_error.h), which the py_*.c files turn into exceptions.
 */
#ifndef TL_TENSOR_H
#define TL_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ndcore/tensor/tl_error.h"

#define TL_MAX_DIMS 32

/* ---- dtypes ---------------------------------------------------------------
 * One list: enum, name, itemsize, storage C type, kind.  float16 and bfloat16
 * are stored as raw 16-bit patterns and computed in float32.  The wide
 * unsigned types come last (PyTorch added them last too): nothing depends on
 * the order, but appending kept every earlier dtype's number.  The float8
 * formats (tl_float8.h) follow, in one run: storage and casts only, they
 * have no kernels of their own (see docs/dtypes.md).                         */
typedef enum {
  TL_KIND_BOOL,
  TL_KIND_UINT,
  TL_KIND_INT,
  TL_KIND_FLOAT,
  TL_KIND_COMPLEX,
} tl_kind;

#define TL_DTYPE_LIST(X)                                     \
  X(BOOL, "bool", 1, bool, TL_KIND_BOOL)                     \
  X(U8, "uint8", 1, uint8_t, TL_KIND_UINT)                   \
  X(I8, "int8", 1, int8_t, TL_KIND_INT)                      \
  X(I16, "int16", 2, int16_t, TL_KIND_INT)                   \
  X(I32, "int32", 4, int32_t, TL_KIND_INT)                   \
  X(I64, "int64", 8, int64_t, TL_KIND_INT)                   \
  X(F16, "float16", 2, uint16_t, TL_KIND_FLOAT)              \
  X(BF16, "bfloat16", 2, uint16_t, TL_KIND_FLOAT)            \
  X(F32, "float32", 4, float, TL_KIND_FLOAT)                 \
  X(F64, "float64", 8, double, TL_KIND_FLOAT)                \
  X(C64, "complex64", 8, float _Complex, TL_KIND_COMPLEX)    \
  X(C128, "complex128", 16, double _Complex, TL_KIND_COMPLEX) \
  X(U16, "uint16", 2, uint16_t, TL_KIND_UINT)                 \
  X(U32, "uint32", 4, uint32_t, TL_KIND_UINT)                 \
  X(U64, "uint64", 8, uint64_t, TL_KIND_UINT)                 \
  X(F8E4M3FN, "float8_e4m3fn", 1, uint8_t, TL_KIND_FLOAT)     \
  X(F8E5M2, "float8_e5m2", 1, uint8_t, TL_KIND_FLOAT)         \
  X(F8E4M3FNUZ, "float8_e4m3fnuz", 1, uint8_t, TL_KIND_FLOAT) \
  X(F8E5M2FNUZ, "float8_e5m2fnuz", 1, uint8_t, TL_KIND_FLOAT) \
  X(F8E8M0FNU, "float8_e8m0fnu", 1, uint8_t, TL_KIND_FLOAT)

typedef enum {
#define TL_X(E, name, size, ctype, kind) TL_DTYPE_##E,
  TL_DTYPE_LIST(TL_X)
#undef TL_X
  TL_DTYPE_COUNT
} tl_dtype;

extern const char *const tl_dtype_names[TL_DTYPE_COUNT];
extern const uint8_t tl_dtype_sizes[TL_DTYPE_COUNT];
extern const uint8_t tl_dtype_kinds[TL_DTYPE_COUNT];
/* PyTorch's names of a dtype in its messages: the ScalarType ("Float",
 * "UInt16") and the C++ type ("float", "short unsigned int"). */
const char *tl_dtype_scalar_name(tl_dtype d);
const char *tl_dtype_cpp_name(tl_dtype d);

static inline size_t tl_dtype_size(tl_dtype d) { return tl_dtype_sizes[d]; }
static inline tl_kind tl_dtype_kind(tl_dtype d) { return (tl_kind)tl_dtype_kinds[d]; }
static inline bool tl_dtype_is_float(tl_dtype d) { return tl_dtype_kinds[d] == TL_KIND_FLOAT; }
static inline bool tl_dtype_is_complex(tl_dtype d) { return tl_dtype_kinds[d] == TL_KIND_COMPLEX; }
static inline bool tl_dtype_is_float8(tl_dtype d)
{
  return d >= TL_DTYPE_F8E4M3FN && d <= TL_DTYPE_F8E8M0FNU;
}
/* Stored narrow, computed in float32 by the ops that take it (tl_op_map). */
static inline bool tl_dtype_is_reduced_float(tl_dtype d)
{
  return d == TL_DTYPE_F16 || d == TL_DTYPE_BF16 || tl_dtype_is_float8(d);
}
static inline bool tl_dtype_is_integral(tl_dtype d) /* bool counts as integral */
{
  return tl_dtype_kinds[d] <= TL_KIND_INT;
}

/* A cast from `from` to `to` drops imaginary parts (bool keeps their meaning:
 * nonzero): NumPy's ComplexWarning and PyTorch's UserWarning, through tl_warn.
 * Every user-visible cast passes here once: copies (tl_tensor_copy,
 * tl_tensor_copy_format) and the operands and out= of the elementwise ops. */
static inline tl_status tl_dtype_check_discard(tl_dtype from, tl_dtype to)
{
  if (tl_dtype_kinds[from] != TL_KIND_COMPLEX || tl_dtype_kinds[to] == TL_KIND_COMPLEX ||
      to == TL_DTYPE_BOOL)
    return TL_OK;
  return tl_warn(TL_WARN_COMPLEX_DISCARDED);
}

/* The float dtype used when ints meet floats or true division (PyTorch's
 * torch.get_default_dtype(), float32 unless changed). */
tl_dtype tl_dtype_default_float(void);
tl_status tl_dtype_set_default_float(tl_dtype d);
/* Sets this thread's own default float dtype (d a float dtype, or
 * TL_DTYPE_COUNT for none: the process-wide one applies) and returns the
 * previous setting, to be restored the same way. */
tl_dtype tl_dtype_local_default_float_swap(tl_dtype d);
/* float <-> complex of the same precision (half types map to complex64). */
tl_dtype tl_dtype_to_complex(tl_dtype d);
tl_dtype tl_dtype_to_real(tl_dtype d);

/* ---- devices -------------------------------------------------------------- */
/* FAKE is a test device: host memory behind its own backend, with no kernels
 * unless a test registers some, so tests can prove that no op runs a CPU loop
 * on another device's pointer and that outputs land on the inputs' device.
 * META is PyTorch's meta device: storages that hold no memory (the byte count
 * is kept, the data pointer is poisoned) and kernels that do nothing, so ops
 * give their results' shapes, dtypes and strides without computing.        */
typedef enum {
  TL_DEVICE_CPU,
  TL_DEVICE_CUDA,
  TL_DEVICE_FAKE,
  TL_DEVICE_META,
  TL_DEVICE_COUNT
} tl_device_type;

typedef struct {
  tl_device_type type;
  int index; /* -1 for the CPU */
} tl_device;

static inline tl_device tl_device_cpu(void) { return (tl_device){TL_DEVICE_CPU, -1}; }
const char *tl_device_str(char *buf, size_t size, tl_device d);
/* "cpu", "cuda", "fake", "meta". */
const char *tl_device_type_name(tl_device_type type);
static inline bool tl_device_eq(tl_device a, tl_device b)
{
  return a.type == b.type && a.index == b.index;
}

/* ---- storage --------------------------------------------------------------
 * Bytes with a refcount.  `release` gives the bytes back to whoever owns them
 * (our allocator, a NumPy array, a DLPack producer); it may be NULL when the
 * bytes live inside the storage allocation itself.                            */
typedef struct tl_storage tl_storage;
typedef void (*tl_release_fn)(void *ctx, void *data);

struct tl_storage {
  int64_t refcount; /* touched atomically */
  void *data;
  size_t nbytes;
  tl_device device;
  uint64_t version; /* bumped by every in-place write, read by autograd (atomic:
                       writers may run on several threads, without the GIL) */
  bool readonly;
  bool inference; /* made in inference mode: written only in inference mode */
  tl_release_fn release;
  void *release_ctx;
  size_t block_bytes; /* a large block the allocator may cache; 0 otherwise */
  /* The backend that made it (tl_storage_new) and frees it; NULL for wrapped
   * memory and storages on the stack. */
  const struct tl_backend *backend;
  void *block; /* the backend's allocation handle (a pool block) */
};

/* Set the backends up (once, at import). */
void tl_storage_init(void);
/* New storage of nbytes on device through its backend's allocator,
 * uninitialised (64-byte aligned on the CPU).  A device with no backend is a
 * RuntimeError naming it. */
tl_storage *tl_storage_new(tl_device device, size_t nbytes);
/* Same, all bytes zero (large CPU ones come zeroed from the kernel, untouched). */
tl_storage *tl_storage_new_zeroed(tl_device device, size_t nbytes);
/* Wrap memory someone else owns; `release(ctx, data)` is called at the end. */
tl_storage *tl_storage_wrap(void *data, size_t nbytes, tl_device device, bool readonly,
                            tl_release_fn release, void *ctx);
void tl_storage_incref(tl_storage *s);
/* Inference mode (PyTorch's InferenceMode), per thread: the storages made
 * while it is on are inference storages, which only it may write.  C only:
 * the CUDA sources (C++) include this header and never read the mode. */
#ifndef __cplusplus
extern _Thread_local bool tl_inference_mode;
#endif
/* TL_OK if s may be written now; else a RuntimeError (an inference storage
 * outside inference mode).  Every write checks it next to `readonly`. */
tl_status tl_storage_check_write(const tl_storage *s);
void tl_storage_decref(tl_storage *s);
static inline void tl_storage_bump(tl_storage *s)
{
  __atomic_add_fetch(&s->version, 1, __ATOMIC_RELAXED);
}
static inline uint64_t tl_storage_version(const tl_storage *s)
{
  return __atomic_load_n(&s->version, __ATOMIC_RELAXED);
}

/* ---- tensor views -----------------------------------------------------------
 * A tl_tensor is a value: copying the struct copies the view, and `storage`
 * holds one reference.  A zeroed tl_tensor (storage == NULL) is "not yet
 * allocated": ops that receive one as output allocate it.                    */
typedef struct {
  tl_storage *storage;
  tl_dtype dtype;
  int ndim;
  int64_t offset; /* elements */
  int64_t shape[TL_MAX_DIMS];
  int64_t strides[TL_MAX_DIMS]; /* elements */
} tl_tensor;

static inline void *tl_tensor_data(const tl_tensor *t)
{
  /* an offset whose bytes pass int64 belongs to an empty view (of
   * zeros((0, 2**62)), say), through which nothing is read */
  int64_t bytes;
  if (__builtin_mul_overflow(t->offset, (int64_t)tl_dtype_size(t->dtype), &bytes))
    bytes = 0;
  return (char *)t->storage->data + bytes;
}
static inline tl_device tl_tensor_device(const tl_tensor *t) { return t->storage->device; }
int64_t tl_tensor_numel(const tl_tensor *t);
bool tl_tensor_is_contiguous(const tl_tensor *t);
/* Do two elements share memory (a broadcast, expanded view)?  Such a tensor
 * must not be written: the result would depend on the write order. */
bool tl_tensor_has_internal_overlap(const tl_tensor *t);

/* Allocate `t` as a contiguous tensor of the given shape and dtype. */
tl_status tl_tensor_empty(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                          tl_device device);
/* Same, every element zero (all dtypes' zero is the all-zero bit pattern). */
tl_status tl_tensor_zeros(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                          tl_device device);
/* Make `out` a view sharing src's storage (takes a new reference). */
void tl_tensor_view_of(tl_tensor *out, const tl_tensor *src);
void tl_tensor_release(tl_tensor *t);
/* Release n tensors (those never made, storage NULL, included). */
void tl_tensor_release_n(int n, tl_tensor *ts);
/* Contiguous strides for a shape. */
void tl_shape_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* The element count of a shape with strides of its own (a view, as_strided):
 * a ValueError for a negative size, TL_ERR_SIZE (ValueError and RuntimeError)
 * where the count overflows int64 (counted as PyTorch counts, in order) or
 * passes torchlike's limit of 2^56 elements. */
tl_status tl_shape_count(int ndim, const int64_t *shape, int64_t *numel);
/* tl_shape_count for a shape laid out row-major (an allocation, a reshape),
 * whose strides must be int64s too ("Stride calculation overflowed"). */
tl_status tl_shape_numel(int ndim, const int64_t *shape, int64_t *numel);
/* Normalise dim into [0, ndim); an IndexError naming the range otherwise. */
tl_status tl_dim_wrap(int64_t dim, int ndim, int *out);
/* Broadcast shapes a and b into out (NumPy rules), naming both on failure. */
tl_status tl_shape_broadcast(int nda, const int64_t *a, int ndb, const int64_t *b, int *ndout,
                             int64_t *out);
/* Format a shape as "[2, 3]" into buf (always terminated). */
const char *tl_shape_str(char *buf, size_t size, int ndim, const int64_t *shape);

/* ---- layouts (layout.c): the order of dims in memory, outermost first ---- */

/* How a new tensor lays out its dims: row-major, as an existing tensor does
 * (PyTorch's preserve_format), or channels innermost (4-d and 5-d). */
typedef enum {
  TL_FORMAT_CONTIGUOUS,
  TL_FORMAT_PRESERVE,
  TL_FORMAT_CHANNELS_LAST,
  TL_FORMAT_CHANNELS_LAST_3D,
} tl_format;

/* The order a result of shape (ndim) takes from its n operands (broadcast
 * to it): dims sorted by the operands' strides, the first operand that tells
 * two dims apart deciding; row-major where none does. */
void tl_layout_order(int n, const tl_tensor *const *ts, int ndim, const int64_t *shape,
                     int *order);
/* Dense strides for shape with its dims laid out in order. */
void tl_layout_strides(int ndim, const int64_t *shape, const int *order, int64_t *strides);
/* Are t's strides these on every dim longer than 1 (a size-1 dim's stride is
 * never used)? */
bool tl_tensor_has_strides(const tl_tensor *t, const int64_t *strides);
/* Does t cover one block of memory once, with positive strides? */
bool tl_tensor_is_dense(const tl_tensor *t);
/* Do a and b hold the same elements' bytes in the same order, in one block
 * each (so that one byte copy moves a into b)? */
bool tl_tensor_same_block(const tl_tensor *a, const tl_tensor *b);
/* The order format asks of a tensor like `like`; RuntimeError when a
 * channels-last format meets the wrong rank. */
tl_status tl_format_order(tl_format format, const tl_tensor *like, int *order);
/* The strides a new tensor of like's shape takes in format (a dense input's
 * own strides for TL_FORMAT_PRESERVE); only like's shape and strides are read. */
tl_status tl_format_strides(tl_format format, const tl_tensor *like, int64_t *strides);
/* tl_tensor_empty with the dims laid out in order (NULL: row-major). */
tl_status tl_tensor_empty_ordered(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                                  tl_device device, const int *order);
/* A new tensor of like's shape laid out in format (tl_format_strides). */
tl_status tl_tensor_empty_format(tl_tensor *t, const tl_tensor *like, tl_dtype dtype,
                                 tl_device device, tl_format format);
/* A new tensor of shape laid out in format (PRESERVE: row-major). */
tl_status tl_tensor_empty_shaped(tl_tensor *t, tl_dtype dtype, int ndim, const int64_t *shape,
                                 tl_device device, tl_format format);

/* The layout PyTorch suggests for a layer's result from its input t
 * (suggest_memory_format): channels-last for a 4-d t (channels-last-3d for
 * a 5-d one) whose strides put channels innermost, then the spatial dims,
 * then the batch; row-major otherwise.  Ambiguous strides (a batch stride
 * equal to the channels', as in (N, 1, 1, 1)) count as row-major. */
tl_format tl_tensor_suggest_format(const tl_tensor *t);

/* Copy src into dst (same shape after broadcasting src), casting the dtype. */
tl_status tl_tensor_copy(tl_tensor *dst, const tl_tensor *src);
/* out = src cast to dtype, always a new contiguous tensor. */
tl_status tl_tensor_to_dtype(tl_tensor *out, const tl_tensor *src, tl_dtype dtype);
/* out = src cast to dtype, a new tensor laid out in format. */
tl_status tl_tensor_copy_format(tl_tensor *out, const tl_tensor *src, tl_dtype dtype,
                                tl_format format);
/* Lay a result *t out in format, on its device: *t is replaced by a copy
 * (and released) unless it already is so; TL_FORMAT_CONTIGUOUS and
 * TL_FORMAT_PRESERVE leave it as it is.  On failure *t is released. */
tl_status tl_tensor_relayout(tl_tensor *t, tl_format format);

#endif
