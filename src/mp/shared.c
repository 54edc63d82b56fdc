/* shared.c - shared-memory segments under CPU storages (see tl_mp.h).
 *
 * A shared storage's release_ctx is its segment: the mapping, the fd (fd
 * kind) or name (file_system kind), and the bytes it replaced when it was
 * moved in place, which are given back at once when no other reference can
 * hold their address and at the storage's end otherwise.
 *
 * Every live segment of this process is in one list keyed by inode, so a
 * segment that arrives again maps to the storage already there.  A storage
 * whose refcount reached zero may still be in the list while it is being
 * released: lookups skip it (they take a reference only from a count above
 * zero).
 *
 * A named segment starts with TL_MP_HEADER bytes holding its cross-process
 * count; its data follows, 64-byte aligned.                                  */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "mp/tl_mp.h"
#include "ndcore/tensor/tl_backend.h"

#define TL_MP_HEADER 64
#define TL_MP_MAX_FDS 64

typedef struct tl_mp_segment {
  tl_mp_kind kind;
  int fd; /* fd kind: owned; -1 otherwise */
  char name[TL_MP_NAME_MAX];
  void *base;
  size_t map_len;
  dev_t dev;
  ino_t ino;
  tl_storage *storage; /* not owned: the list's back pointer */
  /* The bytes this segment replaced, when they could not be given back yet. */
  tl_release_fn old_release;
  void *old_ctx, *old_data;
  struct tl_mp_segment *next;
} tl_mp_segment;

static struct {
  pthread_mutex_t lock;
  tl_mp_segment *head;
  uint64_t counter;
} segments = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void segment_release(void *ctx, void *data);

static tl_mp_segment *segment_of(const tl_storage *s)
{
  return s && s->release == segment_release ? s->release_ctx : NULL;
}

static int64_t *segment_count(const tl_mp_segment *seg) { return (int64_t *)seg->base; }

static void *segment_data(const tl_mp_segment *seg)
{
  return (char *)seg->base + (seg->kind == TL_MP_FILE_SYSTEM ? TL_MP_HEADER : 0);
}

static void list_add(tl_mp_segment *seg)
{
  pthread_mutex_lock(&segments.lock);
  seg->next = segments.head;
  segments.head = seg;
  pthread_mutex_unlock(&segments.lock);
}

static void list_remove(tl_mp_segment *seg)
{
  pthread_mutex_lock(&segments.lock);
  for (tl_mp_segment **p = &segments.head; *p; p = &(*p)->next)
    if (*p == seg) {
      *p = seg->next;
      break;
    }
  pthread_mutex_unlock(&segments.lock);
}

