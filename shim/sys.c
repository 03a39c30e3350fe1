/* Every system call the shim makes: finding itself, reading files, the parent check, running the
 * probe and the identity helper, events.log, stat checks, and the exec of the original. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

/* open(2) with O_CLOEXEC in one system call. musl's open() follows an O_CLOEXEC open with
 * fcntl(F_SETFD) for kernels older than 2.6.23; every kernel the toolchains run on honours the
 * flag, and the shim opens up to a dozen files on each compile. */
int open_file(const char* path, int flags, mode_t mode) {
  return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, mode);
}

static void write_best_effort(int fd, const char* s, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, s, len);
    if (n <= 0)
      return; /* nowhere left to report it */
    s += n;
    len -= (size_t)n;
  }
}

void say(const char* first, ...) {
  static char line[2 * PATH_MAX + 512];
  const size_t prefix = sizeof "shimctl-shim: " - 1;
  memcpy(line, "shimctl-shim: ", prefix);
  va_list ap;
  va_start(ap, first);
  size_t len = prefix + vconcat(line + prefix, sizeof line - prefix - 1, first, ap);
  va_end(ap);
  if (len > sizeof line - 2)
    len = sizeof line - 2;
  line[len++] = '\n';
  write_best_effort(STDERR_FILENO, line, len);
}

bool env_is(const char* name, const char* value) {
  const char* v = getenv(name);
  return v && strcmp(v, value) == 0;
}

bool path_in_self_dir(char out[PATH_MAX], const char* name, const char* suffix) {
  return concat(out, PATH_MAX, shim.self_dir, "/", name, suffix, NULL) < PATH_MAX;
}

/* The first executable NAME in $PATH, as execvp would find it. */
bool find_in_path(const char* name, char out[PATH_MAX]) {
  const char* dir = getenv("PATH");
  if (!dir)
    dir = "/usr/local/bin:/usr/bin:/bin";
  for (;;) {
    const char* end = strchrnul(dir, ':');
    size_t len = (size_t)(end - dir);
    if (len == 0) { /* an empty PATH entry means the working directory */
      dir = ".";
      len = 1;
    }
    if (len + strlen(name) + 2 <= PATH_MAX) {
      memcpy(out, dir, len);
      out[len] = '/';
      strcpy(out + len + 1, name);
      if (access(out, X_OK) == 0)
        return true;
    }
    if (*end == '\0')
      return false;
    dir = end + 1;
  }
}

/* Sets self_path, self_dir and self_name from /proc/self/exe, or (without /proc) from argv[0]. */
bool locate_self(const char* argv0) {
  ssize_t n = readlink("/proc/self/exe", shim.self_path, sizeof shim.self_path);
  if (n > 0 && (size_t)n < sizeof shim.self_path) {
    shim.self_path[n] = '\0';
    /* The shim was replaced (by an install) since it started; its path still names the shim. */
    static const char deleted[] = " (deleted)";
    if ((size_t)n > sizeof deleted &&
        strcmp(shim.self_path + n - (sizeof deleted - 1), deleted) == 0) {
      shim.self_path[n - (sizeof deleted - 1)] = '\0';
      shim.self_replaced = true;
    }
  } else {
    char found[PATH_MAX];
    if (!argv0 || !*argv0)
      return false;
    if (!strchr(argv0, '/') && find_in_path(argv0, found))
      argv0 = found;
    if (!realpath(argv0, shim.self_path))
      return false;
  }
  char* slash = strrchr(shim.self_path, '/');
  if (!slash)
    return false;
  memcpy(shim.self_dir, shim.self_path, (size_t)(slash - shim.self_path));
  shim.self_dir[slash - shim.self_path] = '\0';
  shim.self_name = slash + 1;
  return true;
}

/* Which files read_file_of reads: any; a regular file of this user's that only they can write;
 * a regular file that only its owner can write. Not a link, but for FILE_ANY. */
enum trust { FILE_ANY, FILE_MINE, FILE_PROTECTED };
static bool read_file_of(const char* path, char* buf, size_t max, size_t* len, enum trust trust);

