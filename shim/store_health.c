/* The team store's health for this user (formats.h: the store line and the memo), on the hot
 * path: one open/read of a small memo in the user's private runtime directory, and a probe of
 * the store (non-blocking connect, one request, SHIMCTL_STORE_PROBE_MS at most) only when the
 * memo's verdict is due again, by one compile at a time (a lock beside the memo; the others wait
 * for its answer). A store that is out costs the compile nothing: the tool runs without it. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool store_left_out;
bool store_behind_server;

static char memo_path[PATH_MAX];

/* The memo's path for the config's store line into memo_path; false without a store line or a
 * private directory (then the store is used as without health). */
static bool name_memo(void) {
  const struct shimctl_store* store = &shim.config.store;
  if (memo_path[0])
    return true;
  if (!store->probe || !shimctl_private_runtime_dir(memo_path, sizeof memo_path)) {
    memo_path[0] = '\0';
    return false;
  }
  size_t len = shimctl_put(memo_path, sizeof memo_path, strlen(memo_path), "/");
  if (shimctl_store_memo_name(memo_path, sizeof memo_path, len, store->probe, store->address) >=
      sizeof memo_path) {
    memo_path[0] = '\0';
    return false;
  }
  return true;
}

static bool read_memo(struct shimctl_store_health* h) {
  char text[SHIMCTL_STORE_MEMO_MAX + 1];
  size_t len;
  return read_small_file(memo_path, text, SHIMCTL_STORE_MEMO_MAX, &len, true) &&
         len <= SHIMCTL_STORE_MEMO_MAX && shimctl_parse_store_health(text, h) &&
         strcmp(h->address, shim.config.store.address) == 0;
}

