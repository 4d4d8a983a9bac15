/*
 * A syscall probe for comparing seccomp confinement between engines: `probe NAME...` makes each
 * named call in a child process of its own (side effects such as a new namespace stay there)
 * and prints `NAME ok` or `NAME ERRNO`. The arguments are chosen so that a call the filter lets
 * through gets an answer of its own from the kernel where one exists (a bad pointer, flag,
 * descriptor or path: EFAULT, EINVAL, EBADF, ENOENT), telling the filter's EPERM apart from the
 * kernel's capability check; none of them changes the host (no valid reboot magic, no module,
 * no time). Built with `gcc -static`, so it runs in a busybox image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNKNOWN (-2)

/* clone(2) itself, as fork and unshare tools make it: the filter checks its flags. */
static long spawn(unsigned long flags) {
  long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, NULL, 0);
  return pid < 0 ? -1 : 0;
}

static long probe(const char *name) {
  static const char missing[] = "/nonexistent";
  if (!strcmp(name, "fork")) return spawn(0);
  if (!strcmp(name, "clone-user")) return spawn(CLONE_NEWUSER);
  if (!strcmp(name, "unshare-user")) return syscall(SYS_unshare, CLONE_NEWUSER);
  if (!strcmp(name, "unshare-mount")) return syscall(SYS_unshare, CLONE_NEWNS);
  if (!strcmp(name, "clone3")) return syscall(SYS_clone3, NULL, 0);
  if (!strcmp(name, "setns")) return syscall(SYS_setns, -1, 0);
  if (!strcmp(name, "mount")) return syscall(SYS_mount, "none", missing, "tmpfs", 0, NULL);
  if (!strcmp(name, "fsopen")) return syscall(SYS_fsopen, NULL, 0);
  if (!strcmp(name, "name_to_handle_at")) return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", NULL, NULL, 0);
  if (!strcmp(name, "chroot")) return syscall(SYS_chroot, missing);
  if (!strcmp(name, "keyctl")) return syscall(SYS_keyctl, 9999, 0, 0, 0, 0);
  if (!strcmp(name, "add_key")) return syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
  if (!strcmp(name, "request_key")) return syscall(SYS_request_key, NULL, NULL, NULL, 0);
  if (!strcmp(name, "ptrace")) return syscall(SYS_ptrace, PTRACE_PEEKDATA, 999999, 0, 0);
  if (!strcmp(name, "process_vm_readv")) return syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0);
  if (!strcmp(name, "kcmp")) return syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0);
  if (!strcmp(name, "pidfd_getfd")) return syscall(SYS_pidfd_getfd, -1, 0, 0);
  if (!strcmp(name, "reboot")) return syscall(SYS_reboot, 0, 0, 0, NULL);
  if (!strcmp(name, "swapon")) return syscall(SYS_swapon, NULL, 0);
  if (!strcmp(name, "clock_settime")) return syscall(SYS_clock_settime, CLOCK_REALTIME, NULL);
  if (!strcmp(name, "settimeofday")) return syscall(SYS_settimeofday, NULL, NULL);
  if (!strcmp(name, "init_module")) return syscall(SYS_init_module, NULL, 0, "");
  if (!strcmp(name, "finit_module")) return syscall(SYS_finit_module, -1, "", 0);
  if (!strcmp(name, "iopl")) return syscall(SYS_iopl, 99);
  if (!strcmp(name, "get_mempolicy")) return syscall(SYS_get_mempolicy, NULL, NULL, 0, 0, 0);
  if (!strcmp(name, "syslog")) return syscall(SYS_syslog, 10, NULL, 0);
  if (!strcmp(name, "bpf")) return syscall(SYS_bpf, 9999, NULL, 0);
  if (!strcmp(name, "perf_event_open")) return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
  /* UFFD_USER_MODE_ONLY passes the sysctl check; the unknown flag 4 is then EINVAL. */
  if (!strcmp(name, "userfaultfd")) return syscall(SYS_userfaultfd, 1 | 4);
  if (!strcmp(name, "io_uring_setup")) return syscall(SYS_io_uring_setup, 0, NULL);
  if (!strcmp(name, "personality-query")) return syscall(SYS_personality, 0xffffffffUL);
  if (!strcmp(name, "personality-bad")) return syscall(SYS_personality, ADDR_NO_RANDOMIZE);
  return UNKNOWN;
}

int main(int argc, char **argv) {
  int unknown = 0;
  for (int i = 1; i < argc; i++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("probe: fork");
      return 1;
    }
    if (pid == 0) {
      long result = probe(argv[i]);
      _exit(result == UNKNOWN ? 255 : result < 0 ? errno : 0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("%s signal-%d\n", argv[i], WTERMSIG(status));
    else if (WEXITSTATUS(status) == 255) unknown = fprintf(stderr, "probe: unknown call %s\n", argv[i]);
    else if (WEXITSTATUS(status) == 0) printf("%s ok\n", argv[i]);
    else printf("%s %s\n", argv[i], strerrorname_np(WEXITSTATUS(status)));
  }
  return unknown ? 2 : 0;
}
