/*
 * svc-json-logger: the logging binary containerd's runc shim runs for a container whose stdout is
 * a `binary://` URI. It inherits the container's stdout and stderr as fds 3 and 4 and a readiness
 * pipe as fd 5, and lives with the shim, not with svcd: a SIGKILLed svcd loses no output.
 *
 * It writes the json-file log exactly as svcd's JsonFileWriter does (daemon/engine/logs/
 * json-file-writer.ts): one {"log":…,"stream":…,"attrs":…,"time":…} entry per line, lines over
 * 16 KiB cut into partial entries sharing the first piece's time, a last unterminated line stored
 * without "\n", rotation checked before each entry (max-size, max-file), text escaped as
 * JSON.stringify does after Node's UTF-8 decoding (invalid bytes become U+FFFD).
 *
 * Usage (from the URI's query `?config=PATH`): svc-json-logger config PATH, where PATH holds four
 * lines: the log path, max-size in bytes (0: none), max-file, and the attrs JSON object (or empty).
 *
 * It never dies for a write error (ENOSPC…): the entry is dropped and the pipes stay drained, so
 * the container never blocks on a full pipe. On SIGTERM (the shim deleting the task, after
 * closing its ends of the pipes) it reads what is left and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES (16 * 1024) /* Docker's copier buffer, as maxLogLineBytes in svcd */

struct stream {
  int fd;
  const char *name;
  size_t n;             /* bytes held in buf */
  int64_t partial_time; /* the first piece's time while a long line is being cut; 0 otherwise */
  char buf[LINE_MAX_BYTES];
};

static struct {
  char *path;
  long long max_size; /* 0: never rotate */
  long max_file;
  char *attrs; /* `"attrs":{…},` or "" */
  int fd;
  long long size;
  char *out; /* entries not yet written */
  size_t out_len, out_cap;
} log_file;

static volatile sig_atomic_t terminating;

static void on_term(int sig) {
  (void)sig;
  terminating = 1;
}

static void warn(const char *what) {
  fprintf(stderr, "svc-json-logger: %s: %s\n", what, strerror(errno));
}

/* Whether the last write failed: a full disk is reported once, not for every entry. */
static int write_failing;