bool read_small_file(const char* path, char* buf, size_t max, size_t* len, bool mine) {
  return read_file_of(path, buf, max, len, mine ? FILE_MINE : FILE_ANY);
}

bool read_protected_file(const char* path, char* buf, size_t max, size_t* len) {
  return read_file_of(path, buf, max, len, FILE_PROTECTED);
}

static bool read_file_of(const char* path, char* buf, size_t max, size_t* len, enum trust trust) {
  int fd = open_file(path, O_RDONLY | (trust != FILE_ANY ? O_NOFOLLOW : 0), 0);
  if (fd < 0)
    return false;
  struct stat st;
  if (trust != FILE_ANY &&
      (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
       (trust == FILE_MINE && st.st_uid != geteuid()) || (st.st_mode & 022) != 0)) {
    close(fd);
    errno = EPERM;
    return false;
  }
  *len = 0;
  while (*len <= max) { /* stops once the file is known to be too large */
    size_t want = max + 1 - *len;
    ssize_t n = read(fd, buf + *len, want);
    if (n > 0 && (size_t)n < want) { /* a short read of a regular file: its end */
      *len += (size_t)n;
      break;
    }
    if (n == 0)
      break;
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      errno = error;
      return false;
    }
    *len += (size_t)n;
  }
  close(fd);
  buf[*len] = '\0';
  return true;
}

/* Reads and parses D/.shimctl.conf into shim.config; returns NULL or a problem. */
const char* load_config(void) {
  static char text[SHIMCTL_CONFIG_MAX + 2];
  if (concat(
        shim.config_path, sizeof shim.config_path, shim.self_dir, "/" SHIMCTL_CONFIG_NAME, NULL) >=
      PATH_MAX)
    return "path of the shim too long";
  size_t len;
  if (!read_small_file(shim.config_path, text, SHIMCTL_CONFIG_MAX, &len, false)) {
    concat(shim.problem,
           sizeof shim.problem,
           "cannot read ",
           shim.config_path,
           ": ",
           strerror(errno),
           NULL);
    return shim.problem;
  }
  if (len > SHIMCTL_CONFIG_MAX) {
    concat(shim.problem, sizeof shim.problem, shim.config_path, ":0: larger than 256 KiB", NULL);
    return shim.problem;
  }
  return shimctl_parse_config(
    &shim.config, text, len, shim.config_path, shim.problem, sizeof shim.problem);
}

/* The program our parent runs (its /proc exe link) in OUT; false when unknown (no /proc, or
 * another user's process). */
bool parent_program(char out[PATH_MAX]) {
  char proc[48], num[24];
  const char* pid = shimctl_decimal((unsigned long long)getppid(), num);
  concat(proc, sizeof proc, "/proc/", pid, "/exe", NULL);
  ssize_t n = readlink(proc, out, PATH_MAX - 1);
  if (n <= 0)
    return false;
  out[n] = '\0';
  return true;
}

/* The prefix shimctl manages: the parent of the state dir; false when unknown. */
bool prefix_of_state(char out[PATH_MAX]) {
  const char* state_dir = shim.config.state_dir;
  const char* slash = state_dir ? strrchr(state_dir, '/') : NULL;
  if (!slash)
    return false;
  size_t len = slash == state_dir ? 1 : (size_t)(slash - state_dir);
  if (len >= PATH_MAX)
    return false;
  memcpy(out, state_dir, len);
  out[len] = '\0';
  return true;
}

/* "run 'shimctl verify PREFIX'", PREFIX when known. */
static const char* verify_hint(void) {
  static char hint[PATH_MAX + 32];
  char prefix[PATH_MAX];
  if (!prefix_of_state(prefix))
    return "run 'shimctl verify'";
  concat(hint, sizeof hint, "run 'shimctl verify ", prefix, "'", NULL);
  return hint;
}

/* True when PATH is an executable file other than this shim: compares inodes, so a shim that
 * was replaced after it started (a rollback) does not count as itself. */
