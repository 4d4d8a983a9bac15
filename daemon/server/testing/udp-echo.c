/* A UDP echo server for the swarm's UDP port tests (busybox has no UDP server): answers each
 * datagram on the port given with the container's hostname, a space and the datagram. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: udp-echo PORT\n");
    return 2;
  }
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    perror("udp-echo");
    return 1;
  }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  size_t prefix = strlen(host) + 1;
  char out[256 + 65536];
  memcpy(out, host, prefix - 1);
  out[prefix - 1] = ' ';
  for (;;) {
    struct sockaddr_in peer;
    socklen_t len = sizeof peer;
    ssize_t n = recvfrom(fd, out + prefix, sizeof out - prefix, 0, (struct sockaddr *)&peer, &len);
    if (n < 0) continue;
    sendto(fd, out, prefix + n, 0, (struct sockaddr *)&peer, len);
  }
}