static void write_memo(const struct shimctl_store_health* h) {
  char text[SHIMCTL_STORE_MEMO_MAX + 1], temp[PATH_MAX], num[24];
  size_t len = shimctl_render_store_health(text, sizeof text, h);
  if (len >= sizeof text ||
      concat(temp, sizeof temp, memo_path, ".", shimctl_decimal((unsigned)getpid(), num), NULL) >=
        sizeof temp)
    return;
  int fd = open_file(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return;
  bool written = write_all(fd, text, len);
  close(fd);
  if (!written || rename(temp, memo_path) != 0)
    unlink(temp);
}

/* The store's address (HOST:PORT, [V6]:PORT) as a socket address; false when it names none. */
static bool resolve(const char* address, struct sockaddr_storage* out, socklen_t* out_len) {
  char host[128];
  const char* colon = strrchr(address, ':');
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
  unsigned long port = strtoul(colon + 1, NULL, 10);
  if (port == 0 || port > 65535)
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

/* Asks the store whether it answers (formats.h: the store line's probe): NULL when it does, else
 * what went wrong, in words. */
static const char* probe_store(void) {
  static char why[160];
  const struct shimctl_store* store = &shim.config.store;
  struct sockaddr_storage addr;
  socklen_t addr_len;
  if (!resolve(store->address, &addr, &addr_len))
    return "its address does not resolve";
  long long deadline = now_ms() + SHIMCTL_STORE_PROBE_MS;
  int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return "no socket";
  const char* problem = NULL;
  int err = 0;
  socklen_t err_len = sizeof err;
  if (connect(fd, (struct sockaddr*)&addr, addr_len) != 0 && errno != EINPROGRESS)
    err = errno;
  else if (!wait_for(fd, POLLOUT, deadline))
    problem = "no connection within " SHIMCTL_STORE_PROBE_MS_TEXT " ms";
  else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0)
    err = errno;
  if (err) {
    concat(why, sizeof why, "connect: ", strerror(err), NULL);
    problem = why;
  }
  bool redis = strcmp(store->probe, SHIMCTL_STORE_PROBE_REDIS) == 0;
  bool http = strcmp(store->probe, SHIMCTL_STORE_PROBE_HTTP) == 0;
  if (!problem && (redis || http)) {
    char request[256], reply[16];
    size_t len =
      redis
        ? concat(request, sizeof request, "PING\r\n", NULL)
        : concat(
            request, sizeof request, "HEAD / HTTP/1.0\r\nHost: ", store->address, "\r\n\r\n", NULL);
    ssize_t got = 0;
    if (len >= sizeof request || send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len)
      problem = "the request could not be sent";
    else if (!wait_for(fd, POLLIN, deadline) || (got = recv(fd, reply, sizeof reply, 0)) < 0)
      problem = "no answer within " SHIMCTL_STORE_PROBE_MS_TEXT " ms";
    else if (got == 0)
      problem = "it closed the connection without an answer";
    else if (redis ? reply[0] != '+' && reply[0] != '-' : got < 5 || memcmp(reply, "HTTP/", 5) != 0)
      problem = redis ? "no Redis reply to PING" : "no HTTP reply to HEAD";
  }
  close(fd);
  return problem;
}

/* How long ago the memo was written, in ms (its mtime); a large number when it cannot say. */
static long long memo_age_ms(void) {
  struct stat st;
  struct timespec now;
  if (stat(memo_path, &st) != 0 || clock_gettime(CLOCK_REALTIME, &now) != 0)
    return 1LL << 40;
  return (long long)(now.tv_sec - st.st_mtim.tv_sec) * 1000 +
         (now.tv_nsec - st.st_mtim.tv_nsec) / 1000000;
}

/* The memo's verdict H still holds: out until its cool-down ends; in use while younger than
 * FRESH_MS. */
static bool verdict_holds(const struct shimctl_store_health* h,
                          unsigned long long now,
                          long long fresh_ms) {
  return h->out ? now < h->until : memo_age_ms() < fresh_ms;
}

/* The store's verdict for a compile: the memo's while it holds (verdict_holds), else a probe's,
 * by one compile at a time: the others wait for its answer (at most SHIMCTL_STORE_PROBE_MS).
 * True: the store is in use. */
static bool store_in_use(long long fresh_ms) {
  struct shimctl_store_health h;
  unsigned long long now = (unsigned long long)time(NULL);
  bool known = read_memo(&h);
  if (known && verdict_holds(&h, now, fresh_ms))
    return !h.out;
  char lock_path[PATH_MAX];
  if (concat(lock_path, sizeof lock_path, memo_path, ".lock", NULL) >= sizeof lock_path)
    return !known || !h.out;
  int lock = open_file(lock_path, O_RDONLY | O_CREAT | O_NOFOLLOW, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    if (lock >= 0)
      close(lock);
    return !known || !h.out;
  }
  if (read_memo(&h) && verdict_holds(&h, now, fresh_ms)) {
    close(lock); /* answered while we took the lock */
    return !h.out;
  }
  if (!known && !read_memo(&h)) {
    h = (struct shimctl_store_health){ 0 };
    concat(h.address, sizeof h.address, shim.config.store.address, NULL);
  }
  const char* problem = probe_store();
  now = (unsigned long long)time(NULL);
  if (problem) {
    h.cooldown = h.out && h.cooldown ? h.cooldown * 2 : SHIMCTL_STORE_COOLDOWN_FIRST;
    if (h.cooldown > SHIMCTL_STORE_COOLDOWN_MAX)
      h.cooldown = SHIMCTL_STORE_COOLDOWN_MAX;
    h.until = now + h.cooldown;
    h.failed = now;
    concat(h.failure, sizeof h.failure, problem, NULL);
    if (!h.out)
      log_event("store-out", problem);
  } else {
    h.until = h.cooldown = 0;
  }
  h.out = problem != NULL;
  h.checked = now;
  write_memo(&h);
  close(lock);
  if (shim.trace)
    say("store ", shim.config.store.address, problem ? " out: " : " answers", problem, NULL);
  return !problem;
}

bool decide_store_use(void) {
  store_left_out = name_memo() && !store_in_use(SHIMCTL_STORE_RECHECK * 1000LL);
  if (shim.trace && store_left_out)
    say("store ", shim.config.store.address, " is out: compiling without it", NULL);
  return store_left_out;
}

bool store_watched(void) {
  return (!store_left_out || store_behind_server) && name_memo();
}

const char* store_watched_output;

/* The compile's output was written since STARTED. */
static bool output_written(const struct timespec* started) {
  struct stat st;
  return store_watched_output && stat(store_watched_output, &st) == 0 &&
         (st.st_mtim.tv_sec > started->tv_sec ||
          (st.st_mtim.tv_sec == started->tv_sec && st.st_mtim.tv_nsec >= started->tv_nsec));
}

enum store_watch store_watch(pid_t client, const struct timespec* started) {
  if (!name_memo() || store_in_use(SHIMCTL_STORE_WATCH_FRESH_MS))
    return STORE_WAIT;
  if (shim_cache_tool()->ends_store_wait)
    return STORE_WAIT; /* it gives up on the store by itself: the verdict is for the others */
  if (output_written(started))
    return STORE_FINISHED;
  if (output_in_making(store_watched_output, client)) {
    if (shim.trace)
      say("the cache tool compiles ", store_watched_output, ": waiting for it", NULL);
    return STORE_WAIT;
  }
  return output_written(started) ? STORE_FINISHED : STORE_ABANDON; /* it may have just ended */
}
