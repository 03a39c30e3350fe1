/* Who listens on a TCP port (formats/sccache_server.h: shimctl_tcp_listener): a TCP server of
 * sccache 0.4 must be the user's own before the shim lets sccache connect. The shim and shimctl
 * use it. */
#define _GNU_SOURCE
#include "formats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel's sock_diag ABI (linux/netlink.h, linux/inet_diag.h), spelled here: musl's headers
 * have no linux/ directory, and the layout is fixed kernel ABI. */
#define DIAG_NETLINK_SOCK_DIAG 4
#define DIAG_SOCK_DIAG_BY_FAMILY 20
#define DIAG_NLM_F_REQUEST 0x1
#define DIAG_NLM_F_DUMP 0x300
#define DIAG_NLMSG_ERROR 2
#define DIAG_NLMSG_DONE 3
#define DIAG_TCP_LISTEN 10
struct diag_nlmsghdr {
  uint32_t len;
  uint16_t type, flags;
  uint32_t seq, pid;
};
struct diag_sockid {
  uint16_t sport, dport; /* network byte order */
  uint32_t src[4], dst[4], interface, cookie[2];
};
struct diag_request {
  uint8_t family, protocol, ext, pad;
  uint32_t states;
  struct diag_sockid id;
};
struct diag_message {
  uint8_t family, state, timer, retrans;
  struct diag_sockid id;
  uint32_t expires, rqueue, wqueue, uid, inode;
};

/* Who listens on TCP port PORT, from the kernel's socket table FILE (/proc/net/tcp or tcp6):
 * "sl local_address rem_address st ... uid ...", local_address "HEX_ADDR:HEX_PORT", st 0A. */
static enum shimctl_listener listener_in(const char* file, unsigned port) {
  static char table[1024 * 1024];
  enum shimctl_listener found = SHIMCTL_LISTENER_NONE;
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return SHIMCTL_LISTENER_NONE;
  size_t len = 0;
  ssize_t n;
  while (len < sizeof table - 1 &&
         ((n = read(fd, table + len, sizeof table - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
    len += n > 0 ? (size_t)n : 0;
  close(fd);
  table[len] = '\0';
  for (char* line = strchr(table, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    char* p = line + 1;
    char* colon = strchr(p, ':'); /* after "sl" */
    char* addr_end = colon ? strchr(colon + 2, ' ') : NULL;
    if (!addr_end)
      break;
    char* port_colon = addr_end; /* the last ':' of the local address (IPv6 has no others) */
    while (port_colon > colon + 2 && *port_colon != ':')
      port_colon--;
    if (*port_colon != ':' || strtoul(port_colon + 1, NULL, 16) != port)
      continue;
    /* fields after local_address: rem_address st tx:rx tr:when retrnsmt uid */
    char* fields[6];
    char* q = addr_end;
    int count = 0;
    while (count < 6 && (q = strchr(q, ' '))) {
      while (*q == ' ')
        q++;
      fields[count++] = q;
    }
    if (count < 6 || strncmp(fields[1], "0A ", 3) != 0) /* not listening */
      continue;
    if (strtoul(fields[5], NULL, 10) != geteuid())
      return SHIMCTL_LISTENER_OTHER;
    found = SHIMCTL_LISTENER_MINE;
  }
  return found;
}

/* Who listens on PORT, asked of the kernel over NETLINK_SOCK_DIAG (listening sockets only: the
 * kernel filters by state, so TIME_WAIT entries, of which a loop of sccache 0.4 hits leaves
 * hundreds, cost nothing). False when the kernel cannot answer (then /proc/net is read). */
static bool listener_by_netlink(unsigned port, enum shimctl_listener* found) {
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, DIAG_NETLINK_SOCK_DIAG);
  if (fd < 0)
    return false;
  *found = SHIMCTL_LISTENER_NONE;
  bool ok = true;
  for (int family = 0; ok && family < 2; family++) {
    struct {
      struct diag_nlmsghdr header;
      struct diag_request request;
    } query;
    memset(&query, 0, sizeof query);
    query.header.len = sizeof query;
    query.header.type = DIAG_SOCK_DIAG_BY_FAMILY;
    query.header.flags = DIAG_NLM_F_REQUEST | DIAG_NLM_F_DUMP;
    query.request.family = family == 0 ? AF_INET : AF_INET6;
    query.request.protocol = IPPROTO_TCP;
    query.request.states = 1u << DIAG_TCP_LISTEN;
    if (send(fd, &query, sizeof query, 0) != (ssize_t)sizeof query) {
      ok = false;
      break;
    }
    for (bool done = false; ok && !done;) {
      static uint32_t buf[8192]; /* aligned for the headers */
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        ok = false;
        break;
      }
      for (size_t at = 0; at + sizeof(struct diag_nlmsghdr) <= (size_t)n;) {
        const struct diag_nlmsghdr* h = (const struct diag_nlmsghdr*)((const char*)buf + at);
        if (h->len < sizeof *h || at + h->len > (size_t)n || h->type == DIAG_NLMSG_ERROR) {
          ok = false;
          break;
        }
        if (h->type == DIAG_NLMSG_DONE) {
          done = true;
          break;
        }
        const struct diag_message* m = (const struct diag_message*)(h + 1);
        if (h->len >= sizeof *h + sizeof *m && ntohs(m->id.sport) == port) {
          if (m->uid != geteuid())
            *found = SHIMCTL_LISTENER_OTHER;
          else if (*found == SHIMCTL_LISTENER_NONE)
            *found = SHIMCTL_LISTENER_MINE;
        }
        at += (h->len + 3u) & ~3u;
      }
    }
  }
  close(fd);
  return ok;
}

enum shimctl_listener shimctl_tcp_listener(unsigned port) {
  enum shimctl_listener found;
  if (listener_by_netlink(port, &found))
    return found;
  enum shimctl_listener v4 = listener_in("/proc/net/tcp", port);
  enum shimctl_listener v6 = listener_in("/proc/net/tcp6", port);
  return v4 == SHIMCTL_LISTENER_OTHER || v6 == SHIMCTL_LISTENER_OTHER ? SHIMCTL_LISTENER_OTHER
         : v4 == SHIMCTL_LISTENER_MINE || v6 == SHIMCTL_LISTENER_MINE ? SHIMCTL_LISTENER_MINE
                                                                      : SHIMCTL_LISTENER_NONE;
}
