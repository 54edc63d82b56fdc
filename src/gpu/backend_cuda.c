/* backend_cuda.c - the CUDA backend and the pinned-host allocator.
 *
 * Both are written against the raw allocator interface (tl_alloc.h) and use
 * the caching pool: device memory from cudaMalloc, one pool per device, with
 * CUDA events for stream-ordered reuse (and, with expandable_segments:True,
 * the driver's virtual memory functions for the pool to grow address
 * ranges page by page); pinned host memory from
 * cudaHostAlloc, one pool for the process.  Copies run on the current stream
 * (cudaMemcpyAsync) and wait for it only when the caller needs the data now.
 *
 * They register themselves (tl_gpu_init) when CUDA is built in and a GPU is
 * present; without one, `cuda` has no backend and asking for it is a
 * RuntimeError naming the device.                                            */
#include "gpu/tl_gpu.h"

#ifdef TL_WITH_CUDA
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* the driver API's types only: its functions are looked up (vm_load) */
#include <cuda_runtime_api.h>

#include "gpu/tl_device_errors.h"
#include "gpu/runtime/tl_gpu_runtime.h"
#include "ndcore/tensor/tl_backend.h"

#define TL_CUDA_MAX_DEVICES 16

typedef struct {
  int index;
  tl_alloc_pool *pool;
  size_t vm_granularity; /* of physical allocations; 0: no virtual memory management */
} cuda_device;

static cuda_device devices[TL_CUDA_MAX_DEVICES];
static int device_count;

static tl_status cuda_check(cudaError_t err, const char *what)
{
  if (err == cudaSuccess)
    return TL_OK;
  cudaGetLastError(); /* clear it so the next call does not see it */
  return tl_error_set(TL_ERR_RUNTIME, "CUDA error in %s: %s", what, cudaGetErrorString(err));
}

/* ---- raw allocator: device memory ------------------------------------------------ */

/* The pool calls these on any thread, at any time: a free or an alloc for
 * device 1 may come between an op's tl_gpu_stream (which made the op's
 * device current) and its launch.  Each switches to its own device and
 * back, so the caller's current device is the one it set (PyTorch's
 * allocator holds a device guard for the same reason).  device_enter
 * returns false when the switch fails (nothing to restore then); *prev is
 * -1 when the current device could not be read, and device_leave restores
 * only a device it read. */
