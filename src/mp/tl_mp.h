/* tl_mp.h - shared-memory storages for torchlike.multiprocessing.
 *
 * A CPU storage moves into shared memory in place (tl_mp_storage_share): its
 * bytes are copied into a shared mapping and its data pointer and release
 * swapped under it, so the storage keeps its identity, every view of it stays
 * valid and its version counter is untouched.  Two kinds of segment:
 *
 *   TL_MP_FD           an anonymous file (memfd_create, or shm_open and an
 *                      immediate unlink): it has no name, crosses processes
 *                      as a file descriptor (SCM_RIGHTS), and the kernel
 *                      frees it when the last fd and mapping are gone, also
 *                      when a process is killed.  Each storage keeps its fd.
 *   TL_MP_FILE_SYSTEM  a named segment in /dev/shm: crosses processes by
 *                      name and keeps no fd.  A refcount in the segment's
 *                      first 64 bytes counts the mappings (and the handles in
 *                      flight); the one that drops it to zero unlinks the
 *                      name.  A crashed process never drops its count, so the
 *                      Python layer also hands each name to a cleanup process
 *                      that unlinks what is left when every process is gone.
 *
 * A process maps a segment once: storages are looked up by the segment's
 * inode, so the same memory received twice (or sent back to the process that
 * made it) is the same storage.                                              */
#ifndef TL_MP_H
#define TL_MP_H

#include <stdbool.h>
#include <stddef.h>

#include "ndcore/tensor/tl_tensor.h"

typedef enum { TL_MP_NONE, TL_MP_FD, TL_MP_FILE_SYSTEM } tl_mp_kind;

#define TL_MP_NAME_MAX 64

/* Move a CPU storage into shared memory of `kind` in place; a storage
 * already shared (of either kind) is left as it is. */
tl_status tl_mp_storage_share(tl_storage *s, tl_mp_kind kind);
/* TL_MP_NONE for a storage not in shared memory. */
tl_mp_kind tl_mp_storage_kind(const tl_storage *s);
/* The fd of a TL_MP_FD storage (owned by the storage; -1 otherwise). */
int tl_mp_storage_fd(const tl_storage *s);
/* The name of a TL_MP_FILE_SYSTEM storage ("" otherwise). */
const char *tl_mp_storage_name(const tl_storage *s);
/* A new reference on the segment's cross-process count, for a handle in
 * flight: the receiver's tl_mp_storage_from_name(.., adopt=true) takes it
 * over.  TL_MP_FILE_SYSTEM only. */
tl_status tl_mp_storage_retain_name(const tl_storage *s);

/* The identity of a shared storage's segment (its inode), and the storage
 * of this process over a segment of that identity (a new reference), or NULL
 * (no error set) when there is none. */
tl_status tl_mp_storage_id(const tl_storage *s, uint64_t *dev, uint64_t *ino);
tl_storage *tl_mp_storage_lookup(uint64_t dev, uint64_t ino);

/* The storage over a segment received as an fd (the fd stays the caller's)
 * or by name; nbytes must match the segment.  With `adopt` the mapping takes
 * over a count made by tl_mp_storage_retain_name instead of adding one. */
tl_storage *tl_mp_storage_from_fd(int fd, size_t nbytes);
tl_storage *tl_mp_storage_from_name(const char *name, size_t nbytes, bool adopt);
/* Drop a count made by tl_mp_storage_retain_name that nobody will adopt. */
tl_status tl_mp_name_release(const char *name);
/* The cross-process count of a named segment (tests). */
tl_status tl_mp_name_refcount(const char *name, long *out);

/* Send `nfds` descriptors and `len` bytes (at least 1) over a Unix socket
 * (SCM_RIGHTS); receive up to *nfds descriptors and up to *len bytes.  The
 * received fds are close-on-exec. */
tl_status tl_mp_fds_send(int sock, const int *fds, int nfds, const void *data, size_t len);
tl_status tl_mp_fds_recv(int sock, int *fds, int *nfds, void *data, size_t *len);

/* ---- CUDA IPC (src/mp/cuda_ipc.c; TL_WITH_CUDA builds only) ---------------------
 * A device allocation crosses processes as a cudaIpcMemHandle_t plus an
 * event handle recorded after the producer's last write; the consumer opens
 * the memory, waits on the event and closes the memory when done. The
 * producer keeps its allocation alive while consumers hold it.             */
#define TL_MP_CUDA_HANDLE_BYTES 64
typedef struct {
  unsigned char mem[TL_MP_CUDA_HANDLE_BYTES];
  unsigned char event[TL_MP_CUDA_HANDLE_BYTES];
  size_t offset; /* of the pointer inside its allocation */
} tl_mp_cuda_handle;
bool tl_mp_cuda_ipc_available(void);
/* `ptr` lies in the device allocation starting at `alloc_base`. */
tl_status tl_mp_cuda_handle_get(const void *alloc_base, const void *ptr, int device,
                                tl_mp_cuda_handle *out);
/* Map the allocation once per process (a second handle to the same allocation,
 * another block of the same segment, shares the mapping) and order the
 * caller's later work after the producer's event. */
tl_status tl_mp_cuda_handle_open(const tl_mp_cuda_handle *h, int device, void **dev_ptr);
/* Give back what tl_mp_cuda_handle_open returned; the last user unmaps. */
tl_status tl_mp_cuda_handle_close(void *dev_ptr, const tl_mp_cuda_handle *h);
/* A storage over nbytes of received device memory.  Its release closes the
 * mapping and takes one off the producer's count *holders, an int64 in
 * shared host memory that `holders_storage` keeps mapped: the producer
 * frees its allocation once the count reaches zero. */
tl_storage *tl_mp_cuda_storage_open(const tl_mp_cuda_handle *h, int device, size_t nbytes,
                                    tl_storage *holders_storage, int64_t *holders);

#endif