static bool is_other_executable(const char* path) {
  struct stat self, other;
  return stat("/proc/self/exe", &self) == 0 && stat(path, &other) == 0 &&
         (self.st_dev != other.st_dev || self.st_ino != other.st_ino) && access(path, X_OK) == 0;
}

/* A rollback renames D/NAME.real back over D/NAME in one step: once NAME.real is gone and NAME is
 * no longer this shim, NAME is the original compiler. Runs it; returns if that is not the case. */
static void exec_if_restored(const char* name, char** argv) {
  char path[PATH_MAX];
  if (!path_in_self_dir(path, name, "") || !is_other_executable(path))
    return;
  if (shim.trace)
    say("restored ", path, NULL);
  execve(path, argv, environ);
}

_Noreturn void exec_original(const char* real, const char* name, char** argv) {
  if (shim.trace)
    say("direct ", real, NULL);
  execve(real, argv, environ);
  int error = errno;
  if (error == ENOENT && name)
    exec_if_restored(name, argv);
  const char* reason = strerror(error);
  say("original compiler ", real, " cannot run: ", reason, "; ", verify_hint(), NULL);
  _exit(127);
}

/* Without a usable config: run D/<invoked>.real or D/N.real if one exists, else fail. */
_Noreturn void run_without_config(char** argv, const char* invoked, const char* why) {
  const char* names[] = { invoked, shim.self_name };
  int count = strcmp(invoked, shim.self_name) == 0 ? 1 : 2;
  char real[PATH_MAX];
  record_not_sent(SHIMCTL_NOT_SENT_NO_CONFIG);
  for (int i = 0; i < count; i++)
    if (path_in_self_dir(real, names[i], ".real") && access(real, X_OK) == 0)
      exec_original(real, names[i], argv);
  /* A rollback renamed the original back over us between our exec and reading the config:
   * the name now holds the original compiler. */
  if (shim.self_replaced && access(shim.self_path, X_OK) == 0)
    exec_original(shim.self_path, NULL, argv);
  for (int i = 0; i < count; i++)
    exec_if_restored(names[i], argv);
  say(why, "; run 'shimctl verify'", NULL);
  _exit(127);
}

/* Runs ARGS[0] with ARGS, stdin and stderr /dev/null (the compile's streams belong to the
 * compiler), and reads its stdout into OUT (NUL-terminated; *len == cap - 1: it said more than
 * fits). False when it could not be started or waited for; else *status is its wait status. */
bool run_and_read(char* const args[], char* out, size_t cap, size_t* len, int* status) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open_file("/dev/null", O_RDWR, 0);
    if (null >= 0 && dup2(null, 0) == 0 && dup2(fds[1], 1) == 1 && dup2(null, 2) == 2)
      execve(args[0], args, environ);
    _exit(127);
  }
  close(fds[1]);
  *len = 0;
  while (pid > 0 && *len < cap - 1) {
    ssize_t n = read(fds[0], out + *len, cap - 1 - *len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    *len += (size_t)n;
  }
  close(fds[0]); /* a writer with more to say gets SIGPIPE */
  out[*len] = '\0';
  while (pid > 0 && waitpid(pid, status, 0) < 0)
    if (errno != EINTR)
      return false;
  return pid > 0;
}

/* The events log to append to, its path in PATH: the prefix's (state/events.log), else, for a
 * user who may not write that (a root-installed prefix), the user's own (formats.h), made with
 * its directories (0700) when missing. -1 when neither can be opened. */
static int open_events_log(char path[PATH_MAX]) {
  char prefix[PATH_MAX];
  const char* state_dir = shim.config.state_dir;
  if (!state_dir || concat(path, PATH_MAX, state_dir, "/events.log", NULL) >= PATH_MAX)
    return -1;
  int fd = open_file(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd >= 0 || (errno != EACCES && errno != EPERM && errno != EROFS) || !prefix_of_state(prefix))
    return fd;
  size_t len = shimctl_user_file_path(
    path, PATH_MAX, getenv("XDG_CACHE_HOME"), getenv("HOME"), SHIMCTL_USER_EVENTS_DIR, prefix);
  if (len == 0 || len >= PATH_MAX)
    return -1;
  for (char* slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0700); /* the existing ones stay as they are */
    *slash = '/';
  }
  return open_file(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0600);
}