static bool device_enter(int index, int *prev)
{
  if (cudaGetDevice(prev) != cudaSuccess) {
    cudaGetLastError();
    *prev = -1;
  }
  if (*prev == index)
    return true;
  if (cudaSetDevice(index) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

static void device_leave(int index, int prev)
{
  if (prev >= 0 && prev != index && cudaSetDevice(prev) != cudaSuccess)
    cudaGetLastError();
}

static void *device_alloc(void *ctx, size_t nbytes)
{
  cuda_device *d = ctx;
  void *p = NULL;
  int prev;
  if (!device_enter(d->index, &prev))
    return NULL; /* the pool reports it as out of memory */
  if (cudaMalloc(&p, nbytes) != cudaSuccess) {
    cudaGetLastError(); /* out of memory is the pool's to report */
    p = NULL;
  }
  device_leave(d->index, prev);
  return p;
}

static void device_free(void *ctx, void *ptr, size_t nbytes)
{
  cuda_device *d = ctx;
  int prev;
  (void)nbytes;
  /* cudaFree needs no particular current device, but the driver frees on
   * the pointer's context more cheaply with it current */
  bool entered = device_enter(d->index, &prev);
  if (cudaFree(ptr) != cudaSuccess)
    cudaGetLastError();
  if (entered)
    device_leave(d->index, prev);
}

static void device_mem_info(void *ctx, size_t *free_bytes, size_t *total_bytes)
{
  cuda_device *d = ctx;
  int prev;
  *free_bytes = *total_bytes = 0;
  if (!device_enter(d->index, &prev))
    return;
  if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess)
    cudaGetLastError();
  device_leave(d->index, prev);
}

/* ---- raw allocator: virtual memory, for expandable segments ----------------------
 * The driver API's virtual memory functions, looked up at run time through
 * the runtime (cudaGetDriverEntryPoint*): the extension links the static
 * runtime and never libcuda, so that it imports where no driver is
 * installed.  A page the pool maps is one physical allocation
 * (cuMemCreate) mapped into the reserved range (cuMemMap) and made readable
 * and writable by its own device (cuMemSetAccess; other devices reach it
 * through copies, as they reach cudaMalloc memory here); its handle is
 * released at once, the mapping keeping the memory until cuMemUnmap.
 * When a function is missing or the device lacks the feature, the raw
 * allocator has no virtual memory callbacks and the pool makes ordinary
 * segments.  Not yet run on a GPU. */
typedef CUresult (*fn_address_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                                       unsigned long long);
typedef CUresult (*fn_address_free)(CUdeviceptr, size_t);
typedef CUresult (*fn_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                              unsigned long long);
typedef CUresult (*fn_release)(CUmemGenericAllocationHandle);
typedef CUresult (*fn_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                           unsigned long long);
typedef CUresult (*fn_unmap)(CUdeviceptr, size_t);
typedef CUresult (*fn_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*fn_granularity)(size_t *, const CUmemAllocationProp *,
                                   CUmemAllocationGranularity_flags);
typedef CUresult (*fn_device_get)(CUdevice *, int);
typedef CUresult (*fn_device_attribute)(int *, CUdevice_attribute, CUdevice);

static struct {
  fn_address_reserve address_reserve;
  fn_address_free address_free;
  fn_create create;
  fn_release release;
  fn_map map;
  fn_unmap unmap;
  fn_set_access set_access;
  fn_granularity granularity;
  fn_device_get device_get;
  fn_device_attribute device_attribute;
} drv;

/* The driver's function `name`, as its CUDA 12.0 signature, into *out (a
 * function pointer: copied, as ISO C converts no object pointer to one);
 * false when the driver has none. */
static bool driver_function(const char *name, void *out)
{
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
#else
  cudaError_t err = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &found);
#endif
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    return false;
  }
  _Static_assert(sizeof fn == sizeof(fn_map), "function and object pointers differ in size");
  memcpy(out, &fn, sizeof fn);
  return true;
}

/* Look the functions up; false when one is missing. */
static bool vm_load(void)
{
  return driver_function("cuMemAddressReserve", &drv.address_reserve) &&
         driver_function("cuMemAddressFree", &drv.address_free) &&
         driver_function("cuMemCreate", &drv.create) &&
         driver_function("cuMemRelease", &drv.release) &&
         driver_function("cuMemMap", &drv.map) &&
         driver_function("cuMemUnmap", &drv.unmap) &&
         driver_function("cuMemSetAccess", &drv.set_access) &&
         driver_function("cuMemGetAllocationGranularity", &drv.granularity) &&
         driver_function("cuDeviceGet", &drv.device_get) &&
         driver_function("cuDeviceGetAttribute", &drv.device_attribute);
}

/* Physical memory on device `index`. */
static CUmemAllocationProp vm_prop(int index)
{
  CUmemAllocationProp prop = {0};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = index;
  return prop;
}

/* The device's allocation granularity, 0 when it has no virtual memory
 * management (vm_load has succeeded). */
static size_t vm_device_granularity(int index)
{
  CUdevice dev;
  int supported = 0;
  size_t granularity = 0;
  CUmemAllocationProp prop = vm_prop(index);
  if (drv.device_get(&dev, index) != CUDA_SUCCESS ||
      drv.device_attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                           dev) != CUDA_SUCCESS ||
      !supported ||
      drv.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS)
    return 0;
  return granularity;
}

static size_t device_vm_granularity(void *ctx) { return ((cuda_device *)ctx)->vm_granularity; }

/* device_enter, and the device's primary context made current even when the
 * device already was the current one: the driver calls below may be a fresh
 * process's first use of the GPU (an allocation before any kernel), and
 * cudaGetDevice makes no context, while cudaSetDevice (CUDA 12 and later)
 * initialises the primary context and makes it current. */
