/*
 * System calls Node has no binding for, as a Node-API module (build/native/host-calls.node):
 * mount(2), umount2(2), mkfifo(3), a new network namespace, and mknod(2) and lsetxattr(2) for
 * applying image layers. Without it each would be a mount(8), umount(8), mkfifo(1) or unshare(1)
 * process, and a process spawned from svcd costs 6 to 14 ms of a loaded two-core machine (fork
 * of a large process, exec, exit), several times what the call itself takes; a container's create
 * made two of them. Each call runs on libuv's thread pool (a umount may wait on the disk), and its
 * callback gets null or the errno's name and message ("EBUSY: Device or resource busy").
 *
 *   mount(source, target, fstype, flags, data, done)   flags: MS_* bits (the caller parses options)
 *   umount(target, flags, done)                        flags: MNT_* bits
 *   mkfifo(paths[], mode, done)                        every path made, or the first error
 *   netns(target, done)                                a new network namespace bind-mounted on
 *                                                      target (an existing file), its lo up
 *   mknod(path, mode, major, minor, done)              mode: S_IF* type bits and permissions
 *   lsetxattr(path, name, value, done)                 value: a Buffer (xattrs are bytes)
 *   unreadBytes(fd)                                    SIOCOUTQ of a unix stream socket, at once:
 *                                                      what the peer has not read yet (0: all of it)
 */
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <unistd.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

enum op { OP_MOUNT, OP_UMOUNT, OP_MKFIFO, OP_NETNS, OP_MKNOD, OP_LSETXATTR };

typedef struct call {
  enum op op;
  char *strings[4]; /* mount: source, target, fstype, data; umount, netns: target; mknod, lsetxattr: path, name */
  char **paths;     /* mkfifo */
  size_t path_count;
  unsigned long flags;
  mode_t mode;
  dev_t dev;
  void *value; /* lsetxattr */
  size_t value_len;
  int error; /* errno, 0 on success */
  const char *failed_path;
  napi_ref done;
  napi_async_work work;
} call;

static void free_call(call *c) {
  for (int i = 0; i < 4; i++) free(c->strings[i]);
  for (size_t i = 0; i < c->path_count; i++) free(c->paths[i]);
  free(c->paths);
  free(c->value);
  free(c);
}

/* A JS string as a malloc'd C string; NULL for null or undefined. */
static napi_status c_string(napi_env env, napi_value v, char **out) {
  napi_valuetype type;
  napi_status s = napi_typeof(env, v, &type);
  if (s != napi_ok) return s;
  *out = NULL;
  if (type == napi_null || type == napi_undefined) return napi_ok;
  size_t len;
  if ((s = napi_get_value_string_utf8(env, v, NULL, 0, &len)) != napi_ok) return s;
  *out = malloc(len + 1);
  if (!*out) return napi_generic_failure;
  return napi_get_value_string_utf8(env, v, *out, len + 1, &len);
}

/* Brings lo up in the calling thread's network namespace; errno on failure. */
static int loopback_up(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  struct ifreq ifr = {0};
  strcpy(ifr.ifr_name, "lo");
  int error = 0;
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) error = errno;
  ifr.ifr_flags |= IFF_UP;
  if (!error && ioctl(fd, SIOCSIFFLAGS, &ifr) != 0) error = errno;
  close(fd);
  return error;
}

/*
 * unshare(CLONE_NEWNET) moves only the calling thread (one of the pool's), which goes back to
 * svcd's namespace before the pool gives it other work; a thread that cannot go back would open
 * later sockets in the container's namespace, so the process stops rather than go on.
 */
static int new_netns(const char *target) {
  int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) return errno;
  int error = 0;
  if (unshare(CLONE_NEWNET) != 0) {
    error = errno;
    close(home);
    return error;
  }
  if (mount("/proc/thread-self/ns/net", target, NULL, MS_BIND, NULL) != 0) error = errno;
  if (!error) error = loopback_up();
  if (error) umount2(target, MNT_DETACH);
  if (setns(home, CLONE_NEWNET) != 0) abort();
  close(home);
  return error;
}