/* Appends "<unix time> <event> <cache> <reason>" to the events log, best effort. */
void log_event(const char* event, const char* reason) {
  char path[PATH_MAX], line[PATH_MAX + 256], num[24];
  int fd = open_events_log(path);
  if (fd < 0)
    return;
  const char* now = shimctl_decimal((unsigned long long)time(NULL), num);
  size_t len = concat(
    line, sizeof line, now, " ", event, " ", shim.config.cache_path, " ", reason, "\n", NULL);
  if (len < sizeof line) /* one write(2): O_APPEND keeps concurrent lines whole */
    write_best_effort(fd, line, len);
  close(fd);
}

const char* measure_log(void) {
  static const char* log;
  static bool looked;
  if (!looked) {
    log = getenv(SHIMCTL_MEASURE_LOG);
    looked = true;
  }
  return log && log[0] ? log : NULL;
}

void append_measure_record(const char* log, const char* header, const char* body) {
  char record[PATH_MAX + 512];
  size_t len = concat(record, sizeof record, header, "\n", body, "\n", NULL);
  if (len >= sizeof record)
    return;
  int fd = open_file(log, O_WRONLY | O_APPEND | O_CREAT, 0666);
  if (fd < 0)
    return;
  write_best_effort(fd, record, len); /* one write(2): records of parallel calls stay whole */
  close(fd);
}

void record_not_sent(enum shimctl_not_sent reason) {
  const char* log = measure_log();
  const char* name = shimctl_not_sent_name(reason);
  if (getenv("SHIMCTL_ACTIVE"))
    return;   /* a nested call: its caller's call is the one recorded */
  if (!log) { /* ccache's own stats log, as before measure had a log of its own */
    const char* stats_log = shim_cache_tool()->stats_log;
    log = stats_log ? getenv(stats_log) : NULL;
    name = shimctl_not_sent_stats_log_name(reason);
    if (!log || !log[0] || !name)
      return;
  }
  append_measure_record(log, SHIMCTL_MEASURE_NOT_SENT, name);
}

/* log_event, unless the end of events.log already holds the same event and reason: a file
 * that every compile in a directory finds is reported once, not once per compile. */
void log_event_once(const char* event, const char* reason) {
  static char tail[16384];
  char path[PATH_MAX], needle[PATH_MAX + 256];
  const char* state_dir = shim.config.state_dir;
  size_t needle_len =
    concat(needle, sizeof needle, " ", event, " ", shim.config.cache_path, " ", reason, "\n", NULL);
  if (state_dir && needle_len < sizeof needle &&
      concat(path, sizeof path, state_dir, "/events.log", NULL) < sizeof path) {
    int fd = open_file(path, O_RDONLY, 0);
    ssize_t n = -1;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0)
      n = pread(fd,
                tail,
                sizeof tail,
                st.st_size > (off_t)sizeof tail ? st.st_size - (off_t)sizeof tail : 0);
    if (fd >= 0)
      close(fd);
    if (n > 0 && memmem(tail, (size_t)n, needle, needle_len))
      return;
  }
  log_event(event, reason);
}

/* DIR (LEN bytes) is where ccache stops looking: $HOME or one of the caller's ceiling dirs. */
static bool is_ceiling(const char* dir, size_t len) {
  const char* lists[] = { getenv("HOME"), getenv("CCACHE_CEILING_DIRS") };
  for (int i = 0; i < 2; i++)
    for (const char* p = lists[i]; p && *p;) {
      const char* end = i == 0 ? p + strlen(p) : strchrnul(p, ':');
      size_t n = (size_t)(end - p);
      while (n > 1 && p[n - 1] == '/')
        n--;
      if (n == len && memcmp(p, dir, len) == 0)
        return true;
      p = *end ? end + 1 : end;
    }
  return false;
}

