/*
 * svc-registry's zero-copy blob sender, a Node-API module (build/native/blob-sendfile.node).
 *
 * Node has no sendfile: every served byte would be read into a buffer and written back out, two
 * copies through user space. Here one thread of our own moves file bytes to sockets with
 * sendfile(2) (the kernel copies page cache to socket buffers), waiting for sockets to drain with
 * an epoll of its own, so neither the event loop nor libuv's thread pool ever blocks on a slow
 * client or a cold disk.
 *
 * JS hands over a transfer (the socket's fd, the blob file's fd, offset, length) after Node has
 * flushed the response headers; both fds are dup'd, so Node may close its own at any time. The
 * result comes back on the event loop through a thread-safe function. One thread serves every
 * transfer: sendfile from the page cache is far faster than any socket drains.
 *
 *   send(socketFd, fileFd, offset, length, idleMs, done(errorMessage | null, bytesSent)) -> id
 *                a client that takes nothing for idleMs ends its transfer (ETIMEDOUT)
 *   cancel(id)   the transfer ends with "cancelled" (the client went away)
 *   trim()       returns the allocator's free memory to the system (malloc_trim)
 */
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>

/* Bytes per sendfile call: large enough to fill a socket buffer, small enough to share the
 * thread fairly among many clients. */
#define SLICE (4u << 20)

typedef struct transfer {
  uint64_t id;
  int sock;
  int file;
  off_t offset;
  size_t left;
  size_t sent;
  int64_t idle_ms;
  int64_t last_progress; /* ms, CLOCK_MONOTONIC */
  int error; /* errno, or -1 for cancelled */
  napi_ref done;
  struct transfer *next;
} transfer;

static struct {
  pthread_mutex_t lock;
  pthread_t thread;
  int started;
  int epoll;
  int wake; /* eventfd: new transfers or cancels to pick up */
  uint64_t next_id;
  transfer *incoming;  /* handed over by JS, not yet in the epoll */
  uint64_t *cancels;   /* ids to cancel */
  size_t cancel_count, cancel_cap;
  transfer *active;    /* owned by the thread */
  napi_threadsafe_function finished;
  napi_env env; /* the one environment (main thread) that may use it: the state is per process */
  size_t pending; /* transfers whose callback has not run; on the event loop only */
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void finish(transfer *t) {
  close(t->sock);
  close(t->file);
  /* Blocking: the queue is unbounded, so this never waits. */
  napi_call_threadsafe_function(S.finished, t, napi_tsfn_blocking);
}

static void unlink_active(transfer *t) {
  for (transfer **p = &S.active; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      return;
    }
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends until the socket is full, the transfer is done, or it fails; 1 when it ended. */
static int pump(transfer *t) {
  while (t->left > 0) {
    ssize_t n = sendfile(t->sock, t->file, &t->offset, t->left < SLICE ? t->left : SLICE);
    if (n > 0) {
      t->left -= (size_t)n;
      t->sent += (size_t)n;
      t->last_progress = now_ms();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    t->error = n == 0 ? EIO : errno; /* 0: the file is shorter than its recorded size */
    return 1;
  }
  return 1;
}

static void take_handovers(void) {
  pthread_mutex_lock(&S.lock);
  transfer *in = S.incoming;
  S.incoming = NULL;
  uint64_t *cancels = S.cancels;
  size_t cancel_count = S.cancel_count;
  S.cancels = NULL;
  S.cancel_count = S.cancel_cap = 0;
  pthread_mutex_unlock(&S.lock);
  while (in) {
    transfer *t = in;
    in = in->next;
    struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = t};
    if (epoll_ctl(S.epoll, EPOLL_CTL_ADD, t->sock, &ev) < 0) {
      t->error = errno;
      finish(t);
      continue;
    }
    t->next = S.active;
    S.active = t;
  }
  for (size_t i = 0; i < cancel_count; i++)
    for (transfer *t = S.active; t; t = t->next)
      if (t->id == cancels[i]) {
        epoll_ctl(S.epoll, EPOLL_CTL_DEL, t->sock, NULL);
        unlink_active(t);
        t->error = -1;
        finish(t);
        break;
      }
  free(cancels);
}

/* Ends the transfers whose client has taken nothing for their idle limit. */
static void end_stalled(void) {
  int64_t now = now_ms();
  for (transfer *t = S.active, *next; t; t = next) {
    next = t->next;
    if (now - t->last_progress < t->idle_ms) continue;
    epoll_ctl(S.epoll, EPOLL_CTL_DEL, t->sock, NULL);
    unlink_active(t);
    t->error = ETIMEDOUT;
    finish(t);
  }
}

static void *run(void *arg) {
  (void)arg;
  struct epoll_event events[64];
  for (;;) {
    /* Wakes at least every second while transfers are under way, to end stalled ones. */
    int n = epoll_wait(S.epoll, events, 64, S.active ? 1000 : -1);
    if (S.active) end_stalled();
    for (int i = 0; i < n; i++) {
      if (events[i].data.ptr == NULL) {
        uint64_t count;
        if (read(S.wake, &count, sizeof count) < 0) { /* nothing to drain */ }
        take_handovers();
        continue;
      }
      transfer *t = events[i].data.ptr;
      if (pump(t)) {
        epoll_ctl(S.epoll, EPOLL_CTL_DEL, t->sock, NULL);
        unlink_active(t);
        finish(t);
      }
    }
  }
  return NULL;
}

/* On the event loop: calls the transfer's callback and frees it. */
static void call_done(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)context;
  transfer *t = data;
  if (env) {
    napi_value cb, global, args[2];
    napi_get_reference_value(env, t->done, &cb);
    napi_get_global(env, &global);
    if (t->error == 0)
      napi_get_null(env, &args[0]);
    else
      napi_create_string_utf8(env, t->error == -1 ? "cancelled" : strerror(t->error), NAPI_AUTO_LENGTH,
                              &args[0]);
    napi_create_double(env, (double)t->sent, &args[1]);
    napi_delete_reference(env, t->done);
    /* With nothing under way, the thread must not keep the process alive. */
    if (--S.pending == 0) napi_unref_threadsafe_function(env, S.finished);
    napi_call_function(env, global, cb, 2, args, NULL);
  }
  free(t);
}

static napi_value throw_errno(napi_env env, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static void wake_thread(void) {
  uint64_t one = 1;
  if (write(S.wake, &one, sizeof one) < 0) { /* the counter is already non-zero */ }
}

static napi_value start_thread(napi_env env) {
  S.epoll = epoll_create1(EPOLL_CLOEXEC);
  if (S.epoll < 0) return throw_errno(env, "epoll_create1");
  S.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (S.wake < 0) return throw_errno(env, "eventfd");
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(S.epoll, EPOLL_CTL_ADD, S.wake, &ev) < 0) return throw_errno(env, "epoll_ctl");
  napi_value name;
  napi_create_string_utf8(env, "blob-sendfile", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, call_done,
                                      &S.finished) != napi_ok)
    return NULL;
  /* Unreferenced while idle, so the thread never keeps the process alive. */
  napi_unref_threadsafe_function(env, S.finished);
  int err = pthread_create(&S.thread, NULL, run, NULL);
  if (err != 0) {
    errno = err;
    return throw_errno(env, "pthread_create");
  }
  pthread_detach(S.thread);
  S.env = env;
  S.started = 1;
  return NULL;
}

