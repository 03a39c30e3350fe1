/* Each user's own sccache server, made sure of before the shim execs sccache.
 *
 * sccache's server runs every compile itself, with the rights of whoever started it and the
 * storage settings it started with, and it trusts whoever connects. One root-installed prefix
 * serves every user of a machine, so each user gets a server of their own per configuration (the
 * sccache-server line's KEY):
 * - unix (sccache >= 0.9): SCCACHE_SERVER_UDS=<dir>/sccache-KEY.sock, where <dir> is a directory
 *   only this user can enter ($XDG_RUNTIME_DIR/shimctl-run, else <cache home>/shimctl-run, else
 *   /tmp/shimctl-run-<uid>; owned by the user, mode 0700, checked on every call). Nobody else
 *   can reach the socket, nor plant one there.
 * - tcp (sccache 0.4 knows only 127.0.0.1:<port>): the port is derived from KEY and the uid,
 *   and before sccache connects the shim asks the kernel who listens there (NETLINK_SOCK_DIAG,
 *   else /proc/net/tcp{,6}: the kernel records each socket's owner): another user's listener
 *   means an uncached compile; the shim itself never connects to it.
 * When no server of the user's answers, the shim starts one with `sccache --start-server` in the
 * cache tool's environment, one shim at a time (a lock beside the socket, in the private
 * directory: the shim creates no file in the prefix), marked with SHIMCTL_SCCACHE_SERVER_OF so
 * that rollback can find and stop it. The team store goes into its environment only when it
 * answers right then (store_fit_for_start); else the local-only twin starts in the background,
 * the compile waiting a moment for it (server_came_up), and a server the user named is not
 * started (the compile runs uncached). A start that failed quickly is tried once more. When that
 * fails too the compile runs uncached: sccache's own client would fail it after its 10 s startup
 * timeout (mozilla/sccache #317, #340). */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char server_entry[sizeof "SCCACHE_SERVER_UDS=" + PATH_MAX];
static char marker_entry[sizeof SHIMCTL_SCCACHE_SERVER_OF "=" + PATH_MAX];
static char private_dir[PATH_MAX];
static char instance[SHIMCTL_SCCACHE_KEY_HEX + 1]; /* this server's name (formats.h) */
/* What the last `sccache --start-server` said on stderr (its error line), and the why made of it.
 */
static char start_said[256];
static char start_why[sizeof start_said + 64];

/* instance: the config's key as seen from this mount namespace (shimctl_sccache_instance); for
 * a server the shim picks under `shimctl measure` (MEASURED), one of that build's own
 * (shimctl_sccache_measured_instance); while the team store is out (LOCAL_ONLY), the local-only
 * twin's. */
static void name_instance(bool measured, bool local_only) {
  char mount_ns[64], key[SHIMCTL_SCCACHE_KEY_HEX + sizeof SHIMCTL_SCCACHE_LOCAL_ONLY];
  ssize_t n = readlink("/proc/self/ns/mnt", mount_ns, sizeof mount_ns - 1);
  mount_ns[n > 0 ? n : 0] = '\0';
  /* While the team store is out, the configuration's local-only twin: a server of its own. */
  concat(key,
         sizeof key,
         shim.config.sccache_server.key,
         local_only ? SHIMCTL_SCCACHE_LOCAL_ONLY : "",
         NULL);
  shimctl_sccache_measured_instance(instance, key, mount_ns, measured ? measure_log() : NULL);
}

/* A connection to the unix socket PATH; -1 when nothing accepts there. */
static int connect_socket(const char* path) {
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  if (concat(addr.sun_path, sizeof addr.sun_path, path, NULL) >= sizeof addr.sun_path)
    return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (const struct sockaddr*)&addr, sizeof addr) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* Something accepts connections on the unix socket PATH. */