/* The live storage over inode (dev, ino) with a new reference, or NULL. */
static tl_storage *list_find(dev_t dev, ino_t ino)
{
  tl_storage *found = NULL;
  pthread_mutex_lock(&segments.lock);
  for (tl_mp_segment *seg = segments.head; seg && !found; seg = seg->next) {
    if (seg->dev != dev || seg->ino != ino)
      continue;
    int64_t n = __atomic_load_n(&seg->storage->refcount, __ATOMIC_ACQUIRE);
    while (n > 0 && !__atomic_compare_exchange_n(&seg->storage->refcount, &n, n + 1, false,
                                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      ;
    if (n > 0)
      found = seg->storage;
  }
  pthread_mutex_unlock(&segments.lock);
  return found;
}

/* Drop one count of a named segment; the last one unlinks the name. */
static void name_count_drop(tl_mp_segment *seg)
{
  if (__atomic_sub_fetch(segment_count(seg), 1, __ATOMIC_ACQ_REL) == 0)
    shm_unlink(seg->name);
}

static void segment_free(tl_mp_segment *seg)
{
  if (seg->base && seg->base != MAP_FAILED)
    munmap(seg->base, seg->map_len);
  if (seg->fd >= 0)
    close(seg->fd);
  free(seg);
}

static void segment_release(void *ctx, void *data)
{
  (void)data;
  tl_mp_segment *seg = ctx;
  list_remove(seg);
  if (seg->kind == TL_MP_FILE_SYSTEM)
    name_count_drop(seg);
  if (seg->old_release)
    seg->old_release(seg->old_ctx, seg->old_data);
  segment_free(seg);
}

/* Map `fd` (a segment of at least map_len bytes) and note its inode. */
static tl_status segment_map(tl_mp_segment *seg, int fd)
{
  struct stat st;
  if (fstat(fd, &st) != 0)
    return tl_error_set(TL_ERR_RUNTIME, "shared memory: fstat failed: %s", strerror(errno));
  if ((size_t)st.st_size < seg->map_len)
    return tl_error_set(TL_ERR_RUNTIME, "shared memory segment holds %lld bytes, expected %zu",
                        (long long)st.st_size, seg->map_len);
  seg->dev = st.st_dev;
  seg->ino = st.st_ino;
  seg->base = mmap(NULL, seg->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (seg->base == MAP_FAILED) {
    seg->base = NULL;
    return tl_error_set(TL_ERR_MEMORY, "shared memory: mapping %zu bytes failed: %s",
                        seg->map_len, strerror(errno));
  }
  return TL_OK;
}

static tl_mp_segment *segment_alloc(tl_mp_kind kind, size_t nbytes)
{
  tl_mp_segment *seg = calloc(1, sizeof *seg);
  if (!seg) {
    tl_error_set(TL_ERR_MEMORY, "out of memory");
    return NULL;
  }
  seg->kind = kind;
  seg->fd = -1;
  /* A zero-byte mapping does not exist: keep at least one byte. */
  seg->map_len = (kind == TL_MP_FILE_SYSTEM ? TL_MP_HEADER : 0) + (nbytes ? nbytes : 1);
  return seg;
}

/* An anonymous file: memfd, or a POSIX segment unlinked before anyone sees it. */
static int anonymous_file(void)
{
  int fd = memfd_create("torchlike", MFD_CLOEXEC);
  for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
    char name[TL_MP_NAME_MAX];
    snprintf(name, sizeof name, "/torchlike_anon_%d_%llu", (int)getpid(),
             (unsigned long long)__atomic_add_fetch(&segments.counter, 1, __ATOMIC_RELAXED));
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
      shm_unlink(name);
  }
  return fd;
}

/* A new segment of nbytes, mapped, with a count of 1 when named. */
static tl_mp_segment *segment_create(tl_mp_kind kind, size_t nbytes)
{
  tl_mp_segment *seg = segment_alloc(kind, nbytes);
  int fd = -1;
  if (!seg)
    return NULL;
  if (kind == TL_MP_FD) {
    fd = anonymous_file();
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    for (int attempt = 0; attempt < 16; attempt++) {
      snprintf(seg->name, sizeof seg->name, "/torchlike_%d_%llu_%lx", (int)getpid(),
               (unsigned long long)__atomic_add_fetch(&segments.counter, 1, __ATOMIC_RELAXED),
               (unsigned long)(ts.tv_nsec + attempt));
      fd = shm_open(seg->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0 || errno != EEXIST)
        break;
    }
  }
  if (fd < 0) {
    tl_error_set(TL_ERR_RUNTIME, "shared memory: could not create a segment: %s",
                 strerror(errno));
    goto fail;
  }
  if (ftruncate(fd, (off_t)seg->map_len) != 0) {
    tl_error_set(TL_ERR_MEMORY, "shared memory: could not size a segment of %zu bytes: %s",
                 seg->map_len, strerror(errno));
    goto fail;
  }
  if (segment_map(seg, fd) != TL_OK)
    goto fail;
  if (kind == TL_MP_FD) {
    seg->fd = fd;
  } else {
    close(fd);
    *segment_count(seg) = 1;
  }
  return seg;
fail:
  if (fd >= 0)
    close(fd);
  if (kind == TL_MP_FILE_SYSTEM && seg->name[0])
    shm_unlink(seg->name);
  segment_free(seg);
  return NULL;
}

/* The bytes a storage had before the move, given back now that nothing can
 * read them: a wrapped owner's release, or the pages of our own block. */
static void give_back_old_bytes(tl_storage *s, tl_release_fn release, void *ctx, void *data)
{
  if (release) {
    release(ctx, data);
    return;
  }
  if (s->backend != &tl_backend_cpu)
    return;
  /* The bytes share one allocation with the header: hand the whole pages
   * inside them back to the kernel (the block stays ours until freed). */
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t begin = ((uintptr_t)data + page - 1) / page * page;
  uintptr_t end = ((uintptr_t)data + s->nbytes) / page * page;
  if (end > begin)
    madvise((void *)begin, end - begin, MADV_DONTNEED);
}

tl_status tl_mp_storage_share(tl_storage *s, tl_mp_kind kind)
{
  char dev[32];
  if (segment_of(s))
    return TL_OK;
  if (s->device.type != TL_DEVICE_CPU)
    return tl_error_set(TL_ERR_RUNTIME, "share_memory_: a storage on %s is shared through "
                        "CUDA IPC when it is sent, not moved", tl_device_str(dev, sizeof dev,
                                                                             s->device));
  if (kind != TL_MP_FD && kind != TL_MP_FILE_SYSTEM)
    return tl_error_set(TL_ERR_VALUE, "share_memory_: unknown sharing strategy %d", (int)kind);
  tl_mp_segment *seg = segment_create(kind, s->nbytes);
  if (!seg)
    return tl_error_status();
  void *data = segment_data(seg);
  if (s->nbytes)
    memcpy(data, s->data, s->nbytes);
  tl_release_fn old_release = s->release;
  void *old_ctx = s->release_ctx, *old_data = s->data;
  seg->storage = s;
  s->data = data;
  s->release = segment_release;
  s->release_ctx = seg;
  /* Only the caller's reference: no other view, buffer export or kernel can
   * hold the old address. */
  if (__atomic_load_n(&s->refcount, __ATOMIC_ACQUIRE) == 1) {
    give_back_old_bytes(s, old_release, old_ctx, old_data);
  } else {
    seg->old_release = old_release;
    seg->old_ctx = old_ctx;
    seg->old_data = old_data;
  }
  list_add(seg);
  return TL_OK;
}

tl_mp_kind tl_mp_storage_kind(const tl_storage *s)
{
  const tl_mp_segment *seg = segment_of(s);
  return seg ? seg->kind : TL_MP_NONE;
}

int tl_mp_storage_fd(const tl_storage *s)
{
  const tl_mp_segment *seg = segment_of(s);
  return seg ? seg->fd : -1;
}

const char *tl_mp_storage_name(const tl_storage *s)
{
  const tl_mp_segment *seg = segment_of(s);
  return seg ? seg->name : "";
}

tl_status tl_mp_storage_retain_name(const tl_storage *s)
{
  tl_mp_segment *seg = segment_of(s);
  if (!seg || seg->kind != TL_MP_FILE_SYSTEM)
    return tl_error_set(TL_ERR_RUNTIME, "storage is not in a named shared memory segment");
  __atomic_add_fetch(segment_count(seg), 1, __ATOMIC_ACQ_REL);
  return TL_OK;
}

tl_status tl_mp_storage_id(const tl_storage *s, uint64_t *dev, uint64_t *ino)
{
  const tl_mp_segment *seg = segment_of(s);
  if (!seg)
    return tl_error_set(TL_ERR_RUNTIME, "the storage is not in shared memory");
  *dev = (uint64_t)seg->dev;
  *ino = (uint64_t)seg->ino;
  return TL_OK;
}

tl_storage *tl_mp_storage_lookup(uint64_t dev, uint64_t ino)
{
  return list_find((dev_t)dev, (ino_t)ino);
}

/* A storage over a freshly mapped segment, registered. */
static tl_storage *storage_over(tl_mp_segment *seg, size_t nbytes)
{
  tl_storage *s = tl_storage_wrap(segment_data(seg), nbytes, tl_device_cpu(), false,
                                  segment_release, seg);
  if (!s)
    return NULL;
  seg->storage = s;
  list_add(seg);
  return s;
}

tl_storage *tl_mp_storage_from_fd(int fd, size_t nbytes)
{
  struct stat st;
  if (fstat(fd, &st) != 0) {
    tl_error_set(TL_ERR_RUNTIME, "shared memory: bad file descriptor %d: %s", fd,
                 strerror(errno));
    return NULL;
  }
  tl_storage *s = list_find(st.st_dev, st.st_ino);
  if (s)
    return s;
  tl_mp_segment *seg = segment_alloc(TL_MP_FD, nbytes);
  if (!seg)
    return NULL;
  seg->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (seg->fd < 0) {
    tl_error_set(TL_ERR_RUNTIME, "shared memory: dup failed: %s", strerror(errno));
    goto fail;
  }
  if (segment_map(seg, seg->fd) != TL_OK)
    goto fail;
  s = storage_over(seg, nbytes);
  if (s)
    return s;
fail:
  segment_free(seg);
  return NULL;
}

tl_storage *tl_mp_storage_from_name(const char *name, size_t nbytes, bool adopt)
{
  tl_mp_segment *seg = segment_alloc(TL_MP_FILE_SYSTEM, nbytes);
  tl_storage *s = NULL;
  if (!seg)
    return NULL;
  snprintf(seg->name, sizeof seg->name, "%s", name);
  int fd = shm_open(seg->name, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    tl_error_set(TL_ERR_RUNTIME, "shared memory segment %s could not be opened (%s): its last "
                 "holder may have let it go before it was received", name, strerror(errno));
    goto fail;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && (s = list_find(st.st_dev, st.st_ino))) {
    /* Mapped here already: our mapping holds a count, so an adopted one
     * can be dropped without reaching zero. */
    close(fd);
    if (adopt) {
      tl_mp_segment *have = segment_of(s);
      __atomic_sub_fetch(segment_count(have), 1, __ATOMIC_ACQ_REL);
    }
    segment_free(seg);
    return s;
  }
  tl_status st_map = segment_map(seg, fd);
  close(fd);
  if (st_map != TL_OK)
    goto fail;
  if (!adopt)
    __atomic_add_fetch(segment_count(seg), 1, __ATOMIC_ACQ_REL);
  s = storage_over(seg, nbytes);
  if (s)
    return s;
  name_count_drop(seg);
fail:
  segment_free(seg);
  return NULL;
}

/* Map just the header of a named segment. */
static tl_status name_header(const char *name, tl_mp_segment *seg)
{
  snprintf(seg->name, sizeof seg->name, "%s", name);
  seg->kind = TL_MP_FILE_SYSTEM;
  seg->fd = -1;
  seg->map_len = TL_MP_HEADER;
  int fd = shm_open(seg->name, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return tl_error_set(TL_ERR_RUNTIME, "shared memory segment %s could not be opened: %s",
                        name, strerror(errno));
  tl_status status = segment_map(seg, fd);
  close(fd);
  return status;
}

tl_status tl_mp_name_release(const char *name)
{
  tl_mp_segment seg = {0};
  tl_status status = name_header(name, &seg);
  if (status == TL_OK) {
    name_count_drop(&seg);
    munmap(seg.base, seg.map_len);
  }
  return status;
}

tl_status tl_mp_name_refcount(const char *name, long *out)
{
  tl_mp_segment seg = {0};
  tl_status status = name_header(name, &seg);
  if (status == TL_OK) {
    *out = (long)__atomic_load_n(segment_count(&seg), __ATOMIC_ACQUIRE);
    munmap(seg.base, seg.map_len);
  }
  return status;
}

/* ---- descriptors over Unix sockets ------------------------------------------------ */

tl_status tl_mp_fds_send(int sock, const int *fds, int nfds, const void *data, size_t len)
{
  if (nfds < 0 || nfds > TL_MP_MAX_FDS || len == 0)
    return tl_error_set(TL_ERR_VALUE, "send_fds: 0 to %d descriptors and at least one byte",
                        TL_MP_MAX_FDS);
  union {
    char buf[CMSG_SPACE(sizeof(int) * TL_MP_MAX_FDS)];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (nfds > 0) {
    msg.msg_control = control.buf;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * (size_t)nfds);
  }
  ssize_t sent;
  do
    sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0)
    return tl_error_set(TL_ERR_RUNTIME, "send_fds: sendmsg failed: %s", strerror(errno));
  if ((size_t)sent != len)
    return tl_error_set(TL_ERR_RUNTIME, "send_fds: sent %zd of %zu bytes", sent, len);
  return TL_OK;
}

tl_status tl_mp_fds_recv(int sock, int *fds, int *nfds, void *data, size_t *len)
{
  union {
    char buf[CMSG_SPACE(sizeof(int) * TL_MP_MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = data, .iov_len = *len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  int want = *nfds, got = 0;
  ssize_t n;
  do
    n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return tl_error_set(TL_ERR_RUNTIME, "recv_fds: recvmsg failed: %s", strerror(errno));
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
      continue;
    int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    int *in = (int *)CMSG_DATA(c);
    /* Descriptors beyond what the caller takes would leak: close them. */
    for (int i = 0; i < count; i++) {
      if (got < want)
        fds[got++] = in[i];
      else
        close(in[i]);
    }
  }
  *nfds = got;
  *len = (size_t)n;
  if (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) {
    for (int i = 0; i < got; i++)
      close(fds[i]);
    *nfds = 0;
    return tl_error_set(TL_ERR_RUNTIME, "recv_fds: message truncated");
  }
  return TL_OK;
}
