/*
 * svc-registry's blob sender, a Node-API module (build/native/blob-transfer.node).
 *
 * Node would read every served byte into a buffer on its event loop and write it back out. Here
 * threads of our own move blob bytes to sockets, waiting for sockets to drain each with an
 * epoll of its own, so neither the event loop nor libuv's thread pool ever blocks on a slow client or
 * a cold disk.
 *
 * A local blob is mapped a window at a time and written from the mapping: one copy, page cache
 * to socket buffer. sendfile(2) copies nothing on our side, yet a client on loopback took its
 * bytes slower (about 1.9 GB/s against 3.5 for the mapped writes here): the client's copy out of
 * page-cache pages handed over whole is what bounded the pull. A truncated file cannot fault
 * here: the kernel's copy out of the mapping answers EFAULT, never a signal.
 *
 * JS hands over a transfer (the socket's fd, the blob file's fd, offset, length) after Node has
 * flushed the response headers; both fds are dup'd, so Node may close its own at any time. The
 * result comes back on the event loop through a thread-safe function. A few threads (one per
 * core) share the transfers, each serving many: copying from the page cache is far faster than
 * any socket drains, yet one thread's copies bounded many pulls at once.
 *
 * A blob kept in an object store comes from another socket (the store's answer to a GET, its
 * head already read by JS): a relay splices it through a pipe of its own to the client, so those
 * bytes never pass through the event loop either (piping them in JS cost a copy each way and
 * left pulls bound to the one JS thread).
 *
 *   send(socketFd, fileFd, offset, length, idleMs, done(errorMessage | null, bytesSent)) -> id
 *                a client that takes nothing for idleMs ends its transfer (ETIMEDOUT)
 *   relay(socketFd, sourceFd, length, idleMs, done) -> id
 *                the next length bytes of the source socket to the client; a source that ends
 *                early ends it (EPROTO); idleMs applies to the client and the source alike
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
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes per splice call: large enough to fill a socket buffer, small enough to share the
 * thread fairly among many clients. */
#define SLICE (4u << 20)

/* Bytes of a blob mapped at once (the most one write is given): the socket buffer's size, and
 * small enough that 32 pulls at once map 64 MiB in all. */
#define WINDOW (2u << 20)

/* What a relay waits for: the source to have bytes, or the client to take those in the pipe. */
enum waiting { ON_SOURCE, ON_CLIENT };

typedef struct transfer {
  uint64_t id;
  int sock;
  int file; /* the blob file, or a relay's source socket */
  int relay;
  int pipe_r, pipe_w; /* a relay's own pipe */
  size_t in_pipe;
  int source_watched; /* a relay's source is in the epoll (until its last byte is read) */
  int retired;        /* ended: out of the epoll, to be finished after this round of events */
  enum waiting waiting;
  off_t offset;
  size_t left;
  char *map; /* the mapped window of a local blob, from map_start for map_len bytes */
  off_t map_start;
  size_t map_len;
  size_t sent;
  int64_t idle_ms;
  int64_t last_progress; /* ms, CLOCK_MONOTONIC */
  int error; /* errno, or -1 for cancelled */
  napi_ref done;
  struct transfer *next;
} transfer;

/* One sender thread per core (at most MAX_WORKERS), each with its own epoll and transfers: a pull
 * is one thread's copy, so many pulls at once use every core, and a busy machine's scheduler
 * gives the registry the share a multi-threaded peer gets. */
#define MAX_WORKERS 4

typedef struct worker {
  pthread_mutex_t lock;
  pthread_t thread;
  int epoll;
  int wake; /* eventfd: new transfers or cancels to pick up */
  transfer *incoming;  /* handed over by JS, not yet in the epoll */
  uint64_t *cancels;   /* ids to cancel */
  size_t cancel_count, cancel_cap;
  transfer *active;    /* owned by the thread */
  transfer *retired;   /* ended this round; later events of the same epoll_wait may still name them */
} worker;

static struct {
  int started;
  size_t worker_count;
  worker workers[MAX_WORKERS];
  uint64_t next_id;
  napi_threadsafe_function finished;
  napi_env env; /* the one environment (main thread) that may use it: the state is per process */
  size_t pending; /* transfers whose callback has not run; on the event loop only */
} S;

/* Transfers go to the workers in turn, so a transfer's id names its worker (for cancels). */
static worker *worker_of(uint64_t id) { return &S.workers[id % S.worker_count]; }

/* A relay's source is told apart in epoll events by the low bit of the pointer (calloc's
 * alignment leaves it clear). */
static void *source_tag(transfer *t) { return (void *)((uintptr_t)t | 1); }

static void finish(transfer *t) {
  if (t->map) munmap(t->map, t->map_len);
  close(t->sock);
  close(t->file);
  if (t->relay) {
    close(t->pipe_r);
    close(t->pipe_w);
  }
  /* Blocking: the queue is unbounded, so this never waits. */
  napi_call_threadsafe_function(S.finished, t, napi_tsfn_blocking);
}

