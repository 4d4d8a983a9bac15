/*
 * A small volume-driver plugin for the plugin tests: it serves the plugin protocol over a unix
 * socket (one forked child per connection, so a hung call never blocks the others), keeps each
 * volume as a directory under DATA (its propagated mount) and appends every call to DATA/calls.log.
 * A volume named fail-* is refused on Create; a Mount of one named hang-* is never answered.
 *
 * usage: volume-driver SOCKET DATA          built with: gcc -static -O2 -o volume-driver volume-driver.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char *data;

/* The string value of "key" in a flat JSON body, or "" (names are plain in these tests). */
static void field(const char *body, const char *key, char *out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(body, pattern);
  out[0] = 0;
  if (!at) return;
  at += strlen(pattern);
  size_t n = 0;
  while (at[n] && at[n] != '"' && n + 1 < size) n++;
  memcpy(out, at, n);
  out[n] = 0;
}

static void logcall(const char *method, const char *name, const char *id) {
  char path[4096];
  snprintf(path, sizeof path, "%s/calls.log", data);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  dprintf(fd, "%s %s %s\n", method, name, id);
  close(fd);
}

static int unlink_entry(const char *path, const struct stat *s, int flag, struct FTW *ftw) {
  (void)s, (void)flag, (void)ftw;
  return remove(path);
}

static void answer(int fd, const char *json) {
  dprintf(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.plugins.v1+json\r\n"
              "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", strlen(json), json);
}

static void serve(int fd) {
  static char req[65536];
  size_t len = 0;
  char *body = NULL;
  long want = -1;
  for (;;) {
    ssize_t n = read(fd, req + len, sizeof req - 1 - len);
    if (n <= 0) break;
    len += n;
    req[len] = 0;
    if (!body && (body = strstr(req, "\r\n\r\n"))) {
      body += 4;
      char *cl = strcasestr(req, "Content-Length:");
      want = cl ? atol(cl + 15) : 0;
    }
    if (body && (long)(req + len - body) >= want) break;
  }
  if (!body) return;
  char method[128] = "", name[256], id[256], dir[4096], out[65536];
  sscanf(req, "POST /%127s", method);
  field(body, "Name", name, sizeof name);
  field(body, "ID", id, sizeof id);
  logcall(method, name, id);
  snprintf(dir, sizeof dir, "%s/volumes/%s", data, name);
  struct stat st;
  int exists = name[0] && stat(dir, &st) == 0;
  if (!strcmp(method, "Plugin.Activate")) {
    answer(fd, "{\"Implements\":[\"VolumeDriver\"]}");
  } else if (!strcmp(method, "VolumeDriver.Create")) {
    if (!strncmp(name, "fail-", 5)) {
      snprintf(out, sizeof out, "{\"Err\":\"the test driver refuses %s\"}", name);
    } else {
      snprintf(out, sizeof out, "%s/volumes", data);
      mkdir(out, 0755);
      mkdir(dir, 0755);
      strcpy(out, "{\"Err\":\"\"}");
    }
    answer(fd, out);
  } else if (!strcmp(method, "VolumeDriver.Remove")) {
    nftw(dir, unlink_entry, 16, FTW_DEPTH | FTW_PHYS);
    answer(fd, "{\"Err\":\"\"}");
  } else if (!strcmp(method, "VolumeDriver.Mount") || !strcmp(method, "VolumeDriver.Path")) {
    if (!strncmp(name, "hang-", 5) && !strcmp(method, "VolumeDriver.Mount")) pause();
    if (exists) snprintf(out, sizeof out, "{\"Mountpoint\":\"%s\",\"Err\":\"\"}", dir);
    else snprintf(out, sizeof out, "{\"Err\":\"no such volume %s\"}", name);
    answer(fd, out);
  } else if (!strcmp(method, "VolumeDriver.Unmount")) {
    answer(fd, "{\"Err\":\"\"}");
  } else if (!strcmp(method, "VolumeDriver.Get")) {
    if (exists) snprintf(out, sizeof out, "{\"Volume\":{\"Name\":\"%s\",\"Mountpoint\":\"%s\",\"Status\":{\"served-by\":\"svc-test-driver\"}},\"Err\":\"\"}", name, dir);
    else snprintf(out, sizeof out, "{\"Err\":\"no such volume %s\"}", name);
    answer(fd, out);
  } else if (!strcmp(method, "VolumeDriver.List")) {
    size_t at = snprintf(out, sizeof out, "{\"Volumes\":[");
    snprintf(dir, sizeof dir, "%s/volumes", data);
    DIR *d = opendir(dir);
    struct dirent *e;
    int first = 1;
    while (d && (e = readdir(d)) && at < sizeof out - 600) {
      if (e->d_name[0] == '.') continue;
      at += snprintf(out + at, sizeof out - at, "%s{\"Name\":\"%s\",\"Mountpoint\":\"%s/%s\"}", first ? "" : ",", e->d_name, dir, e->d_name);
      first = 0;
    }
    if (d) closedir(d);
    snprintf(out + at, sizeof out - at, "],\"Err\":\"\"}");
    answer(fd, out);
  } else if (!strcmp(method, "VolumeDriver.Capabilities")) {
    answer(fd, "{\"Capabilities\":{\"Scope\":\"local\"}}");
  } else {
    dprintf(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s SOCKET DATA\n", argv[0]);
    return 2;
  }
  data = argv[2];
  signal(SIGCHLD, SIG_IGN);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
  unlink(argv[1]);
  if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(s, 16) < 0) {
    perror("listen");
    return 1;
  }
  fprintf(stderr, "volume driver listening on %s, data in %s\n", argv[1], data);
  for (;;) {
    int fd = accept(s, NULL, NULL);
    if (fd < 0) continue;
    if (fork() == 0) {
      close(s);
      serve(fd);
      close(fd);
      _exit(0);
    }
    close(fd);
  }
}