static int64_t now_nanos(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static char *rotated_path(long index) {
  char *p;
  if (index == 0) return strdup(log_file.path);
  if (asprintf(&p, "%s.%ld", log_file.path, index) < 0) return NULL;
  return p;
}

static void open_log(int truncate) {
  struct stat st;
  log_file.fd = open(log_file.path, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0640);
  if (log_file.fd < 0) {
    warn(log_file.path);
    return;
  }
  log_file.size = fstat(log_file.fd, &st) == 0 ? st.st_size : 0;
}

/* Writes the buffered entries. On failure nothing of them stays: a partly written entry is cut
 * off again, so the next entry starts on a line of its own. */
static void flush_out(void) {
  size_t off = 0;
  if (log_file.out_len == 0) return;
  if (log_file.fd < 0) open_log(0);
  if (log_file.fd >= 0) {
    struct stat st;
    off_t start = fstat(log_file.fd, &st) == 0 ? st.st_size : -1;
    while (off < log_file.out_len) {
      ssize_t w = write(log_file.fd, log_file.out + off, log_file.out_len - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        if (!write_failing) warn("write (entries are dropped until it works again)");
        write_failing = 1;
        if (start < 0) log_file.size -= (long long)(log_file.out_len - off);
        else {
          if (off > 0 && ftruncate(log_file.fd, start) != 0) warn("ftruncate");
          log_file.size = start;
        }
        break;
      }
      off += (size_t)w;
    }
    if (off == log_file.out_len) write_failing = 0;
  }
  log_file.out_len = 0;
}

/* <path>.N-1 is dropped, each <path>.i becomes .i+1, <path> becomes .1; max-file 1 truncates. */
static void rotate(void) {
  flush_out();
  if (log_file.fd >= 0) close(log_file.fd);
  for (long i = log_file.max_file - 1; i >= 1; i--) {
    char *from = rotated_path(i - 1), *to = rotated_path(i);
    if (from && to && i == log_file.max_file - 1 && unlink(to) != 0 && errno != ENOENT) warn(to);
    if (from && to && rename(from, to) != 0 && errno != ENOENT) warn(from);
    free(from);
    free(to);
  }
  open_log(log_file.max_file <= 1);
  if (log_file.fd >= 0) log_file.size = 0;
}

static void put(const char *s, size_t len) {
  memcpy(log_file.out + log_file.out_len, s, len);
  log_file.out_len += len;
}

/* The bytes of one line as a JSON string body, as JSON.stringify(buffer.toString('utf8')) writes
 * it: WHATWG decoding (one U+FFFD per maximal invalid subpart), control characters escaped. */
static void put_escaped(const unsigned char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  size_t i = 0;
  while (i < len) {
    unsigned char c = s[i];
    if (c < 0x80) {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      switch (c) {
        case '"': put("\\\"", 2); break;
        case '\\': put("\\\\", 2); break;
        case '\b': put("\\b", 2); break;
        case '\t': put("\\t", 2); break;
        case '\n': put("\\n", 2); break;
        case '\f': put("\\f", 2); break;
        case '\r': put("\\r", 2); break;
        default:
          if (c < 0x20) put(esc, 6);
          else put((const char *)&c, 1);
      }
      i++;
      continue;
    }
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    }
    size_t j = 1;
    while (need > 0 && j <= need && i + j < len && s[i + j] >= lo && s[i + j] <= hi) {
      lo = 0x80;
      hi = 0xbf;
      j++;
    }
    if (need > 0 && j > need) put((const char *)s + i, need + 1);
    else put("\xef\xbf\xbd", 3);
    i += j;
  }
}

static void put_time(int64_t ns) {
  char text[64];
  time_t sec = (time_t)(ns / 1000000000);
  long frac = (long)(ns % 1000000000);
  struct tm tm;
  gmtime_r(&sec, &tm);
  size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  if (frac != 0) {
    int digits = 9;
    while (frac % 10 == 0) {
      frac /= 10;
      digits--;
    }
    n += (size_t)snprintf(text + n, sizeof text - n, ".%0*ld", digits, frac);
  }
  text[n++] = 'Z';
  put(text, n);
}

/* One entry; the size rule is checked before it, as svcd and Docker do (a file may end one entry
 * past max-size). */
static void emit(struct stream *s, const char *line, size_t len, int partial) {
  if (!log_file.out) return; /* no config or no memory: the pipes are only drained */
  int64_t t = s->partial_time ? s->partial_time : now_nanos();
  s->partial_time = partial ? t : 0;
  /* Worst case: every byte escaped as \u00XX, plus the fixed parts and the attrs. */
  size_t worst = len * 6 + strlen(log_file.attrs) + 128;
  if (log_file.out_len + worst > log_file.out_cap) flush_out();
  if (log_file.max_size > 0 && log_file.size >= log_file.max_size) rotate();
  size_t before = log_file.out_len;
  put("{\"log\":\"", 8);
  put_escaped((const unsigned char *)line, len);
  if (!partial) put("\\n", 2);
  put("\",\"stream\":\"", 12);
  put(s->name, strlen(s->name));
  put("\",", 2);
  put(log_file.attrs, strlen(log_file.attrs));
  put("\"time\":\"", 8);
  put_time(t);
  put("\"}\n", 3);
  log_file.size += (long long)(log_file.out_len - before);
}

/* Logs the complete lines held; a full buffer without a newline, or what is left at the end,
 * becomes a partial entry. */