static void unlink_active(worker *w, transfer *t) {
  for (transfer **p = &w->active; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      return;
    }
}

/* Out of the epoll and the active list (Node holds its own descriptors of the same sockets, so
 * closing ours would not take them out of the epoll). It is finished, and so freed, only once the
 * round of events is through: a relay's two sockets may both be in one round. */
static void retire(worker *w, transfer *t) {
  epoll_ctl(w->epoll, EPOLL_CTL_DEL, t->sock, NULL);
  if (t->relay && t->source_watched) epoll_ctl(w->epoll, EPOLL_CTL_DEL, t->file, NULL);
  unlink_active(w, t);
  t->retired = 1;
  t->next = w->retired;
  w->retired = t;
}

static void finish_retired(worker *w) {
  while (w->retired) {
    transfer *t = w->retired;
    w->retired = t->next;
    finish(t);
  }
}

/* Level-triggered: only the side a relay waits on asks for events (the other would fire at
 * once, a writable client while the pipe is empty), errors and hang-ups come from both. */
static void wait_on(worker *w, transfer *t, enum waiting on) {
  if (t->waiting == on) return;
  t->waiting = on;
  struct epoll_event client = {.events = on == ON_CLIENT ? EPOLLOUT : 0, .data.ptr = t};
  epoll_ctl(w->epoll, EPOLL_CTL_MOD, t->sock, &client);
  if (!t->source_watched) return;
  struct epoll_event source = {.events = on == ON_SOURCE ? EPOLLIN : 0, .data.ptr = source_tag(t)};
  epoll_ctl(w->epoll, EPOLL_CTL_MOD, t->file, &source);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What one send or splice call came to. */
enum step { MOVED, AGAIN, FAILED };

/* Books a call's n bytes as moved from *from to *to; EINTR counts as moved (call again), and
 * nothing moved at all fails with ended_early. */
static enum step step_of(transfer *t, ssize_t n, size_t *from, size_t *to, int ended_early) {
  if (n > 0) {
    *from -= (size_t)n;
    *to += (size_t)n;
    t->last_progress = now_ms();
    return MOVED;
  }
  if (n < 0 && errno == EINTR) return MOVED;
  if (n < 0 && errno == EAGAIN) return AGAIN;
  t->error = n == 0 ? ended_early : errno;
  return FAILED;
}

/* Maps the window the next bytes come from (at a page boundary), unless it already is. */
static int map_window(transfer *t) {
  if (t->map && t->offset < t->map_start + (off_t)t->map_len) return 0;
  if (t->map) munmap(t->map, t->map_len);
  t->map = NULL;
  off_t start = t->offset & ~(off_t)(sysconf(_SC_PAGESIZE) - 1);
  size_t len = (size_t)(t->offset - start) + (t->left < WINDOW ? t->left : WINDOW);
  void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, t->file, start);
  if (map == MAP_FAILED) {
    t->error = errno;
    return -1;
  }
  /* Read ahead further and drop pages behind: each byte is read once. */
  madvise(map, len, MADV_SEQUENTIAL);
  t->map = map;
  t->map_start = start;
  t->map_len = len;
  return 0;
}

/* Sends until the socket is full, the transfer is done, or it fails; 1 when it ended. */
static int pump(transfer *t) {
  while (t->left > 0) {
    if (map_window(t) < 0) return 1;
    size_t mapped = (size_t)(t->map_start + (off_t)t->map_len - t->offset);
    ssize_t n = send(t->sock, t->map + (t->offset - t->map_start), mapped < t->left ? mapped : t->left,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) t->offset += n;
    /* EFAULT: the file is shorter than its recorded size. */
    if (n < 0 && errno == EFAULT) errno = EIO;
    enum step step = step_of(t, n, &t->left, &t->sent, EIO);
    if (step != MOVED) return step == FAILED;
  }
  return 1;
}

