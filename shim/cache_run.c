/* The cache tool run as a child, for a tool that can fail a compile for reasons of its own.
 *
 * sccache fails the compile when its server cannot do the work: a server that died or cannot
 * write its cache dir, outputs it cannot store ("failed to zip up compiler outputs" for a
 * device-only compile whose depfile clang does not write), a storage error. A compile must never
 * fail because of the cache layer, so for sccache the shim does not exec but waits: sccache's
 * stderr goes to a memory file, and when sccache exits non-zero having said "sccache: ..." itself
 * (or dies of a signal the shim did not send), that stderr is dropped and the original compiler
 * runs once, uncached. Otherwise (a hit, a miss, the compiler's own error: sccache passes on the
 * compiler's exit code, stdout and stderr) the held stderr is written out unchanged and the
 * exit status passed on. stdout is the caller's throughout. */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t child;
static volatile sig_atomic_t received; /* a termination signal passed on to the child */

static void pass_on(int sig) {
  received = sig;
  if (child > 0)
    kill(child, sig);
}

/* The first CAP bytes (or fewer) of the memory file FD into TEXT; returns how many. */
static size_t read_start(int fd, char* text, size_t cap) {
  size_t len = 0;
  ssize_t n;
  while (len < cap &&
         ((n = pread(fd, text + len, cap - len, (off_t)len)) > 0 || (n < 0 && errno == EINTR)))
    len += n > 0 ? (size_t)n : 0;
  return len;
}

bool write_all(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    len -= (size_t)n;
  }
  return true;
}

void copy_out(int fd, int to) {
  static char buf[65536];
  ssize_t n;
  off_t at = 0;
  while ((n = pread(fd, buf, sizeof buf, at)) > 0 || (n < 0 && errno == EINTR)) {
    if (n < 0)
      continue;
    at += n;
    if (!write_all(to, buf, (size_t)n))
      break;
  }
}

/* The first line of TEXT (LEN bytes) that starts with "sccache: ", into REASON; false if none. */
static bool own_message(const char* text, size_t len, char reason[256]) {
  static const char mark[] = "sccache: ";
  for (size_t i = 0; i + sizeof mark - 1 <= len; i++) {
    if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, mark, sizeof mark - 1) == 0) {
      size_t end = i;
      while (end < len && text[end] != '\n' && end - i < 255)
        end++;
      memcpy(reason, text + i, end - i);
      reason[end - i] = '\0';
      return true;
    }
  }
  return false;
}

int spawn_and_wait(const char* path,
                   char** argv,
                   char** env,
                   const posix_spawn_file_actions_t* actions,
                   int* status) {
  return spawn_and_watch(path, argv, env, actions, status, NULL);
}

/* Waits for PID into *STATUS; with GAVE_UP, asks store_watch every SHIMCTL_STORE_WATCH_MS
 * (SIGCHLD is blocked: sigtimedwait wakes when the child ends) and ends the child when it says
 * to give up. */
static void wait_watching(pid_t pid, int* status, enum store_watch* gave_up, const sigset_t* chld) {
  const struct timespec period = { SHIMCTL_STORE_WATCH_MS / 1000,
                                   (SHIMCTL_STORE_WATCH_MS % 1000) * 1000000L };
  struct timespec started_wall;
  clock_gettime(CLOCK_REALTIME, &started_wall);
  for (;;) {
    pid_t done = waitpid(pid, status, gave_up ? WNOHANG : 0);
    if (done == pid || (done < 0 && errno != EINTR))
      return;
    if (!gave_up || done < 0)
      continue;
    if (sigtimedwait(chld, NULL, &period) < 0 && errno == EAGAIN && *gave_up == STORE_WAIT &&
        (*gave_up = store_watch(pid, &started_wall)) != STORE_WAIT)
      kill(pid, SIGTERM);
  }
}

int spawn_and_watch(const char* path,
                    char** argv,
                    char** env,
                    const posix_spawn_file_actions_t* actions,
                    int* status,
                    enum store_watch* gave_up) {
  struct sigaction forward = { .sa_handler = pass_on }, old[4];
  const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  for (int i = 0; i < 4; i++)
    sigaction(signals[i], &forward, &old[i]);
  sigset_t chld, old_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (gave_up) { /* the child gets the mask the shim had */
    *gave_up = STORE_WAIT;
    sigprocmask(SIG_BLOCK, &chld, &old_mask);
    posix_spawnattr_setsigmask(&attr, &old_mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  }
  pid_t pid;
  int spawned = posix_spawn(&pid, path, actions, &attr, argv, env);
  posix_spawnattr_destroy(&attr);
  *status = 0;
  if (spawned == 0) {
    child = pid;
    if (received)
      kill(pid, received);
    wait_watching(pid, status, gave_up, &chld);
  }
  if (gave_up)
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
  for (int i = 0; i < 4; i++)
    sigaction(signals[i], &old[i], NULL);
  return spawned;
}

int passed_on_status(int status) {
  int sig = received ? received : WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (sig) {
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  return WEXITSTATUS(status);
}

const char store_abandoned_reason[] = "the team store stopped answering while it waited";

int run_cache_tool(const char* path, char** argv, char** env, char reason[256]) {
  static char scan[65536];
  int err = memfd_create("shimctl-cache-stderr", MFD_CLOEXEC);
  if (err < 0) { /* no memory file: the tool runs as before, by exec */
    execve(path, argv, env);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  int status;
  enum store_watch gave_up = STORE_WAIT;
  int spawned =
    spawn_and_watch(path, argv, env, &actions, &status, store_watched() ? &gave_up : NULL);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == 0 && gave_up == STORE_FINISHED) {
    close(err);
    log_event("store-out", "a compile's output was written: not waiting on the store's write");
    return STORE_FINISHED_STATUS;
  }
  if (spawned != 0 || gave_up == STORE_ABANDON) {
    close(err);
    if (gave_up == STORE_ABANDON)
      concat(reason, 256, store_abandoned_reason, NULL);
    else
      concat(reason, 256, "cannot run: ", strerror(spawned), NULL);
    return -1;
  }
  /* Only a failed run's stderr is read for sccache's own message (a hit reads nothing twice). */
  bool failed = !received && (WIFSIGNALED(status) ||
                              (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
                               own_message(scan, read_start(err, scan, sizeof scan), reason)));
  if (failed && WIFSIGNALED(status))
    concat(reason,
           256,
           "died of signal ",
           shimctl_decimal((unsigned)WTERMSIG(status), (char[24]){ 0 }),
           NULL);
  if (failed && !env_is("SHIMCTL_STRICT", "1")) {
    close(err);
    return -1;
  }
  copy_out(err, 2);
  close(err);
  if (received) {
    signal(received, SIG_DFL);
    raise(received);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
