/* Asks a team store whether it answers (formats/store_health.h: the store line's probe), within
 * SHIMCTL_STORE_PROBE_MS: redis (PING), http (HEAD /), tcp (a connect), and redis-cluster: a seed
 * that answers (the first of the comma list that connects) says its cluster is whole
 * (cluster_state:ok) and every master that serves slots and is not marked failed takes a
 * connection (all at once). A master that died is out at once: the cluster marks it failed only
 * after its node timeout (15 s by default), and meanwhile sccache waits on the keys it served. */
#define _GNU_SOURCE
#include "shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MASTERS_MAX 32

/* ADDRESS (HOST:PORT, [V6]:PORT; LEN bytes) as a socket address; false when it names none. */
static bool resolve(const char* address,
                    size_t len,
                    struct sockaddr_storage* out,
                    socklen_t* out_len) {
  char host[128];
  const char* colon = memrchr(address, ':', len);
  if (!colon || (size_t)(colon - address) >= sizeof host)
    return false;
  size_t host_len = (size_t)(colon - address);
  const char* host_start = address;
  if (host_len >= 2 && address[0] == '[' && address[host_len - 1] == ']') {
    host_start++;
    host_len -= 2;
  }
  memcpy(host, host_start, host_len);
  host[host_len] = '\0';
  char* end;
  unsigned long port = strtoul(colon + 1, &end, 10);
  if (port == 0 || port > 65535 || end != address + len)
    return false;
  struct sockaddr_in* v4 = (struct sockaddr_in*)out;
  struct sockaddr_in6* v6 = (struct sockaddr_in6*)out;
  memset(out, 0, sizeof *out);
  if (strcmp(host, "localhost") == 0 || inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    if (strcmp(host, "localhost") == 0)
      v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    v4->sin_family = AF_INET;
    v4->sin_port = htons((unsigned short)port);
    *out_len = sizeof *v4;
    return true;
  }
  if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((unsigned short)port);
    *out_len = sizeof *v6;
    return true;
  }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *found = NULL;
  if (getaddrinfo(host, NULL, &hints, &found) != 0 || !found)
    return false;
  memcpy(out, found->ai_addr, found->ai_addrlen);
  *out_len = found->ai_addrlen;
  freeaddrinfo(found);
  v4->sin_port = htons((unsigned short)port); /* sin_port and sin6_port share their place */
  return true;
}

static long long now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Waits for EVENTS on FD until DEADLINE (now_ms); false on timeout or error. */
static bool wait_for(int fd, short events, long long deadline) {
  struct pollfd p = { .fd = fd, .events = events };
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0)
      return false;
    int n = poll(&p, 1, (int)left);
    if (n > 0)
      return true;
    if (n == 0 || errno != EINTR)
      return false;
  }
}

static char why[160];

/* PROBLEM in words into why, with ADDRESS (LEN bytes) when given; returns why. */
static const char* failed(const char* problem, const char* address, size_t len) {
  char named[128] = "";
  if (address && len < sizeof named - 1) {
    memcpy(named, address, len);
    named[len] = '\0';
  }
  concat(why, sizeof why, named[0] ? named : "", named[0] ? ": " : "", problem, NULL);
  return why;
}

/* Starts a non-blocking connect to ADDRESS (LEN bytes) into *FD (-1: none); NULL, or the
 * problem in words (static). */
static const char* start_connect(const char* address, size_t len, int* fd) {
  static char text[96];
  struct sockaddr_storage addr;
  socklen_t addr_len;
  *fd = -1;
  if (!resolve(address, len, &addr, &addr_len))
    return "its address does not resolve";
  *fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (*fd < 0)
    return "no socket";
  if (connect(*fd, (struct sockaddr*)&addr, addr_len) == 0 || errno == EINPROGRESS)
    return NULL;
  concat(text, sizeof text, "connect: ", strerror(errno), NULL);
  return text;
}

/* Ends the connect of FD by DEADLINE; NULL, or the problem in words (static). */
static const char* end_connect(int fd, long long deadline) {
  static char text[96];
  int err = 0;
  socklen_t err_len = sizeof err;
  if (!wait_for(fd, POLLOUT, deadline))
    return "no connection within " SHIMCTL_STORE_PROBE_MS_TEXT " ms";
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0)
    err = errno;
  if (!err)
    return NULL;
  concat(text, sizeof text, "connect: ", strerror(err), NULL);
  return text;
}