/* A relay: source socket to pipe, pipe to client, until the length is through; 1 when it ended. */
static int pump_relay(worker *w, transfer *t) {
  for (;;) {
    if (t->in_pipe > 0) {
      ssize_t n = splice(t->pipe_r, NULL, t->sock, NULL, t->in_pipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      enum step step = step_of(t, n, &t->in_pipe, &t->sent, EPIPE);
      if (step == MOVED) continue;
      if (step == AGAIN) wait_on(w, t, ON_CLIENT);
      return step == FAILED;
    }
    if (t->left == 0) return 1;
    /* The pipe is empty here, so EAGAIN means the source has nothing yet; 0 bytes, that the
     * store closed before the whole body. */
    ssize_t n = splice(t->file, NULL, t->pipe_w, NULL, t->left < SLICE ? t->left : SLICE,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    enum step step = step_of(t, n, &t->left, &t->in_pipe, EPROTO);
    if (step == AGAIN) wait_on(w, t, ON_SOURCE);
    if (step != MOVED) return step == FAILED;
    if (t->left == 0 && t->source_watched) {
      /* Its last byte is in: its closing (the answer's end) is no longer news. */
      epoll_ctl(w->epoll, EPOLL_CTL_DEL, t->file, NULL);
      t->source_watched = 0;
    }
  }
}

/* An event for a relay on the side it does not wait on can only be an error or a hang-up. */
static int relay_event(worker *w, transfer *t, int from_source, uint32_t events) {
  int expected = from_source ? t->waiting == ON_SOURCE : t->waiting == ON_CLIENT;
  if (!expected && (events & (EPOLLERR | EPOLLHUP))) {
    t->error = from_source ? ECONNRESET : EPIPE;
    return 1;
  }
  return pump_relay(w, t);
}

static void take_handovers(worker *w) {
  pthread_mutex_lock(&w->lock);
  transfer *in = w->incoming;
  w->incoming = NULL;
  uint64_t *cancels = w->cancels;
  size_t cancel_count = w->cancel_count;
  w->cancels = NULL;
  w->cancel_count = w->cancel_cap = 0;
  pthread_mutex_unlock(&w->lock);
  while (in) {
    transfer *t = in;
    in = in->next;
    /* A relay starts waiting on its source: its pipe is empty. */
    struct epoll_event ev = {.events = t->relay ? 0 : EPOLLOUT, .data.ptr = t};
    struct epoll_event source = {.events = EPOLLIN, .data.ptr = source_tag(t)};
    if (epoll_ctl(w->epoll, EPOLL_CTL_ADD, t->sock, &ev) < 0 ||
        (t->relay && epoll_ctl(w->epoll, EPOLL_CTL_ADD, t->file, &source) < 0)) {
      t->error = errno;
      epoll_ctl(w->epoll, EPOLL_CTL_DEL, t->sock, NULL);
      finish(t);
      continue;
    }
    t->source_watched = t->relay;
    t->next = w->active;
    w->active = t;
  }
  for (size_t i = 0; i < cancel_count; i++)
    for (transfer *t = w->active; t; t = t->next)
      if (t->id == cancels[i]) {
        t->error = -1;
        retire(w, t);
        break;
      }
  free(cancels);
}

/* Ends the transfers whose client has taken nothing for their idle limit. */
static void end_stalled(worker *w) {
  int64_t now = now_ms();
  for (transfer *t = w->active, *next; t; t = next) {
    next = t->next;
    if (now - t->last_progress < t->idle_ms) continue;
    t->error = ETIMEDOUT;
    retire(w, t);
  }
}

static void *run(void *arg) {
  worker *w = arg;
  struct epoll_event events[64];
  for (;;) {
    /* Wakes at least every second while transfers are under way, to end stalled ones. */
    int n = epoll_wait(w->epoll, events, 64, w->active ? 1000 : -1);
    if (w->active) end_stalled(w);
    for (int i = 0; i < n; i++) {
      if (events[i].data.ptr == NULL) {
        uint64_t count;
        if (read(w->wake, &count, sizeof count) < 0) { /* nothing to drain */ }
        take_handovers(w);
        continue;
      }
      uintptr_t tagged = (uintptr_t)events[i].data.ptr;
      transfer *t = (transfer *)(tagged & ~(uintptr_t)1);
      if (t->retired) continue;
      if (t->relay ? relay_event(w, t, (int)(tagged & 1), events[i].events) : pump(t)) retire(w, t);
    }
    finish_retired(w);
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

static void wake_thread(worker *w) {
  uint64_t one = 1;
  if (write(w->wake, &one, sizeof one) < 0) { /* the counter is already non-zero */ }
}

static napi_value start_worker(napi_env env, worker *w) {
  pthread_mutex_init(&w->lock, NULL);
  w->epoll = epoll_create1(EPOLL_CLOEXEC);
  if (w->epoll < 0) return throw_errno(env, "epoll_create1");
  w->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (w->wake < 0) return throw_errno(env, "eventfd");
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(w->epoll, EPOLL_CTL_ADD, w->wake, &ev) < 0) return throw_errno(env, "epoll_ctl");
  int err = pthread_create(&w->thread, NULL, run, w);
  if (err != 0) {
    errno = err;
    return throw_errno(env, "pthread_create");
  }
  pthread_detach(w->thread);
  S.worker_count++;
  return NULL;
}

static napi_value start_threads(napi_env env) {
  napi_value name;
  napi_create_string_utf8(env, "blob-transfer", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL, call_done,
                                      &S.finished) != napi_ok)
    return NULL;
  /* Unreferenced while idle, so the thread never keeps the process alive. */
  napi_unref_threadsafe_function(env, S.finished);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  size_t wanted = cores < 1 ? 1 : cores > MAX_WORKERS ? MAX_WORKERS : (size_t)cores;
  while (S.worker_count < wanted) {
    start_worker(env, &S.workers[S.worker_count]);
    if (S.worker_count == 0) return NULL; /* it threw */
    bool pending;
    napi_is_exception_pending(env, &pending);
    /* A later worker that could not start leaves the ones that did. */
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
      break;
    }
  }
  S.env = env;
  S.started = 1;
  return NULL;
}

static int64_t int_arg(napi_env env, napi_value v) {
  int64_t out = -1;
  napi_get_value_int64(env, v, &out);
  return out;
}

/* Hands a transfer to the thread: the descriptors dup'd, a relay given its pipe. */
static napi_value hand_over(napi_env env, int relay, int64_t sock, int64_t file, int64_t offset,
                            int64_t length, int64_t idle, napi_value done) {
  if (!S.started) {
    start_threads(env);
    if (!S.started) return NULL; /* it threw */
  }
  if (env != S.env) {
    napi_throw_error(env, NULL, "blob-transfer serves one Node environment per process");
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
  if (relay) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
      int saved = errno;
      close(t->sock);
      close(t->file);
      free(t);
      errno = saved;
      return throw_errno(env, "pipe2");
    }
    /* A larger pipe moves more per call; the default 64 KiB stays when the system refuses. */
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    t->relay = 1;
    t->pipe_r = fds[0];
    t->pipe_w = fds[1];
    t->waiting = ON_SOURCE;
  }
  t->offset = (off_t)offset;
  t->left = (size_t)length;
  t->idle_ms = idle;
  t->last_progress = now_ms();
  napi_create_reference(env, done, 1, &t->done);
  if (S.pending++ == 0) napi_ref_threadsafe_function(env, S.finished);
  t->id = ++S.next_id;
  worker *w = worker_of(t->id);
  pthread_mutex_lock(&w->lock);
  t->next = w->incoming;
  w->incoming = t;
  pthread_mutex_unlock(&w->lock);
  wake_thread(w);
  napi_value id;
  napi_create_double(env, (double)t->id, &id);
  return id;
}