static bool socket_answers(const char* path) {
  int fd = connect_socket(path);
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* Runs ARGS with ENV and waits for it: its exit status does not matter (see below). Its stdin
 * and stdout on /dev/null, its stderr in a file with no name (never a pipe: nothing it leaves
 * running can hold a pipe of ours) whose first line naming an error (else its first line) goes to
 * SAID (a why for events.log; "" when it said nothing): sccache prints its error, then a
 * backtrace. */
static void run_quietly(char* const args[], char* const env[], char* said, size_t said_cap) {
  int err = open_file(private_dir[0] ? private_dir : "/tmp", O_TMPFILE | O_RDWR, 0600);
  said[0] = '\0';
  pid_t pid = fork();
  if (pid == 0) {
    int null = open_file("/dev/null", O_RDWR, 0);
    if (null >= 0 && dup2(null, 0) == 0 && dup2(null, 1) == 1 &&
        dup2(err >= 0 ? err : null, 2) == 2)
      execve(args[0], args, env);
    _exit(127);
  }
  while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
    continue;
  if (err < 0)
    return;
  char text[4096];
  ssize_t n = pread(err, text, sizeof text - 1, 0);
  close(err);
  text[n > 0 ? n : 0] = '\0';
  char* line = text; /* the first line, unless a later one names an error */
  for (char* at = text; *at;) {
    char* end = strchrnul(at, '\n');
    if (memmem(at, (size_t)(end - at), "error", 5)) {
      line = at;
      break;
    }
    at = *end ? end + 1 : end;
  }
  *strchrnul(line, '\n') = '\0';
  concat(said, said_cap, line, NULL);
  for (char* c = said; *c; c++)
    if ((unsigned char)*c < ' ')
      *c = ' ';
}

/* The value of NAME in ENV (NAME_EQ is "NAME="); NULL when unset. */
static const char* env_value(char* const env[], const char* name_eq) {
  size_t len = strlen(name_eq);
  for (size_t i = 0; env[i]; i++)
    if (strncmp(env[i], name_eq, len) == 0)
      return env[i] + len;
  return NULL;
}

/* SCCACHE_SERVER_PORT's value in ENV, or 0 when unset or not a port. */
static unsigned port_in(char* const env[]) {
  const char* value = env_value(env, "SCCACHE_SERVER_PORT=");
  char* end;
  unsigned long port = value ? strtoul(value, &end, 10) : 0;
  return value && *end == '\0' && port > 0 && port < 65536 ? (unsigned)port : 0;
}

const char* sccache_server_entry(const char** problem) {
  const struct shimctl_sccache_server* server = &shim.config.sccache_server;
  *problem = NULL;
  if (!server->transport || getenv("SCCACHE_SERVER_UDS") || getenv("SCCACHE_SERVER_PORT"))
    return NULL; /* an old config (its setenv names the port), or the user's own choice (a
                  * port is still checked for its owner) */
  if (!shimctl_private_runtime_dir(private_dir, sizeof private_dir)) {
    *problem = "no private directory for its socket and lock (XDG_RUNTIME_DIR, the cache home, "
               "/tmp)";
    return NULL;
  }
  name_instance(true, store_left_out);
  if (strcmp(server->transport, SHIMCTL_SCCACHE_UNIX) == 0) {
    size_t len =
      concat(server_entry, sizeof server_entry, "SCCACHE_SERVER_UDS=", private_dir, "/", NULL);
    shimctl_sccache_file_name(server_entry, sizeof server_entry, len, instance, ".sock");
    return server_entry;
  }
  char num[24];
  concat(server_entry,
         sizeof server_entry,
         "SCCACHE_SERVER_PORT=",
         shimctl_decimal(shimctl_sccache_port(instance, geteuid()), num),
         NULL);
  return server_entry;
}

void end_store_server(void) {
  const struct shimctl_sccache_server* server = &shim.config.sccache_server;
  char path[SHIMCTL_SUN_PATH_MAX];
  if (!server->transport || strcmp(server->transport, SHIMCTL_SCCACHE_UNIX) != 0 ||
      getenv("SCCACHE_SERVER_UDS") || getenv("SCCACHE_SERVER_PORT") ||
      !shimctl_private_runtime_dir(private_dir, sizeof private_dir))
    return; /* no server of the shim's, or the user's own */
  name_instance(true, false);
  size_t len = concat(path, sizeof path, private_dir, "/", NULL);
  if (shimctl_sccache_file_name(path, sizeof path, len, instance, ".sock") >= sizeof path)
    return;
  int fd = connect_socket(path);
  struct ucred peer;
  socklen_t peer_len = sizeof peer;
  if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) == 0 &&
      peer.uid == geteuid() && peer.pid > 0 && kill(peer.pid, SIGKILL) == 0) {
    unlink(path); /* the next compile starts a server with a new client of the store */
    log_event("store-back", "its sccache server was ended: the next compile starts a new one");
  }
  if (fd >= 0)
    close(fd);
}