static int64_t int_arg(napi_env env, napi_value v) {
  int64_t out = -1;
  napi_get_value_int64(env, v, &out);
  return out;
}

static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_valuetype cb_type = napi_undefined;
  if (argc == 6) napi_typeof(env, argv[5], &cb_type);
  int64_t sock = int_arg(env, argv[0]), file = int_arg(env, argv[1]);
  int64_t offset = int_arg(env, argv[2]), length = int_arg(env, argv[3]), idle = int_arg(env, argv[4]);
  if (argc != 6 || cb_type != napi_function || sock < 0 || file < 0 || offset < 0 || length < 0 || idle <= 0) {
    napi_throw_type_error(env, NULL, "send(socketFd, fileFd, offset, length, idleMs, done)");
    return NULL;
  }
  if (!S.started) {
    start_thread(env);
    if (!S.started) return NULL; /* it threw */
  }
  if (env != S.env) {
    napi_throw_error(env, NULL, "blob-sendfile serves one Node environment per process");
    return NULL;
  }
  transfer *t = calloc(1, sizeof *t);
  if (!t) return throw_errno(env, "calloc");
  t->sock = fcntl((int)sock, F_DUPFD_CLOEXEC, 0);
  t->file = t->sock < 0 ? -1 : fcntl((int)file, F_DUPFD_CLOEXEC, 0);
  if (t->file < 0) {
    int saved = errno;
    if (t->sock >= 0) close(t->sock);
    free(t);
    errno = saved;
    return throw_errno(env, "dup");
  }
  t->offset = (off_t)offset;
  t->left = (size_t)length;
  t->idle_ms = idle;
  t->last_progress = now_ms();
  napi_create_reference(env, argv[5], 1, &t->done);
  if (S.pending++ == 0) napi_ref_threadsafe_function(env, S.finished);
  pthread_mutex_lock(&S.lock);
  t->id = ++S.next_id;
  t->next = S.incoming;
  S.incoming = t;
  pthread_mutex_unlock(&S.lock);
  wake_thread();
  napi_value id;
  napi_create_double(env, (double)t->id, &id);
  return id;
}

static napi_value js_cancel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int64_t id = argc == 1 ? int_arg(env, argv[0]) : -1;
  if (id <= 0 || !S.started || env != S.env) return NULL;
  pthread_mutex_lock(&S.lock);
  if (S.cancel_count == S.cancel_cap) {
    size_t cap = S.cancel_cap ? S.cancel_cap * 2 : 8;
    uint64_t *grown = realloc(S.cancels, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&S.lock);
      return throw_errno(env, "realloc");
    }
    S.cancels = grown;
    S.cancel_cap = cap;
  }
  S.cancels[S.cancel_count++] = (uint64_t)id;
  pthread_mutex_unlock(&S.lock);
  wake_thread();
  return NULL;
}

static napi_value js_trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value freed;
  napi_get_boolean(env, malloc_trim(0) == 1, &freed);
  return freed;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL},
      {"cancel", NULL, js_cancel, NULL, NULL, NULL, napi_default, NULL},
      {"trim", NULL, js_trim, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(blob_sendfile, init)