static void drain_lines(struct stream *s, int eof) {
  size_t p = 0;
  char *nl;
  while (p < s->n && (nl = memchr(s->buf + p, '\n', s->n - p)) != NULL) {
    emit(s, s->buf + p, (size_t)(nl - (s->buf + p)), 0);
    p = (size_t)(nl - s->buf) + 1;
  }
  if ((eof || (p == 0 && s->n == sizeof s->buf)) && p < s->n) {
    emit(s, s->buf + p, s->n - p, 1);
    p = s->n;
  }
  memmove(s->buf, s->buf + p, s->n - p);
  s->n -= p;
}

/* Reads once from the stream; returns 0 once it is at its end (or, when `nonblock`, empty). */
static int pump(struct stream *s) {
  ssize_t r = read(s->fd, s->buf + s->n, sizeof s->buf - s->n);
  if (r < 0 && errno == EINTR) return 1;
  if (r < 0 && errno == EAGAIN) return terminating ? 0 : 1;
  if (r > 0) {
    s->n += (size_t)r;
    drain_lines(s, 0);
    return 1;
  }
  if (r < 0) warn(s->name);
  drain_lines(s, 1);
  close(s->fd);
  s->fd = -1;
  return 0;
}

static char *config_line(FILE *f) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  if (n < 0) {
    free(line);
    return strdup("");
  }
  if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
  return line;
}

static int read_config(const char *path) {
  FILE *f = fopen(path, "re");
  if (!f) {
    warn(path);
    return -1;
  }
  log_file.path = config_line(f);
  char *size = config_line(f), *files = config_line(f), *attrs = config_line(f);
  fclose(f);
  log_file.max_size = atoll(size);
  log_file.max_file = atol(files) > 0 ? atol(files) : 1;
  free(size);
  free(files);
  if (attrs[0] && asprintf(&log_file.attrs, "\"attrs\":%s,", attrs) < 0) return -1;
  if (!attrs[0]) log_file.attrs = strdup("");
  free(attrs);
  return log_file.path[0] && log_file.attrs ? 0 : -1;
}

int main(int argc, char **argv) {
  static struct stream out = {.fd = 3, .name = "stdout"}, err = {.fd = 4, .name = "stderr"};
  struct stream *streams[] = {&out, &err};
  struct sigaction sa = {.sa_handler = on_term};

  log_file.fd = -1;
  if (argc != 3 || strcmp(argv[1], "config") != 0) {
    fprintf(stderr, "usage: %s config PATH (run by containerd's shim)\n", argv[0]);
    return 2;
  }
  sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: poll returns at once */
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  if (read_config(argv[2]) == 0) {
    log_file.out_cap = 2 * (LINE_MAX_BYTES * 6 + strlen(log_file.attrs) + 128);
    log_file.out = malloc(log_file.out_cap);
    if (log_file.out) open_log(0);
  }
  close(5); /* ready */

  for (;;) {
    struct pollfd fds[2];
    nfds_t nfds = 0;
    for (int i = 0; i < 2; i++)
      if (streams[i]->fd >= 0) fds[nfds++] = (struct pollfd){.fd = streams[i]->fd, .events = POLLIN};
    if (nfds == 0) break;
    if (terminating) {
      /* The shim has closed its ends: what is left is in the pipes; read it without waiting. */
      for (int i = 0; i < 2; i++) {
        struct stream *s = streams[i];
        if (s->fd < 0) continue;
        fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
        while (s->fd >= 0 && pump(s)) {
        }
        if (s->fd >= 0) {
          drain_lines(s, 1);
          close(s->fd);
          s->fd = -1;
        }
      }
      break;
    }
    if (poll(fds, nfds, -1) < 0) {
      if (errno != EINTR) warn("poll");
      continue;
    }
    for (nfds_t k = 0; k < nfds; k++) {
      if (!fds[k].revents) continue;
      pump(fds[k].fd == out.fd ? &out : &err);
    }
    flush_out();
  }
  flush_out();
  return 0;
}