static void execute(napi_env env, void *data) {
  (void)env;
  call *c = data;
  switch (c->op) {
  case OP_MOUNT:
    if (mount(c->strings[0], c->strings[1], c->strings[2], c->flags, c->strings[3]) != 0) c->error = errno;
    break;
  case OP_UMOUNT:
    if (umount2(c->strings[0], (int)c->flags) != 0) c->error = errno;
    break;
  case OP_MKFIFO:
    for (size_t i = 0; i < c->path_count; i++) {
      if (mkfifo(c->paths[i], c->mode) != 0) {
        c->error = errno;
        c->failed_path = c->paths[i];
        break;
      }
    }
    break;
  case OP_NETNS:
    c->error = new_netns(c->strings[0]);
    break;
  case OP_MKNOD:
    if (mknod(c->strings[0], c->mode, c->dev) != 0) c->error = errno;
    break;
  case OP_LSETXATTR:
    if (lsetxattr(c->strings[0], c->strings[1], c->value, c->value_len, 0) != 0) c->error = errno;
    break;
  }
}

static void complete(napi_env env, napi_status status, void *data) {
  call *c = data;
  napi_value done, global, arg, ignored;
  if (napi_get_reference_value(env, c->done, &done) == napi_ok && napi_get_global(env, &global) == napi_ok) {
    if (status != napi_ok) c->error = c->error ? c->error : ECANCELED;
    if (c->error) {
      char message[4200];
      snprintf(message, sizeof message, "%s: %s%s%s", strerrorname_np(c->error) ? strerrorname_np(c->error) : "E?",
               strerror(c->error), c->failed_path ? " " : "", c->failed_path ? c->failed_path : "");
      napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &arg);
    } else {
      napi_get_null(env, &arg);
    }
    napi_call_function(env, global, done, 1, &arg, &ignored);
  }
  napi_delete_reference(env, c->done);
  napi_delete_async_work(env, c->work);
  free_call(c);
}

static napi_value queue(napi_env env, call *c, napi_value done) {
  napi_value name;
  if (napi_create_reference(env, done, 1, &c->done) != napi_ok ||
      napi_create_string_utf8(env, "host-calls", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, execute, complete, c, &c->work) != napi_ok ||
      napi_queue_async_work(env, c->work) != napi_ok) {
    free_call(c);
    napi_throw_error(env, NULL, "host-calls: cannot queue the call");
  }
  return NULL;
}

/* The call's arguments and a zeroed call, or NULL with `usage` thrown when there are too few. */
static call *begin(napi_env env, napi_callback_info info, enum op op, size_t want, napi_value *argv,
                   const char *usage) {
  size_t argc = want;
  call *c = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < want ||
      !(c = calloc(1, sizeof *c))) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  c->op = op;
  return c;
}

/* Frees the call and throws `usage`: its arguments were not what it takes. */
static napi_value refuse(napi_env env, call *c, const char *usage) {
  free_call(c);
  napi_throw_type_error(env, NULL, usage);
  return NULL;
}

/* Decodes argv by `shape`: 's' a string or null into the next of c->strings, 'n' into c->flags. */
static int decode(napi_env env, call *c, napi_value *argv, const char *shape) {
  int next = 0;
  for (int i = 0; shape[i]; i++) {
    double n;
    if (shape[i] == 's' && c_string(env, argv[i], &c->strings[next++]) != napi_ok) return 0;
    if (shape[i] == 'n' && napi_get_value_double(env, argv[i], &n) != napi_ok) return 0;
    if (shape[i] == 'n') c->flags = (unsigned long)n;
  }
  return 1;
}

/* mount and umount: strings and flags, told apart by their signature (the function's data). */
typedef struct signature {
  enum op op;
  const char *shape;
  int required; /* index in strings of the one that may not be null: the target */
  const char *usage;
} signature;

static const signature mount_signature = {OP_MOUNT, "sssns", 1, "mount(source, target, fstype, flags, data, done)"};
static const signature umount_signature = {OP_UMOUNT, "sn", 0, "umount(target, flags, done)"};
static const signature netns_signature = {OP_NETNS, "s", 0, "netns(target, done)"};