/* A server start that failed (sccache 0.17 will not start with a store it cannot read: a dead
 * endpoint, a wrong credential; its client gives up after 10 s) is not tried again for a while:
 * the compiles in between run uncached at once instead of waiting 10 s each (SHIMCTL_STRICT=1
 * tries every time). The memo is a file beside the lock whose mtime is the failure's time. */
#define SCCACHE_START_RETRY_SECONDS 60
#define SCCACHE_START_RETRY_TEXT "60"
#define SCCACHE_START_ATTEMPTS 3 /* starts in a row when each fails quickly */

static long long monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Pauses before a retry (formats.h). */
static void pause_before_retry(void) {
  struct timespec pause = { 0, shimctl_sccache_retry_pause_ms(getpid()) * 1000000L };
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
    continue;
}

/* Runs ARGS (`sccache --start-server`; it fails when another client's server won the race:
 * fine); true when a server of this user's answers after it. *WHO: the port's listener. */
static bool start_server(char* const args[],
                         char* const env[],
                         unsigned port,
                         const char* socket_path,
                         enum shimctl_listener* who) {
  run_quietly(args, env, start_said, sizeof start_said);
  *who = port ? shimctl_tcp_listener(port) : SHIMCTL_LISTENER_NONE;
  return port ? *who == SHIMCTL_LISTENER_MINE : socket_answers(socket_path);
}