/* Reads `count` non-negative integers then a callback; 0 when the call is not of that form. */
static int numbers_then_callback(napi_env env, napi_callback_info info, size_t count, int64_t *out,
                                 napi_value *done) {
  size_t argc = 8;
  napi_value argv[8];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc != count + 1) return 0;
  napi_valuetype cb_type = napi_undefined;
  napi_typeof(env, argv[count], &cb_type);
  for (size_t i = 0; i < count; i++)
    if ((out[i] = int_arg(env, argv[i])) < 0) return 0;
  *done = argv[count];
  return cb_type == napi_function;
}

static napi_value js_send(napi_env env, napi_callback_info info) {
  int64_t a[5]; /* socketFd, fileFd, offset, length, idleMs */
  napi_value done;
  if (!numbers_then_callback(env, info, 5, a, &done) || a[4] == 0) {
    napi_throw_type_error(env, NULL, "send(socketFd, fileFd, offset, length, idleMs, done)");
    return NULL;
  }
  return hand_over(env, 0, a[0], a[1], a[2], a[3], a[4], done);
}

static napi_value js_relay(napi_env env, napi_callback_info info) {
  int64_t a[4]; /* socketFd, sourceFd, length, idleMs */
  napi_value done;
  if (!numbers_then_callback(env, info, 4, a, &done) || a[3] == 0 || a[2] == 0) {
    napi_throw_type_error(env, NULL, "relay(socketFd, sourceFd, length > 0, idleMs, done)");
    return NULL;
  }
  return hand_over(env, 1, a[0], a[1], 0, a[2], a[3], done);
}

static napi_value js_cancel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int64_t id = argc == 1 ? int_arg(env, argv[0]) : -1;
  if (id <= 0 || !S.started || env != S.env) return NULL;
  worker *w = worker_of((uint64_t)id);
  pthread_mutex_lock(&w->lock);
  if (w->cancel_count == w->cancel_cap) {
    size_t cap = w->cancel_cap ? w->cancel_cap * 2 : 8;
    uint64_t *grown = realloc(w->cancels, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&w->lock);
      return throw_errno(env, "realloc");
    }
    w->cancels = grown;
    w->cancel_cap = cap;
  }
  w->cancels[w->cancel_count++] = (uint64_t)id;
  pthread_mutex_unlock(&w->lock);
  wake_thread(w);
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
      {"relay", NULL, js_relay, NULL, NULL, NULL, napi_default, NULL},
      {"cancel", NULL, js_cancel, NULL, NULL, NULL, napi_default, NULL},
      {"trim", NULL, js_trim, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(blob_transfer, init)