static napi_value do_strings_call(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  size_t argc = 6;
  void *data;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok) return NULL;
  const signature *sig = data;
  size_t want = strlen(sig->shape) + 1;
  call *c = begin(env, info, sig->op, want, argv, sig->usage);
  if (!c) return NULL;
  if (!decode(env, c, argv, sig->shape) || !c->strings[sig->required]) return refuse(env, c, sig->usage);
  return queue(env, c, argv[want - 1]);
}

static napi_value do_mkfifo(napi_env env, napi_callback_info info) {
  static const char usage[] = "mkfifo(paths, mode, done)";
  napi_value argv[3];
  call *c = begin(env, info, OP_MKFIFO, 3, argv, usage);
  if (!c) return NULL;
  uint32_t count, mode;
  if (napi_get_array_length(env, argv[0], &count) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &mode) != napi_ok ||
      !(c->paths = calloc(count ? count : 1, sizeof(char *))))
    return refuse(env, c, usage);
  c->mode = (mode_t)mode;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    if (napi_get_element(env, argv[0], i, &item) != napi_ok ||
        c_string(env, item, &c->paths[c->path_count]) != napi_ok || !c->paths[c->path_count])
      return refuse(env, c, usage);
    c->path_count++;
  }
  return queue(env, c, argv[2]);
}

static napi_value do_mknod(napi_env env, napi_callback_info info) {
  static const char usage[] = "mknod(path, mode, major, minor, done)";
  napi_value argv[5];
  call *c = begin(env, info, OP_MKNOD, 5, argv, usage);
  if (!c) return NULL;
  uint32_t mode, major, minor;
  if (c_string(env, argv[0], &c->strings[0]) != napi_ok || !c->strings[0] ||
      napi_get_value_uint32(env, argv[1], &mode) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &major) != napi_ok ||
      napi_get_value_uint32(env, argv[3], &minor) != napi_ok)
    return refuse(env, c, usage);
  c->mode = (mode_t)mode;
  c->dev = makedev(major, minor);
  return queue(env, c, argv[4]);
}

static napi_value do_lsetxattr(napi_env env, napi_callback_info info) {
  static const char usage[] = "lsetxattr(path, name, value, done)";
  napi_value argv[4];
  call *c = begin(env, info, OP_LSETXATTR, 4, argv, usage);
  if (!c) return NULL;
  void *data;
  size_t len;
  if (c_string(env, argv[0], &c->strings[0]) != napi_ok || !c->strings[0] ||
      c_string(env, argv[1], &c->strings[1]) != napi_ok || !c->strings[1] ||
      napi_get_buffer_info(env, argv[2], &data, &len) != napi_ok || !(c->value = malloc(len ? len : 1)))
    return refuse(env, c, usage);
  memcpy(c->value, data, len);
  c->value_len = len;
  return queue(env, c, argv[3]);
}

/* Synchronous: one ioctl that never blocks. The amount, or -errno. */
static napi_value do_unread_bytes(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  size_t argc = 1;
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "unreadBytes(fd)");
    return NULL;
  }
  int amount = 0;
  if (ioctl(fd, SIOCOUTQ, &amount) != 0) amount = -errno;
  napi_create_int32(env, amount, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"mount", NULL, do_strings_call, NULL, NULL, NULL, napi_default, (void *)&mount_signature},
      {"umount", NULL, do_strings_call, NULL, NULL, NULL, napi_default, (void *)&umount_signature},
      {"mkfifo", NULL, do_mkfifo, NULL, NULL, NULL, napi_default, NULL},
      {"netns", NULL, do_strings_call, NULL, NULL, NULL, napi_default, (void *)&netns_signature},
      {"mknod", NULL, do_mknod, NULL, NULL, NULL, napi_default, NULL},
      {"lsetxattr", NULL, do_lsetxattr, NULL, NULL, NULL, napi_default, NULL},
      {"unreadBytes", NULL, do_unread_bytes, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof *props, props) != napi_ok) return NULL;
  return exports;
}