static bool vm_enter(int index, int *prev)
{
  if (!device_enter(index, prev))
    return false;
  if (*prev == index && cudaSetDevice(index) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

static void *device_vm_reserve(void *ctx, size_t nbytes)
{
  cuda_device *d = ctx;
  CUdeviceptr p = 0;
  int prev;
  if (!vm_enter(d->index, &prev))
    return NULL;
  if (drv.address_reserve(&p, nbytes, d->vm_granularity, 0, 0) != CUDA_SUCCESS)
    p = 0;
  device_leave(d->index, prev);
  return (void *)(uintptr_t)p;
}

static bool device_vm_map(void *ctx, void *range, size_t offset, size_t nbytes)
{
  cuda_device *d = ctx;
  CUmemAllocationProp prop = vm_prop(d->index);
  CUmemAccessDesc access = {.location = prop.location,
                            .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr at = (CUdeviceptr)(uintptr_t)range + offset;
  int prev;
  if (!vm_enter(d->index, &prev))
    return false; /* the pool reports it as out of memory */
  bool created = drv.create(&handle, nbytes, &prop, 0) == CUDA_SUCCESS;
  bool mapped = created && drv.map(at, nbytes, 0, handle, 0) == CUDA_SUCCESS;
  bool ok = mapped && drv.set_access(at, nbytes, &access, 1) == CUDA_SUCCESS;
  if (mapped && !ok)
    drv.unmap(at, nbytes);
  if (created)
    drv.release(handle); /* the mapping holds the memory from here on */
  device_leave(d->index, prev);
  return ok;
}

static void device_vm_unmap(void *ctx, void *range, size_t offset, size_t nbytes)
{
  cuda_device *d = ctx;
  int prev;
  bool entered = device_enter(d->index, &prev);
  drv.unmap((CUdeviceptr)(uintptr_t)range + offset, nbytes); /* frees the page's memory */
  if (entered)
    device_leave(d->index, prev);
}

static void device_vm_release(void *ctx, void *range, size_t nbytes)
{
  cuda_device *d = ctx;
  int prev;
  bool entered = device_enter(d->index, &prev);
  drv.address_free((CUdeviceptr)(uintptr_t)range, nbytes);
  if (entered)
    device_leave(d->index, prev);
}

/* The pinned pool's names of the devices' default streams (pinned_copy_use):
 * the NULL handle means the legacy stream of whichever device is current
 * when it is used, and the pool makes a block's events at its free, long
 * after the copy, on any thread: it records the address of the copy's
 * device's entry here instead, which names the device. */
static char pinned_default_streams[TL_CUDA_MAX_DEVICES];

static tl_stream pinned_copy_use(tl_device device, tl_stream stream)
{
  if (stream || device.index < 0 || device.index >= TL_CUDA_MAX_DEVICES)
    return stream;
  return (tl_stream)&pinned_default_streams[device.index];
}

/* The device of a stream the pinned pool recorded, with *stream made the
 * CUDA handle: a default stream's entry above, or a created stream, whose
 * device CUDA knows; -1 (the current device) when neither says. */
static int pinned_stream_device(tl_stream *stream)
{
  uintptr_t at = (uintptr_t)*stream, first = (uintptr_t)pinned_default_streams;
  if (at >= first && at < first + TL_CUDA_MAX_DEVICES) {
    *stream = NULL;
    return (int)(at - first);
  }
  int device = -1;
  if (*stream && cudaStreamGetDevice((cudaStream_t)*stream, &device) != cudaSuccess) {
    cudaGetLastError();
    device = -1;
  }
  return device;
}

/* ctx: the device pool's cuda_device, or NULL for the pinned pool, whose
 * streams name their devices (pinned_stream_device): the event is made on
 * the stream's device, the caller's restored after. */
static void *event_record(void *ctx, tl_stream stream)
{
  cuda_device *d = ctx;
  cudaEvent_t e = NULL;
  int prev = -1;
  int index = d ? d->index : pinned_stream_device(&stream);
  bool entered = index < 0 || device_enter(index, &prev);
  if (!entered || cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventRecord(e, (cudaStream_t)stream) != cudaSuccess) {
    cudaGetLastError();
    /* No event: wait for the stream now, so the block is safe to reuse. */
    cudaStreamSynchronize((cudaStream_t)stream);
    if (e)
      cudaEventDestroy(e);
    e = NULL;
  }
  if (index >= 0 && entered)
    device_leave(index, prev);
  return e;
}

static bool event_query(void *ctx, void *event)
{
  (void)ctx;
  if (!event)
    return true;
  cudaError_t err = cudaEventQuery((cudaEvent_t)event);
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  return true;
}

static void event_synchronize(void *ctx, void *event)
{
  (void)ctx;
  if (event)
    cudaEventSynchronize((cudaEvent_t)event);
}

static void event_free(void *ctx, void *event)
{
  (void)ctx;
  if (event)
    cudaEventDestroy((cudaEvent_t)event);
}

/* ---- the CUDA backend ------------------------------------------------------------- */

static int cuda_device_count(void) { return device_count; }

static tl_alloc_pool *cuda_pool(tl_device device) { return devices[device.index].pool; }

static cudaStream_t stream_of(tl_device device, tl_stream stream)
{
  return stream ? (cudaStream_t)stream : (cudaStream_t)tl_gpu_current_stream(device.index);
}

/* The byte operations and synchronize run with their device current and
 * the caller's restored after (tl_gpu_device_guard_enter). */
static tl_status cuda_memset(tl_device device, void *dst, int byte, size_t n, tl_stream stream)
{
  int prev;
  if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK)
    return tl_error_status();
  tl_status status =
      cuda_check(cudaMemsetAsync(dst, byte, n, stream_of(device, stream)), "cudaMemsetAsync");
  tl_gpu_device_guard_leave(device.index, prev);
  return status;
}

static tl_status cuda_copy(tl_device device, void *dst, const void *src, size_t n,
                           tl_stream stream, bool async, enum cudaMemcpyKind kind)
{
  cudaStream_t s = stream_of(device, stream);
  int prev;
  if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK)
    return tl_error_status();
  tl_status status = cuda_check(cudaMemcpyAsync(dst, src, n, kind, s), "cudaMemcpyAsync");
  /* A device-to-device copy is ordered on the stream; a copy the host waits
   * for (not async) returns once its bytes are there. */
  if (status == TL_OK && !async && kind != cudaMemcpyDeviceToDevice) {
    status = cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    if (status == TL_OK && kind == cudaMemcpyDeviceToHost)
      status = tl_device_errors_check_stream(device, s);
  }
  tl_gpu_device_guard_leave(device.index, prev);
  return status;
}

static tl_status cuda_copy_from_host(tl_device device, void *dst, const void *src, size_t n,
                                     tl_stream stream, bool async)
{
  return cuda_copy(device, dst, src, n, stream, async, cudaMemcpyHostToDevice);
}

static tl_status cuda_copy_to_host(tl_device device, void *dst, const void *src, size_t n,
                                   tl_stream stream, bool async)
{
  return cuda_copy(device, dst, src, n, stream, async, cudaMemcpyDeviceToHost);
}

static tl_status cuda_copy_on_device(tl_device device, void *dst, const void *src, size_t n,
                                     tl_stream stream, bool async)
{
  return cuda_copy(device, dst, src, n, stream, async, cudaMemcpyDeviceToDevice);
}

static tl_status cuda_synchronize(tl_device device)
{
  int prev;
  if (tl_gpu_device_guard_enter(device.index, &prev) != TL_OK)
    return tl_error_status();
  tl_status status = cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (status == TL_OK)
    status = tl_device_errors_check(device);
  tl_gpu_device_guard_leave(device.index, prev);
  return status;
}

/* The thread's current stream on the device (runtime.c: torchlike.cuda.set_stream). */
static tl_stream cuda_current_stream(tl_device device) { return tl_gpu_current_stream(device.index); }

static const tl_backend cuda_backend = {
    .type = TL_DEVICE_CUDA,
    .name = "cuda",
    .device_count = cuda_device_count,
    .storage_new = tl_backend_pool_storage_new,
    .storage_free = tl_backend_pool_storage_free,
    .memset = cuda_memset,
    .copy_from_host = cuda_copy_from_host,
    .copy_to_host = cuda_copy_to_host,
    .copy_on_device = cuda_copy_on_device,
    .synchronize = cuda_synchronize,
    .current_stream = cuda_current_stream,
    .pool = cuda_pool,
};

/* ---- pinned host memory ----------------------------------------------------------- */

static tl_alloc_pool *pinned_pool_;

static void *pinned_alloc(void *ctx, size_t nbytes)
{
  (void)ctx;
  void *p = NULL;
  if (cudaHostAlloc(&p, nbytes, cudaHostAllocDefault) != cudaSuccess) {
    cudaGetLastError();
    return NULL;
  }
  return p;
}

static void pinned_free(void *ctx, void *ptr, size_t nbytes)
{
  (void)ctx;
  (void)nbytes;
  cudaFreeHost(ptr);
}

static void pinned_mem_info(void *ctx, size_t *free_bytes, size_t *total_bytes)
{
  (void)ctx;
  *free_bytes = *total_bytes = 0; /* bounded by host memory, which we do not query */
}

static tl_alloc_pool *pinned_pool(tl_device device)
{
  (void)device;
  return pinned_pool_;
}

/* Host memory: the CPU backend's table with a pool of its own (tl_gpu_init). */
static tl_backend pinned_backend;

/* The stream pinned blocks are allocated on: the host's own, distinct from
 * every CUDA stream (the legacy default one is NULL), so that an async copy
 * on any of them is recorded (tl_backend_tensor_copy) and the block is not
 * handed out again before that copy has read it, as PyTorch's host allocator. */
static tl_stream pinned_host_stream(tl_device device)
{
  (void)device;
  return (tl_stream)&pinned_backend;
}

/* ---- registration ------------------------------------------------------------------ */

void tl_gpu_init(void)
{
  int n = tl_gpu_device_count();
  if (n <= 0)
    return;
  if (n > TL_CUDA_MAX_DEVICES)
    n = TL_CUDA_MAX_DEVICES;
  tl_alloc_config config;
  tl_alloc_config_from_env(&config);
  static const tl_alloc_raw device_raw = {
      .alloc = device_alloc,
      .free = device_free,
      .mem_info = device_mem_info,
      .event_record = event_record,
      .event_query = event_query,
      .event_synchronize = event_synchronize,
      .event_free = event_free,
  };
  /* the driver's virtual memory functions only when the pool will use them */
  bool vm = config.expandable_segments && vm_load();
  for (int i = 0; i < n; i++) {
    char name[32];
    tl_alloc_raw raw = device_raw;
    devices[i].index = i;
    devices[i].vm_granularity = vm ? vm_device_granularity(i) : 0;
    if (devices[i].vm_granularity) {
      raw.vm_granularity = device_vm_granularity;
      raw.vm_reserve = device_vm_reserve;
      raw.vm_map = device_vm_map;
      raw.vm_unmap = device_vm_unmap;
      raw.vm_release = device_vm_release;
    }
    raw.ctx = &devices[i];
    tl_device_str(name, sizeof name, (tl_device){TL_DEVICE_CUDA, i});
    devices[i].pool = tl_alloc_pool_new(&raw, &config, name);
    if (!devices[i].pool) {
      tl_error_clear();
      return;
    }
  }
  device_count = n;
  tl_backend_register(&cuda_backend);
  static const tl_alloc_raw pinned_raw = {
      .alloc = pinned_alloc,
      .free = pinned_free,
      .mem_info = pinned_mem_info,
      .event_record = event_record,
      .event_query = event_query,
      .event_synchronize = event_synchronize,
      .event_free = event_free,
  };
  tl_alloc_config plain;
  tl_alloc_config_parse(NULL, &plain);
  pinned_pool_ = tl_alloc_pool_new(&pinned_raw, &plain, "cpu (pinned)");
  pinned_backend = tl_backend_cpu;
  pinned_backend.name = "cpu (pinned)";
  pinned_backend.storage_new = tl_backend_pool_storage_new;
  pinned_backend.storage_free = tl_backend_pool_storage_free;
  pinned_backend.pool = pinned_pool;
  pinned_backend.current_stream = pinned_host_stream;
  pinned_backend.copy_use = pinned_copy_use;
  if (pinned_pool_)
    tl_backend_register_pinned(&pinned_backend);
  else
    tl_error_clear();
}
#endif