/* Connects to ADDRESS (LEN bytes) by DEADLINE into *FD; NULL, or the problem. */
static const char* connect_within(const char* address, size_t len, long long deadline, int* fd) {
  const char* problem = start_connect(address, len, fd);
  return problem ? problem : end_connect(*fd, deadline);
}

/* Sends REQUEST on FD and reads until DONE(reply so far) or DEADLINE into REPLY (CAP bytes,
 * NUL-terminated); NULL, or the problem. */
static const char* ask(int fd,
                       const char* request,
                       char* reply,
                       size_t cap,
                       long long deadline,
                       bool (*done)(const char*, size_t)) {
  size_t len = strlen(request), got = 0;
  if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len)
    return "the request could not be sent";
  reply[0] = '\0';
  while (got == 0 || !done(reply, got)) {
    ssize_t n;
    if (got + 1 >= cap)
      return "its answer is too long";
    if (!wait_for(fd, POLLIN, deadline) || (n = recv(fd, reply + got, cap - 1 - got, 0)) < 0)
      return "no answer within " SHIMCTL_STORE_PROBE_MS_TEXT " ms";
    if (n == 0)
      return "it closed the connection without an answer";
    got += (size_t)n;
    reply[got] = '\0';
  }
  return NULL;
}

static bool any_bytes(const char* reply, size_t len) {
  (void)reply;
  return len > 0;
}

/* The RESP bulk string at *AT of REPLY (LEN bytes): "$N\r\n", N bytes, "\r\n". 1: *DATA and *N set,
 * *AT past it; 0: not all there yet; -1: another reply (an error: "-NOAUTH ...", ...). */
static int bulk_at(const char* reply, size_t len, size_t* at, const char** data, size_t* n) {
  if (*at >= len)
    return 0;
  if (reply[*at] != '$')
    return -1;
  const char* crlf = memmem(reply + *at, len - *at, "\r\n", 2);
  if (!crlf)
    return 0;
  *n = strtoul(reply + *at + 1, NULL, 10);
  size_t start = (size_t)(crlf + 2 - reply);
  if (start + *n + 2 > len)
    return 0;
  *data = reply + start;
  *at = start + *n + 2;
  return 1;
}

/* Both replies (CLUSTER INFO, CLUSTER NODES) are there, or one is no bulk string. */
static bool two_replies(const char* reply, size_t len) {
  size_t at = 0, n;
  const char* data;
  int first = bulk_at(reply, len, &at, &data, &n);
  return first < 0 || (first > 0 && bulk_at(reply, len, &at, &data, &n) != 0);
}

/* FLAGS (a CLUSTER NODES field: "myself,master", "master,fail", "slave", ...) has FLAG. */
static bool has_flag(const char* flags, size_t len, const char* flag) {
  size_t flag_len = strlen(flag);
  for (const char* f = flags; f < flags + len;) {
    const char* comma = memchr(f, ',', (size_t)(flags + len - f));
    size_t n = comma ? (size_t)(comma - f) : (size_t)(flags + len - f);
    if (n == flag_len && memcmp(f, flag, n) == 0)
      return true;
    f += n + 1;
  }
  return false;
}

/* Connects to every master of NODES (CLUSTER NODES' text, LEN bytes) that serves slots, is not
 * marked failed and is not the node asked, all at once, by DEADLINE; NULL, or the problem. */