static bool start_failed_recently(const char* memo) {
  struct stat st;
  if (lstat(memo, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
    return false;
  time_t now = time(NULL);
  return now >= st.st_mtime && now - st.st_mtime < SCCACHE_START_RETRY_SECONDS;
}

static void note_failed_start(const char* memo) {
  int fd = open_file(memo, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600);
  if (fd >= 0) {
    futimens(fd, NULL);
    close(fd);
  }
}

/* `sccache --start-server` with the marker of this prefix's shims in the server's environment
 * only (ENV has room for it: sccache_server_ready), again when it failed quickly (three starts in
 * all). True when the server answers; else *WHY: another user listens on its port, or what the
 * last start said. */
static bool start_marked_server(const char* sccache,
                                char** env,
                                size_t env_count,
                                unsigned port,
                                const char* socket_path,
                                const char** why) {
  char* args[] = { (char*)sccache, "--start-server", NULL };
  if (shim.trace)
    say("no sccache server of this user's answers: starting one", NULL);
  if (shim.config.state_dir && env_count + 1 < SHIM_MAX_ENV &&
      concat(marker_entry,
             sizeof marker_entry,
             SHIMCTL_SCCACHE_SERVER_OF "=",
             shim.config.state_dir,
             NULL) < sizeof marker_entry) {
    env[env_count] = marker_entry;
    env[env_count + 1] = NULL;
  }
  enum shimctl_listener who;
  long long start = monotonic_ns();
  bool ready = start_server(args, env, port, socket_path, &who);
  /* A start that fails at once is tried again (a store error that passes; sccache's own start
   * can fail now and then: mozilla/sccache#2076), up to SCCACHE_START_ATTEMPTS in all. */
  for (int attempt = 1;
       !ready && who != SHIMCTL_LISTENER_OTHER && attempt < SCCACHE_START_ATTEMPTS &&
       monotonic_ns() - start < SHIMCTL_SCCACHE_QUICK_FAILURE_MS * 1000000LL;
       attempt++) {
    if (shim.trace)
      say("sccache's --start-server failed quickly: trying again; it said: ", start_said, NULL);
    pause_before_retry();
    ready = start_server(args, env, port, socket_path, &who);
  }
  env[env_count] = NULL;
  if (who == SHIMCTL_LISTENER_OTHER)
    *why = "another user listens on its port";
  else if (!ready && start_said[0] &&
           concat(start_why, sizeof start_why, "its --start-server failed: ", start_said, NULL) <
             sizeof start_why)
    *why = start_why;
  return ready;
}

/* Starts the server (`sccache --start-server`, marked), one shim at a time: the lock lives beside
 * the socket, in the private dir; a start that failed less than a minute ago is not tried again.
 * True when the server answers. */
static bool locked_start(const char* sccache,
                         char** env,
                         size_t env_count,
                         unsigned port,
                         const char* socket_path,
                         const char** why) {
  char lock_path[PATH_MAX];
  int lock = -1;
  size_t len = private_dir[0] ? concat(lock_path, sizeof lock_path, private_dir, "/", NULL) : 0;
  if (private_dir[0] && instance[0] &&
      shimctl_sccache_file_name(lock_path, sizeof lock_path, len, instance, ".lock") <
        sizeof lock_path) {
    lock = open_file(lock_path, O_RDONLY | O_CREAT | O_NOFOLLOW, 0600);
    if (lock >= 0 && flock(lock, LOCK_EX) != 0) {
      close(lock);
      lock = -1;
    }
  }
  bool ready = lock >= 0 && (port ? shimctl_tcp_listener(port) == SHIMCTL_LISTENER_MINE
                                  : socket_answers(socket_path)); /* started while we waited */
  char memo[PATH_MAX]; /* beside the lock: its directory, this instance */
  bool memo_named = false;
  if (lock >= 0) {
    memcpy(memo, lock_path, len);
    memo_named =
      shimctl_sccache_file_name(memo, sizeof memo, len, instance, ".failed") < sizeof memo;
  }
  if (!ready && memo_named && start_failed_recently(memo) && !env_is("SHIMCTL_STRICT", "1")) {
    *why = "its --start-server failed less than " SCCACHE_START_RETRY_TEXT " s ago (a store "
           "unreachable or refusing its credential?)";
  } else if (!ready) {
    ready = start_marked_server(sccache, env, env_count, port, socket_path, why);
    if (memo_named && !ready)
      note_failed_start(memo);
    else if (memo_named)
      unlink(memo);
  }
  if (lock >= 0)
    close(lock);
  return ready;
}

/* The local-only server (the store is out, store_health.c) is started by a detached grandchild
 * of this shim, so that no compile ever waits on a start that hangs or takes long (sccache's
 * client waits up to 10 s); the compile waits for it a little (server_came_up) and else runs
 * uncached. None when one is starting. */
static void start_in_background(const char* sccache,
                                char** env,
                                size_t env_count,
                                unsigned port,
                                const char* socket_path) {
  char lock_path[PATH_MAX];
  size_t len = concat(lock_path, sizeof lock_path, private_dir, "/", NULL);
  if (!private_dir[0] || !instance[0] ||
      shimctl_sccache_file_name(lock_path, sizeof lock_path, len, instance, ".lock") >=
        sizeof lock_path)
    return;
  int lock = open_file(lock_path, O_RDONLY | O_CREAT | O_NOFOLLOW, 0600);
  bool starting = lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0;
  if (lock >= 0)
    close(lock);
  if (starting)
    return;
  pid_t pid = fork();
  if (pid == 0) {
    if (fork() == 0) {
      int null = open_file("/dev/null", O_RDWR, 0);
      setsid();
      if (null >= 0 && dup2(null, 0) == 0 && dup2(null, 1) == 1 && dup2(null, 2) == 2) {
        const char* why;
        shim.trace = false;
        locked_start(sccache, env, env_count, port, socket_path, &why);
      }
      _exit(0);
    }
    _exit(0);
  }
  while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
    continue;
}

/* How long a compile waits for the local-only server that start_in_background starts: sccache
 * 0.17 starts one (no store: nothing to ask) in 15-25 ms on the 2-core test machine under a load
 * of 11, and the compile's way through it is the hit from the local tier (an uncached compile is
 * no hit: the inner compiles of hipcc's driver go to the cache with keys of their own). */
#define SCCACHE_LOCAL_ONLY_WAIT_MS 1000
#define SCCACHE_LOCAL_ONLY_POLL_MS 10

/* After start_in_background: true once the server at SOCKET_PATH (else PORT) answers, polled
 * every SCCACHE_LOCAL_ONLY_POLL_MS for up to SCCACHE_LOCAL_ONLY_WAIT_MS; false at once when its
 * start failed less than SCCACHE_START_RETRY_SECONDS ago (no start is under way then). */
static bool server_came_up(const char* socket_path, unsigned port) {
  char memo[PATH_MAX];
  size_t len = concat(memo, sizeof memo, private_dir, "/", NULL);
  bool memo_named =
    private_dir[0] && instance[0] &&
    shimctl_sccache_file_name(memo, sizeof memo, len, instance, ".failed") < sizeof memo;
  for (int waited = 0;; waited += SCCACHE_LOCAL_ONLY_POLL_MS) {
    if (port ? shimctl_tcp_listener(port) == SHIMCTL_LISTENER_MINE : socket_answers(socket_path))
      return true;
    if (waited >= SCCACHE_LOCAL_ONLY_WAIT_MS || (memo_named && start_failed_recently(memo)))
      return false;
    struct timespec pause = { 0, SCCACHE_LOCAL_ONLY_POLL_MS * 1000000L };
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
      continue;
  }
}

/* Whether the user's server at SOCKET_PATH (else PORT) answers; for a port another user listens
 * on, *WHY says so and the answer is SERVER_OTHERS. */
enum server_answer { SERVER_NONE, SERVER_MINE, SERVER_OTHERS };
static enum server_answer server_answers(const char* socket_path, unsigned port, const char** why) {
  if (!port)
    return socket_answers(socket_path) ? SERVER_MINE : SERVER_NONE;
  enum shimctl_listener who = shimctl_tcp_listener(port);
  if (who == SHIMCTL_LISTENER_OTHER)
    *why = "another user listens on its port";
  return who == SHIMCTL_LISTENER_OTHER  ? SERVER_OTHERS
         : who == SHIMCTL_LISTENER_MINE ? SERVER_MINE
                                        : SERVER_NONE;
}

/* ENV names the shim's own server (sccache_server_entry), not one of the user's choosing. */
static bool own_server_in(char* const env[]) {
  const char* own = server_entry[0] ? strchr(server_entry, '=') + 1 : NULL;
  return own && (own == env_value(env, "SCCACHE_SERVER_UDS=") ||
                 own == env_value(env, "SCCACHE_SERVER_PORT="));
}

/* No server answers, and one is to start with the team store in its environment: sccache 0.17
 * asks its store as it starts, and its client gives up after 10 s (a store that hangs, one that
 * is gone). So the store must answer now, not only when the memo was written: in a new mount
 * namespace (a new container) no server of the namespace runs yet, however fresh the memo's
 * "healthy" (issue 44: 11.5 s for a warm object). True when the store answers or ENV has none.
 * Out, and ENV (cache_env) names the shim's own server: the store leaves ENV as decide_store_use
 * would have left it out, and the server entry names the local-only twin (true, *SWITCHED). Out,
 * and the server is one the user named (verify's compiles name the shim's own path in their
 * environment), which keeps its store: false, the compile runs uncached. */
static bool store_fit_for_start(char** env, size_t* env_count, bool* switched) {
  *switched = false;
  if ((store_left_out && !store_behind_server) || store_answers_before_start())
    return true;
  if (env != cache_env || !own_server_in(env))
    return env_is("SHIMCTL_STRICT", "1"); /* strict: started as before, waited on */
  const char* problem;
  (void)shim_cache_tool()->leave_store_out(); /* sccache's only drops entries */
  *env_count = cache_env_count;
  /* Rewrites server_entry, which ENV holds, in place; it cannot fail where it just did not. */
  *switched = sccache_server_entry(&problem) != NULL;
  return *switched;
}

bool sccache_server_ready(const char* sccache, char** env, size_t env_count, const char** why) {
  *why = "its --start-server failed";
  /* The user's own SCCACHE_SERVER_UDS or port too: a server that does not answer there is
   * started here, marked (sccache's client would start one that rollback cannot find, and wait
   * 10 s for one that cannot start). */
  const char* socket_path = env_value(env, "SCCACHE_SERVER_UDS=");
  unsigned port = socket_path ? 0 : port_in(env);
  if (!socket_path && port == 0)
    port = SHIMCTL_SCCACHE_DEFAULT_PORT;
  enum server_answer answer = server_answers(socket_path, port, why);
  if (answer != SERVER_NONE)
    return answer == SERVER_MINE;
  if (!instance[0] && shim.config.sccache_server.key) { /* a port of the user's own choosing */
    (void)shimctl_private_runtime_dir(private_dir, sizeof private_dir);
    name_instance(false, store_left_out);
  }
  bool switched;
  if (!store_fit_for_start(env, &env_count, &switched)) {
    *why = "the team store is out, and that server would wait on it as it starts";
    return false;
  }
  if (switched) { /* the local-only twin's, which may run */
    socket_path = env_value(env, "SCCACHE_SERVER_UDS=");
    port = socket_path ? 0 : port_in(env);
    if ((answer = server_answers(socket_path, port, why)) != SERVER_NONE)
      return answer == SERVER_MINE;
  }
  if (store_left_out && !store_behind_server && !env_is("SHIMCTL_STRICT", "1")) {
    start_in_background(sccache, env, env_count, port, socket_path);
    if (server_came_up(socket_path, port))
      return true;
    *why = "its local-only server is starting (the team store is out)";
    return false;
  }
  return locked_start(sccache, env, env_count, port, socket_path, why);
}

void record_sccache_call(const char* sccache, char* const env[]) {
  const char* log = measure_log();
  if (!log)
    return;
  char body[PATH_MAX + 256];
  const char* uds = env_value(env, "SCCACHE_SERVER_UDS=");
  const char* port = env_value(env, "SCCACHE_SERVER_PORT=");
  /* The shim's own entry (sccache_server_entry) names this build's own server; anything else is
   * the user's choice or an old config's port, which other builds may use too. */
  const char* own = server_entry[0] ? strchr(server_entry, '=') + 1 : NULL;
  const char* scope =
    own && (uds == own || port == own) ? SHIMCTL_MEASURE_OWN_SERVER : SHIMCTL_MEASURE_SHARED_SERVER;
  const char* server = uds ? uds : port ? port : SHIMCTL_SCCACHE_DEFAULT_PORT_TEXT;
  if (concat(body,
             sizeof body,
             scope,
             " ",
             sccache,
             uds ? " SCCACHE_SERVER_UDS=" : " SCCACHE_SERVER_PORT=",
             server,
             NULL) < sizeof body)
    append_measure_record(log, SHIMCTL_MEASURE_SCCACHE, body);
}
