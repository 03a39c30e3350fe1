/* The team store's health for this user (formats.h: the store line and the memo), on the hot
 * path: one open/read of a small memo in the user's private runtime directory, and a probe of
 * the store (non-blocking connect, one request, SHIMCTL_STORE_PROBE_MS at most) only when the
 * memo's verdict is due again, by one compile at a time (a lock beside the memo; the others wait
 * for its answer). A store that is out costs the compile nothing: the tool runs without it. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* FRESH_MS for store_in_use: only a verdict written since the call began holds (a probe of a
 * compile that this one waited for), not an older "healthy". */
#define FRESH_SINCE_CALL (-1)

static long long realtime_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* The store's verdict for a compile: the memo's while it holds (verdict_holds), else a probe's,
 * by one compile at a time: the others wait for its answer (at most SHIMCTL_STORE_PROBE_MS).
 * True: the store is in use. */
static bool store_in_use(long long fresh_ms) {
  struct shimctl_store_health h;
  unsigned long long now = (unsigned long long)time(NULL);
  long long began = fresh_ms == FRESH_SINCE_CALL ? realtime_ms() : 0;
  bool known = read_memo(&h);
  if (known && verdict_holds(&h, now, fresh_ms == FRESH_SINCE_CALL ? 0 : fresh_ms))
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
  if (fresh_ms == FRESH_SINCE_CALL)
    fresh_ms = realtime_ms() - began;
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
  bool back = known && h.out && !problem;
  h.out = problem != NULL;
  h.checked = now;
  write_memo(&h);
  if (back && shim_cache_tool()->store_back)
    shim_cache_tool()->store_back(); /* under the lock: one compile does it */
  close(lock);
  if (shim.trace)
    say("store ", shim.config.store.address, problem ? " out: " : " answers", problem, NULL);
  return !problem;
}

bool store_configured(void) {
  return name_memo();
}

bool decide_store_use(void) {
  store_left_out = name_memo() && !store_in_use(SHIMCTL_STORE_RECHECK * 1000LL);
  if (shim.trace && store_left_out)
    say("store ", shim.config.store.address, " is out: compiling without it", NULL);
  return store_left_out;
}

bool store_answers_before_start(void) {
  if (store_left_out || !name_memo())
    return !store_left_out;
  /* A server's start is rare (once per namespace and configuration) and waits up to 10 s on a
   * store that stopped answering since the memo was written, however recently: asked again. */
  store_left_out = !store_in_use(FRESH_SINCE_CALL);
  if (shim.trace && store_left_out)
    say("store ", shim.config.store.address, " is out: its server starts without it", NULL);
  return !store_left_out;
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