static const char* reach_masters(const char* nodes, size_t len, long long deadline) {
  int fds[MASTERS_MAX];
  const char* names[MASTERS_MAX];
  size_t name_lens[MASTERS_MAX];
  int count = 0;
  const char* problem = NULL;
  for (const char* line = nodes; line < nodes + len && !problem && count < MASTERS_MAX;) {
    const char* end = memchr(line, '\n', (size_t)(nodes + len - line));
    if (!end)
      end = nodes + len;
    const char* field[9];
    size_t field_len[9];
    int n = 0;
    for (const char* f = line; f < end && n < 9; n++) {
      const char* space = memchr(f, ' ', (size_t)(end - f));
      field[n] = f;
      field_len[n] = space ? (size_t)(space - f) : (size_t)(end - f);
      f += field_len[n] + 1;
    }
    if (n == 9 && has_flag(field[2], field_len[2], "master") &&
        !has_flag(field[2], field_len[2], "fail") && !has_flag(field[2], field_len[2], "myself") &&
        !has_flag(field[2], field_len[2], "noaddr")) {
      const char* at = memchr(field[1], '@', field_len[1]);
      names[count] = field[1];
      name_lens[count] = at ? (size_t)(at - field[1]) : field_len[1];
      const char* started = start_connect(names[count], name_lens[count], &fds[count]);
      count++;
      if (started)
        problem = failed(started, names[count - 1], name_lens[count - 1]);
    }
    line = end + 1;
  }
  for (int i = 0; i < count && !problem; i++) {
    const char* ended = end_connect(fds[i], deadline);
    if (ended)
      problem = failed(ended, names[i], name_lens[i]);
  }
  for (int i = 0; i < count; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  return problem;
}

/* The redis-cluster probe: the seeds of ADDRESSES (comma list) in turn until one connects. */
static const char* probe_cluster(const char* addresses, long long deadline) {
  static char reply[32768];
  const char* problem = "no seed";
  for (const char* seed = addresses; *seed;) {
    size_t len = strcspn(seed, ",");
    int fd;
    problem = connect_within(seed, len, deadline, &fd);
    if (!problem) {
      problem =
        ask(fd, "CLUSTER INFO\r\nCLUSTER NODES\r\n", reply, sizeof reply, deadline, two_replies);
      size_t at = 0, info_len = 0, nodes_len = 0, len = strlen(reply);
      const char *info = NULL, *nodes = NULL;
      if (!problem && bulk_at(reply, len, &at, &info, &info_len) > 0 &&
          bulk_at(reply, len, &at, &nodes, &nodes_len) > 0) {
        if (!memmem(info, info_len, "cluster_state:ok", 16))
          problem = "its cluster is down (cluster_state is not ok)";
        else
          problem = reach_masters(nodes, nodes_len, deadline);
      } else if (!problem && reply[0] != '-') {
        problem = "no Redis reply to CLUSTER INFO";
      } /* an error reply ("-NOAUTH", "-ERR ... cluster support disabled"): it answers, as PING */
      close(fd);
      return problem;
    }
    seed += len + (seed[len] == ',');
  }
  return problem;
}

/* The probe of one store at ADDRESS: a connect, then PING (redis), HEAD / (http), nothing (tcp). */
static const char* probe_one(const char* probe, const char* address, long long deadline) {
  int fd;
  const char* problem = connect_within(address, strlen(address), deadline, &fd);
  bool redis = strcmp(probe, SHIMCTL_STORE_PROBE_REDIS) == 0;
  bool http = strcmp(probe, SHIMCTL_STORE_PROBE_HTTP) == 0;
  if (!problem && (redis || http)) {
    char request[256], reply[16];
    if (redis)
      concat(request, sizeof request, "PING\r\n", NULL);
    else if (concat(
               request, sizeof request, "HEAD / HTTP/1.0\r\nHost: ", address, "\r\n\r\n", NULL) >=
             sizeof request)
      problem = "the request could not be sent";
    if (!problem)
      problem = ask(fd, request, reply, sizeof reply, deadline, any_bytes);
    if (!problem && (redis ? reply[0] != '+' && reply[0] != '-' : strncmp(reply, "HTTP/", 5) != 0))
      problem = redis ? "no Redis reply to PING" : "no HTTP reply to HEAD";
  }
  if (fd >= 0)
    close(fd);
  return problem;
}

const char* probe_store(void) {
  const struct shimctl_store* store = &shim.config.store;
  long long deadline = now_ms() + SHIMCTL_STORE_PROBE_MS;
  if (strcmp(store->probe, SHIMCTL_STORE_PROBE_REDIS_CLUSTER) == 0)
    return probe_cluster(store->address, deadline);
  return probe_one(store->probe, store->address, deadline);
}