/* The first ccache.conf in DIR or a parent, into FOUND; false if none. It may find a file
 * ccache would not read (it does not stop at .git or a mount point), never the reverse. */
bool find_directory_config(const char* dir, char found[PATH_MAX]) {
  size_t len = strlen(dir);
  if (len == 0 || len >= PATH_MAX)
    return false;
  memcpy(found, dir, len + 1);
  struct stat st;
  for (;;) {
    if (is_ceiling(found, len))
      return false;
    if (concat(found + len, PATH_MAX - len, len == 1 ? "" : "/", "ccache.conf", NULL) <
          PATH_MAX - len &&
        stat(found, &st) == 0)
      return true;
    if (len == 1)
      return false;
    found[len] = '\0';
    char* slash = strrchr(found, '/');
    len = slash == found ? 1 : (size_t)(slash - found);
    found[len] = '\0';
  }
}

/* The nearest of DIR and its parents (not /) holding one of NAMES (with REGULAR, a regular file,
 * links followed; else anything), into FOUND; false when there is none. */
bool find_nearest_holding(const char* dir,
                          const char* const names[],
                          bool regular,
                          char found[PATH_MAX]) {
  size_t len = strlen(dir);
  if (len <= 1 || len >= PATH_MAX || dir[0] != '/')
    return false;
  memcpy(found, dir, len + 1);
  struct stat st;
  while (len > 1) {
    for (int i = 0; names[i]; i++)
      if (concat(found + len, PATH_MAX - len, "/", names[i], NULL) < PATH_MAX - len &&
          (regular ? stat(found, &st) == 0 && S_ISREG(st.st_mode) : lstat(found, &st) == 0)) {
        found[len] = '\0';
        return true;
      }
    found[len] = '\0';
    char* slash = strrchr(found, '/');
    len = (size_t)(slash - found);
    *slash = '\0';
  }
  return false;
}

/* The build tree DIR is in, into ROOT: the nearest of DIR and its parents (not /) that holds a
 * CMakeCache.txt or a build.ninja. False when there is none. */
bool find_build_root(const char* dir, char root[PATH_MAX]) {
  static const char* const markers[] = { "CMakeCache.txt", "build.ninja", NULL };
  return find_nearest_holding(dir, markers, true, root);
}

/* ccache fails the compile ("Failed to create directory ...") when its cache directory DIR is
 * not writable, e.g. a root-owned --cache-dir used by another user. Returns DIR then, or NULL
 * when the cache can be used: one access(2) on the hot path. */
const char* unwritable_cache_dir(const char* dir) {
  static char parent[PATH_MAX];
  if (!dir || !*dir || access(dir, W_OK | X_OK) == 0)
    return NULL;
  if (errno != ENOENT)
    return dir;
  /* Not created yet: ccache creates it if its parent is writable. */
  if (concat(parent, sizeof parent, dir, NULL) >= sizeof parent)
    return NULL;
  char* slash = strrchr(parent, '/');
  if (!slash || slash == parent)
    return NULL;
  *slash = '\0';
  return access(parent, W_OK | X_OK) == 0 || errno == ENOENT ? NULL : dir;
}

int open_directory(const char* path) {
  return open_file(path, O_PATH | O_DIRECTORY, 0);
}

void close_directory(int fd) {
  if (fd >= 0)
    close(fd);
}

static unsigned long long nanoseconds(struct timespec t) {
  return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

/* INPUT, in the directory DIR_FD, has the stat data the snapshot recorded. */
bool input_unchanged(int dir_fd, const struct shimctl_snapshot_input* input) {
  struct stat st;
  return dir_fd >= 0 && fstatat(dir_fd, input->name, &st, 0) == 0 && st.st_ino == input->inode &&
         (unsigned long long)st.st_size == input->size &&
         nanoseconds(st.st_mtim) == input->mtime_ns && nanoseconds(st.st_ctim) == input->ctime_ns;
}
