/* shimctl-shim: installed by shimctl in place of a compiler; runs the original compiler either
 * directly or through the cache tool, as "The shim contract" in ARCHITECTURE.md describes.
 *
 * It runs on every compile, so the hot path allocates nothing, uses no stdio and makes few
 * syscalls: readlink(/proc/self/exe), open/read/close of the config, the parent check (only
 * outside a nested call), then execve. It never writes to stdout; its rare messages go to
 * stderr in one write(2) each. A compile must never fail because of the cache layer: whenever
 * the cache cannot be used, the original compiler runs directly. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SHIMCTL_SHIM_VERSION
#define SHIMCTL_SHIM_VERSION "0.1.0"
#endif

/* Lets `strings` tell an installed shim's version without running it (running it compiles). */
__attribute__((used)) static const char shim_ident[] = "@(#)shimctl-shim " SHIMCTL_SHIM_VERSION;

#define CONFIG_NAME ".shimctl.conf"
#define CONFIG_HEADER "shimctl-shim-config 1"
#define CONFIG_MAX (256 * 1024)
#define IDENTITY_NAME "identity" /* in the state dir: the identity snapshot */
#define IDENTITY_HEADER "shimctl-identity 1"
#define IDENTITY_MAX (256 * 1024)
#define FINGERPRINT_KEY_LEN 32 /* hex digits of the fingerprint in the cache key */
#define STRICT_HINT " (SHIMCTL_STRICT=1; unset it to compile without the cache)"
#define MAX_DIRECTIVES 8192     /* compiler, alias, setenv and appendenv lines */
#define MAX_ENV 32768           /* environment entries handed to the cache tool */
#define MAX_ARGS 131072         /* arguments handed to the cache tool */
#define TARGET_KEY_MAX 16384    /* the environment and GPU targets in the cache key */
#define ENV_ARENA (1024 * 1024) /* room for appendenv results */
/* Static arrays live in .bss: pages never touched cost nothing. Past these bounds the cache is
 * skipped and the original compiler runs directly. */

extern char** environ;

enum kind { SETENV, APPENDENV, COMPILER, ALIAS, KEYENV, PROBE };

struct directive {
  enum kind kind;
  char* arg1; /* NAME / ALIAS, the whole NAME=VALUE of setenv and appendenv, keyenv's NAME */
  char* arg2; /* REALNAME / NAME, target-probe's absolute PATH; NULL for setenv and appendenv */
};

static char self_path[PATH_MAX]; /* D/N: the shim's real path */
static char self_dir[PATH_MAX];  /* D */
static const char* self_name;    /* N */
static char config_path[PATH_MAX];
static char config_text[CONFIG_MAX + 2];
static struct directive directives[MAX_DIRECTIVES];
static size_t directive_count;
static char* state_dir; /* NULL when the config has no state line */
static char* cache_path;
static char problem[PATH_MAX + 256]; /* why the config cannot be used */
static char* cache_argv[MAX_ARGS];
static char* cache_env[MAX_ENV];
static size_t cache_env_count;
static char env_arena[ENV_ARENA];
static size_t env_arena_used;
static char active_entry[] = "SHIMCTL_ACTIVE=1";
static bool trace;
static bool cache_is_ccache = true;
static bool self_replaced;    /* our file was replaced while we started (a rollback or reinstall) */
static char* identity_helper; /* shimctl, which re-checks the identity when the snapshot is stale */
static bool keyed_by_identity; /* compiler_check_entry goes to the cache tool (decided in main) */
static char identity_text[IDENTITY_MAX + 2];
static char compiler_check_entry[] = "CCACHE_COMPILERCHECK=string:shimctl-"
                                     "................................";

/* Concatenates the NULL-terminated string list into out, truncating; like snprintf it returns
 * the untruncated length, so a result >= cap means "did not fit". */
static size_t vconcat(char* out, size_t cap, const char* first, va_list ap) {
  size_t len = 0;
  for (const char* s = first; s; s = va_arg(ap, const char*)) {
    size_t n = strlen(s);
    if (len < cap)
      memcpy(out + len, s, len + n < cap ? n : cap - len);
    len += n;
  }
  out[len < cap ? len : cap - 1] = '\0';
  return len;
}

static size_t concat(char* out, size_t cap, const char* first, ...) {
  va_list ap;
  va_start(ap, first);
  size_t len = vconcat(out, cap, first, ap);
  va_end(ap);
  return len;
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

/* Prints "shimctl-shim: <parts>" as one line to stderr. */
static void say(const char* first, ...) {
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

static const char* format_unsigned(unsigned long long value, char buf[24]) {
  char* p = buf + 23;
  *p = '\0';
  do
    *--p = (char)('0' + value % 10);
  while ((value /= 10) != 0);
  return p;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static bool starts_with(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool env_is(const char* name, const char* value) {
  const char* v = getenv(name);
  return v && strcmp(v, value) == 0;
}

static bool path_in_self_dir(char out[PATH_MAX], const char* name, const char* suffix) {
  return concat(out, PATH_MAX, self_dir, "/", name, suffix, NULL) < PATH_MAX;
}

/* The first executable NAME in $PATH, as execvp would find it. */
static bool find_in_path(const char* name, char out[PATH_MAX]) {
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
static bool locate_self(const char* argv0) {
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path);
  if (n > 0 && (size_t)n < sizeof self_path) {
    self_path[n] = '\0';
    /* The shim was replaced (by an install) since it started; its path still names the shim. */
    static const char deleted[] = " (deleted)";
    if ((size_t)n > sizeof deleted && strcmp(self_path + n - (sizeof deleted - 1), deleted) == 0) {
      self_path[n - (sizeof deleted - 1)] = '\0';
      self_replaced = true;
    }
  } else {
    char found[PATH_MAX];
    if (!argv0 || !*argv0)
      return false;
    if (!strchr(argv0, '/') && find_in_path(argv0, found))
      argv0 = found;
    if (!realpath(argv0, self_path))
      return false;
  }
  char* slash = strrchr(self_path, '/');
  if (!slash)
    return false;
  memcpy(self_dir, self_path, (size_t)(slash - self_path));
  self_dir[slash - self_path] = '\0';
  self_name = slash + 1;
  return true;
}

static const char* malformed(unsigned line, const char* what, const char* detail) {
  char num[24];
  const char* at = format_unsigned(line, num);
  concat(problem, sizeof problem, config_path, ":", at, ": ", what, detail, NULL);
  return problem;
}

/* Splits "A B" in place into two non-empty fields without '/' (names of files in D). */
static bool split_names(char* rest, char** a, char** b) {
  char* space = strchr(rest, ' ');
  if (!space)
    return false;
  *space = '\0';
  *a = rest;
  *b = space + 1;
  return **a && **b && !strchr(*b, ' ') && !strchr(*a, '/') && !strchr(*b, '/');
}

/* Parses one directive line (already NUL-terminated); returns NULL or a problem. */
static const char* parse_line(char* line, unsigned lineno) {
  char* space = strchr(line, ' ');
  if (!space || !space[1])
    return malformed(lineno, "directive without value: ", line);
  *space = '\0';
  char* rest = space + 1;
  struct directive d = { 0 };
  if (strcmp(line, "state") == 0 || strcmp(line, "cache") == 0) {
    if (rest[0] != '/')
      return malformed(lineno, "path must be absolute: ", rest);
    if (line[0] == 's')
      state_dir = rest;
    else
      cache_path = rest;
    return NULL;
  } else if (strcmp(line, "identity-helper") == 0) {
    if (rest[0] != '/')
      return malformed(lineno, "path must be absolute: ", rest);
    identity_helper = rest;
    return NULL;
  } else if (strcmp(line, "cache-kind") == 0) {
    if (strcmp(rest, "ccache") && strcmp(rest, "sccache"))
      return malformed(lineno, "unknown cache-kind: ", rest);
    cache_is_ccache = rest[0] == 'c'; /* both take "CACHE COMPILER ARGS..." */
    return NULL;
  } else if (strcmp(line, "setenv") == 0 || strcmp(line, "appendenv") == 0) {
    char* eq = strchr(rest, '=');
    if (!eq || eq == rest)
      return malformed(lineno, "expected NAME=VALUE: ", rest);
    d = (struct directive){ line[0] == 's' ? SETENV : APPENDENV, rest, NULL };
  } else if (strcmp(line, "keyenv") == 0) {
    if (strchr(rest, '=') || strchr(rest, ' '))
      return malformed(lineno, "expected a variable name: ", rest);
    d = (struct directive){ KEYENV, rest, NULL };
  } else if (strcmp(line, "target-probe") == 0) {
    char* space2 = strchr(rest, ' ');
    if (!space2 || space2 == rest || space2[1] != '/' || strchr(space2 + 1, ' '))
      return malformed(lineno, "expected a compiler name and an absolute path: ", rest);
    *space2 = '\0';
    d = (struct directive){ PROBE, rest, space2 + 1 };
  } else if (strcmp(line, "compiler") == 0 || strcmp(line, "alias") == 0) {
    d.kind = line[0] == 'c' ? COMPILER : ALIAS;
    if (!split_names(rest, &d.arg1, &d.arg2))
      return malformed(lineno, "expected two file names: ", rest);
  } else {
    return malformed(lineno, "unknown directive: ", line);
  }
  if (directive_count == MAX_DIRECTIVES)
    return malformed(lineno, "too many directives", "");
  directives[directive_count++] = d;
  return NULL;
}

static const struct directive* find_directive(enum kind kind, const char* name) {
  for (size_t i = 0; i < directive_count; i++)
    if (directives[i].kind == kind && strcmp(directives[i].arg1, name) == 0)
      return &directives[i];
  return NULL;
}

/* Parses config_text[0..len) in place; returns NULL or a problem. */
static const char* parse_config(size_t len) {
  char* end = config_text + len;
  unsigned lineno = 0;
  bool header_seen = false;
  if (memchr(config_text, '\0', len))
    return malformed(1, "contains a NUL byte", "");
  for (char* line = config_text; line < end; line++) {
    char* newline = memchr(line, '\n', (size_t)(end - line));
    if (newline)
      *newline = '\0';
    lineno++;
    if (line[0] != '\0' && line[0] != '#') {
      const char* bad = NULL;
      if (header_seen)
        bad = parse_line(line, lineno);
      else if (strcmp(line, CONFIG_HEADER) == 0)
        header_seen = true;
      else
        bad = malformed(lineno, "expected '" CONFIG_HEADER "', found: ", line);
      if (bad)
        return bad;
    }
    line = newline ? newline : end;
  }
  if (!header_seen)
    return malformed(lineno, "no '" CONFIG_HEADER "' line", "");
  if (!cache_path)
    return malformed(lineno, "no cache line", "");
  for (size_t i = 0; i < directive_count; i++)
    if (directives[i].kind == ALIAS && !find_directive(COMPILER, directives[i].arg2))
      return malformed(lineno, "alias of an unknown compiler: ", directives[i].arg2);
  return NULL;
}

/* Reads up to MAX + 1 bytes of PATH into BUF and NUL-terminates them (*len > max: too large).
 * False with errno set when the file cannot be read. With MINE, also false unless the file is a
 * regular file of this user that nobody else may write. */
static bool read_small_file(const char* path, char* buf, size_t max, size_t* len, bool mine) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | (mine ? O_NOFOLLOW : 0));
  if (fd < 0)
    return false;
  struct stat st;
  if (mine && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
               (st.st_mode & 022) != 0)) {
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

/* Reads and parses D/.shimctl.conf; returns NULL or a problem. */
static const char* load_config(void) {
  if (concat(config_path, sizeof config_path, self_dir, "/" CONFIG_NAME, NULL) >= PATH_MAX)
    return "path of the shim too long";
  size_t len;
  if (!read_small_file(config_path, config_text, CONFIG_MAX, &len, false)) {
    concat(problem, sizeof problem, "cannot read ", config_path, ": ", strerror(errno), NULL);
    return problem;
  }
  if (len > CONFIG_MAX)
    return malformed(0, "larger than 256 KiB", "");
  return parse_config(len);
}

/* The compiler entry for the invoked name: its own, its alias's, or else N's.
 * *known tells whether the invoked name itself is in the config. */
static const struct directive* resolve_compiler(const char* invoked, bool* known) {
  const struct directive* d = find_directive(COMPILER, invoked);
  const struct directive* alias = d ? NULL : find_directive(ALIAS, invoked);
  if (alias)
    d = find_directive(COMPILER, alias->arg2);
  *known = d != NULL;
  return d ? d : find_directive(COMPILER, self_name);
}

/* True when a ccache or sccache process started us: it is already the cache layer. */
static bool parent_is_cache_launcher(void) {
  char proc[48], exe[PATH_MAX], num[24];
  const char* pid = format_unsigned((unsigned long long)getppid(), num);
  concat(proc, sizeof proc, "/proc/", pid, "/exe", NULL);
  ssize_t n = readlink(proc, exe, sizeof exe - 1);
  if (n <= 0)
    return false; /* no /proc, or another user's process: assume no launcher */
  exe[n] = '\0';
  const char* name = base_name(exe);
  return starts_with(name, "ccache") || starts_with(name, "sccache");
}

/* `-###` only prints the driver's jobs: nothing to cache, and sccache 0.4 fails on it. */
static bool prints_jobs_only(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-###") == 0)
      return true;
  return false;
}

static bool wants_direct_exec(int argc, char** argv) {
  return env_is("SHIMCTL_DISABLE", "1") || getenv("SHIMCTL_ACTIVE") ||
         prints_jobs_only(argc, argv) || parent_is_cache_launcher();
}

/* The prefix shimctl manages: the parent of the state dir; false when unknown. */
static bool prefix_of_state(char out[PATH_MAX]) {
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
  if (trace)
    say("restored ", path, NULL);
  execve(path, argv, environ);
}

static _Noreturn void exec_original(const char* real, const char* name, char** argv) {
  if (trace)
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
static _Noreturn void run_without_config(char** argv, const char* invoked, const char* why) {
  const char* names[] = { invoked, self_name };
  int count = strcmp(invoked, self_name) == 0 ? 1 : 2;
  char real[PATH_MAX];
  for (int i = 0; i < count; i++)
    if (path_in_self_dir(real, names[i], ".real") && access(real, X_OK) == 0)
      exec_original(real, names[i], argv);
  /* A rollback renamed the original back over us between our exec and reading the config:
   * the name now holds the original compiler. */
  if (self_replaced && access(self_path, X_OK) == 0)
    exec_original(self_path, NULL, argv);
  for (int i = 0; i < count; i++)
    exec_if_restored(names[i], argv);
  say(why, "; run 'shimctl verify'", NULL);
  _exit(127);
}

static bool push_env(char* entry) {
  if (cache_env_count + 1 >= MAX_ENV)
    return false;
  cache_env[cache_env_count++] = entry;
  return true;
}

/* Index of the first "NAME=" entry (name_len counts the '='), as getenv finds it; -1 if none. */
static long find_env(const char* name, size_t name_len) {
  for (size_t i = 0; i < cache_env_count; i++)
    if (strncmp(cache_env[i], name, name_len) == 0)
      return (long)i;
  return -1;
}

/* "NAME=OLD" + ":" + VALUE in env_arena; NULL when full. */
static char* joined_value(const char* old_entry, const char* value) {
  size_t old_len = strlen(old_entry), value_len = strlen(value);
  if (env_arena_used + old_len + value_len + 2 > sizeof env_arena)
    return NULL;
  char* out = env_arena + env_arena_used;
  memcpy(out, old_entry, old_len);
  out[old_len] = ':';
  memcpy(out + old_len + 1, value, value_len + 1);
  env_arena_used += old_len + value_len + 2;
  return out;
}

/* ---- The target in the cache key --------------------------------------------------------
 * What decides the object besides the command line, the sources and the toolchain's files:
 * variables the driver reads (HCC_AMDGPU_TARGET, NVCC_APPEND_FLAGS, ...: the config's keyenv
 * lines) and, when hipcc picks the GPU targets itself, this machine's GPUs (the config's
 * target-probe: hipcc runs rocm_agent_enumerator). Neither reaches ccache or sccache on its
 * own, so a build for another GPU would be served this one's object. */

static char target_key[TARGET_KEY_MAX];
static size_t target_key_len;

static bool key_append(const char* a, const char* b, const char* c) {
  size_t len =
    concat(target_key + target_key_len, sizeof target_key - target_key_len, a, b, c, NULL);
  if (target_key_len + len >= sizeof target_key)
    return false;
  target_key_len += len;
  return true;
}

enum target { TARGET_DEFAULT, TARGET_EXPLICIT, TARGET_NATIVE };

/* ARG names a GPU target (--offload-arch=X, --offload-arch X, -arch=X, ...): its value, else
 * NULL. NEXT is the following argument, for the two-argument form. */
static const char* target_value(const char* arg, const char* next) {
  static const char* const flags[] = { "--offload-arch",     "--amdgpu-target", "--cuda-gpu-arch",
                                       "--gpu-architecture", "-arch",           NULL };
  if (arg[0] != '-' || (arg[1] != '-' && arg[1] != 'a'))
    return NULL; /* most arguments: not one of the flags */
  for (int i = 0; flags[i]; i++) {
    if (!starts_with(arg, flags[i]))
      continue;
    const char* rest = arg + strlen(flags[i]);
    if (*rest == '=')
      return rest + 1;
    if (*rest == '\0')
      return next ? next : "";
  }
  return NULL;
}

/* ARG asks for this machine's CPU: -march=native, -mcpu=native, -mtune=native, also inside
 * nvcc's -Xcompiler lists. */
static bool names_host_cpu(const char* arg) {
  return strstr(arg, "=native") && (strstr(arg, "-march=native") || strstr(arg, "-mcpu=native") ||
                                    strstr(arg, "-mtune=native"));
}

/* SO_FAR, after one more place named a target (NATIVE: the machine's own). */
static enum target named_target(enum target so_far, bool native) {
  return native || so_far == TARGET_NATIVE ? TARGET_NATIVE : TARGET_EXPLICIT;
}

/* What a call's arguments (and HIPCC_COMPILE_FLAGS_APPEND, HCC_AMDGPU_TARGET) say that the key
 * must follow, from one pass over ARGV. A response file could name a target: counted as naming
 * none (the probe then keys by this machine's GPUs). */
struct call_traits {
  enum target target;
  bool host_cpu;      /* -march=native and the like */
  bool cached_output; /* the cache may store the result: -c or -S, and no -E (preprocessing,
                         links and probes such as --version pass through it; aiter probes each
                         flag with hipcc -E) */
};

static struct call_traits traits_of(int argc, char** argv) {
  struct call_traits c = { TARGET_DEFAULT, false, false };
  bool preprocesses = false;
  for (int i = 1; i < argc; i++) {
    const char* value = target_value(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
    if (value)
      c.target = named_target(c.target, starts_with(value, "native"));
    c.host_cpu = c.host_cpu || names_host_cpu(argv[i]);
    if (strcmp(argv[i], "-E") == 0)
      preprocesses = true;
    else if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "-S") == 0)
      c.cached_output = true;
  }
  c.cached_output = c.cached_output && !preprocesses;
  const char* amdgpu = getenv("HCC_AMDGPU_TARGET");
  if (amdgpu && *amdgpu)
    c.target = named_target(c.target, starts_with(amdgpu, "native"));
  const char* append = getenv("HIPCC_COMPILE_FLAGS_APPEND");
  if (append && (strstr(append, "--offload-arch") || strstr(append, "--amdgpu-target")))
    c.target = named_target(c.target, strstr(append, "native") != NULL);
  return c;
}

/* Runs ARGS[0] with ARGS, stdin and stderr /dev/null (the compile's streams belong to the
 * compiler), and reads its stdout into OUT (NUL-terminated; *len == cap - 1: it said more than
 * fits). False when it could not be started or waited for; else *status is its wait status. */
static bool run_and_read(char* const args[], char* out, size_t cap, size_t* len, int* status) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return false;
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
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

/* Runs PROBE and appends ";gpus=<its output>" to the key, newlines as commas; its exit status
 * too when not 0. */
static bool key_probe(const char* probe) {
  char out[4096];
  char* args[] = { (char*)probe, NULL };
  size_t len;
  int status = 0;
  if (!run_and_read(args, out, sizeof out, &len, &status) || len == sizeof out - 1)
    return false; /* more than any GPU list: the key would be cut */
  for (char* c = out; *c; c++)
    if (*c == '\n')
      *c = ',';
  char num[24];
  const char* rc =
    WIFEXITED(status) ? format_unsigned((unsigned)WEXITSTATUS(status), num) : "signal";
  return key_append(";gpus=", out, "") &&
         (WIFEXITED(status) && WEXITSTATUS(status) == 0 ? true
                                                        : key_append(";probe-status=", rc, ""));
}

/* Appends ";cpu=..." with what /proc/cpuinfo says of the first CPU that decides what
 * -march=native means (vendor, family, model, name, cache size, feature flags). */
static bool key_host_cpu(void) {
  static char info[65536];
  static const char* const fields[] = {
    "vendor_id",   "cpu family", "model",    "model name",      "stepping",
    "cache size",  "flags",      "Features", "CPU implementer", "CPU architecture",
    "CPU variant", "CPU part",   "isa",      "uarch",           NULL
  };
  size_t len;
  if (!read_small_file("/proc/cpuinfo", info, sizeof info - 2, &len, false) || len == 0)
    return false;
  if (!key_append(";cpu=", "", ""))
    return false;
  for (char* line = info; line < info + len && *line != '\n';) { /* the first block */
    char* newline = memchr(line, '\n', (size_t)(info + len - line));
    if (!newline)
      break;
    *newline = '\0';
    char* colon = strchr(line, ':');
    if (colon) {
      char* name_end = colon;
      while (name_end > line && (name_end[-1] == ' ' || name_end[-1] == '\t'))
        name_end--;
      for (int i = 0; fields[i]; i++)
        if ((size_t)(name_end - line) == strlen(fields[i]) &&
            strncmp(line, fields[i], strlen(fields[i])) == 0 && !key_append(line, "|", ""))
          return false;
    }
    line = newline + 1;
  }
  return true;
}

/* Fills target_key for COMPILER called with ARGV. False: the object depends on what cannot be
 * keyed (a native target and no probe, a failed probe, a key too long): compile uncached. */
static bool build_target_key(const struct directive* compiler, int argc, char** argv) {
  const struct directive* probe = NULL;
  for (size_t i = 0; i < directive_count; i++) {
    const struct directive* d = &directives[i];
    if (d->kind == PROBE && strcmp(d->arg1, compiler->arg1) == 0)
      probe = d;
    if (d->kind != KEYENV)
      continue;
    const char* value = getenv(d->arg1);
    if (value && !(key_append(";", d->arg1, "=") && key_append(value, "", "")))
      return false;
  }
  struct call_traits call = traits_of(argc, argv);
  if (call.host_cpu && !key_host_cpu())
    return false;
  if (call.target == TARGET_NATIVE && !probe)
    return false;
  if (probe && call.target != TARGET_EXPLICIT && call.cached_output)
    return key_probe(probe->arg2);
  return true;
}

/* NAME=VALUE with target_key appended, in env_arena; NULL when full. */
static char* with_target_key(const char* entry) {
  size_t len = strlen(entry);
  if (env_arena_used + len + target_key_len + 1 > sizeof env_arena)
    return NULL;
  char* out = env_arena + env_arena_used;
  memcpy(out, entry, len);
  memcpy(out + len, target_key, target_key_len + 1);
  env_arena_used += len + target_key_len + 1;
  return out;
}

/* environ + setenv defaults + appendenv + SHIMCTL_ACTIVE=1, into cache_env. */
static bool build_cache_environment(void) {
  for (char** e = environ; *e; e++)
    if (!push_env(*e))
      return false;
  for (size_t i = 0; i < directive_count; i++) {
    const struct directive* d = &directives[i];
    if (d->kind != SETENV && d->kind != APPENDENV)
      continue;
    size_t name_len = (size_t)(strchr(d->arg1, '=') - d->arg1) + 1;
    long at = find_env(d->arg1, name_len);
    if (at < 0) {
      if (!push_env(d->arg1))
        return false;
    } else if (d->kind == APPENDENV && cache_env[at][name_len] == '\0') {
      cache_env[at] = d->arg1; /* set but empty: nothing to append to */
    } else if (d->kind == APPENDENV) {
      if (!(cache_env[at] = joined_value(cache_env[at], d->arg1 + name_len)))
        return false;
    }
  }
  if (keyed_by_identity &&
      !push_env(target_key_len ? with_target_key(compiler_check_entry) : compiler_check_entry))
    return false;
  if (!cache_is_ccache && target_key_len) { /* sccache: its cache buster carries the key */
    long at = find_env("SCCACHE_C_CUSTOM_CACHE_BUSTER=", 30);
    if (at < 0 || !(cache_env[at] = with_target_key(cache_env[at])))
      return false;
  }
  if (!push_env(active_entry))
    return false;
  cache_env[cache_env_count] = NULL;
  return true;
}

/* The compiler as the cache tool should run it: the path the caller used. */
static char* compiler_for_cache(char* argv0, const char* invoked, bool known) {
  static char path[PATH_MAX];
  if (argv0 && strchr(argv0, '/'))
    return argv0;
  if (known && path_in_self_dir(path, invoked, ""))
    return path;
  if (!known && find_in_path(invoked, path))
    return path;
  return self_path;
}

static bool build_cache_arguments(int argc, char** argv, char* compiler) {
  if ((size_t)argc + 2 > MAX_ARGS)
    return false;
  size_t n = 0;
  cache_argv[n++] = cache_path;
  cache_argv[n++] = compiler;
  for (int i = 1; i < argc; i++)
    cache_argv[n++] = argv[i];
  cache_argv[n] = NULL;
  return true;
}

/* ccache fails the compile ("Failed to create directory ...") when its cache directory is not
 * writable, e.g. a root-owned --cache-dir used by another user. Returns that directory, or NULL
 * when the cache can be used: one access(2) on the hot path. */
static const char* unwritable_ccache_dir(void) {
  static char parent[PATH_MAX];
  if (!cache_is_ccache)
    return NULL;
  long at = find_env("CCACHE_DIR=", sizeof "CCACHE_DIR=" - 1);
  const char* dir = at < 0 ? NULL : cache_env[at] + sizeof "CCACHE_DIR=" - 1;
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

/* Appends "<unix time> <event> <cache> <reason>" to state/events.log, best effort. */
static void log_event(const char* event, const char* reason) {
  char path[PATH_MAX], line[PATH_MAX + 256], num[24];
  if (!state_dir || concat(path, sizeof path, state_dir, "/events.log", NULL) >= sizeof path)
    return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  const char* now = format_unsigned((unsigned long long)time(NULL), num);
  size_t len = concat(line, sizeof line, now, " ", event, " ", cache_path, " ", reason, "\n", NULL);
  if (len < sizeof line) /* one write(2): O_APPEND keeps concurrent lines whole */
    write_best_effort(fd, line, len);
  close(fd);
}

/* log_event, unless the end of events.log already holds the same event and reason: a file
 * that every compile in a directory finds is reported once, not once per compile. */
static void log_event_once(const char* event, const char* reason) {
  static char tail[16384];
  char path[PATH_MAX], needle[PATH_MAX + 256];
  size_t needle_len =
    concat(needle, sizeof needle, " ", event, " ", cache_path, " ", reason, "\n", NULL);
  if (state_dir && needle_len < sizeof needle &&
      concat(path, sizeof path, state_dir, "/events.log", NULL) < sizeof path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* ---- ccache's directory configuration files ---------------------------------------------
 * ccache >= 4.13 also reads the first ccache.conf it finds in the compile's working directory
 * or a parent (it stops at $HOME, its ceiling_dirs, a directory holding .git, a mount point,
 * another user's directory). Such a file outranks the cache's own ccache.conf, though not the
 * environment: it could switch the cache off (disable), take the directory out of the key of a
 * -g compile (hash_dir = false), drop options from the key (ignore_options), or fail every
 * compile (an option this ccache does not know, or one a directory file may not set). A shimmed
 * compile reads none: CCACHE_CEILING_DIRS names the working directory, where ccache stops before
 * reading (ccache < 4.13 ignores the variable). A file that is there is reported once in
 * events.log. ccache splits ceiling_dirs at ':', so a working directory with a ':' cannot be
 * named: if a ccache.conf is there, that compile runs uncached. */

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
static bool find_directory_config(const char* dir, char found[PATH_MAX]) {
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

/* Names the working directory in CCACHE_CEILING_DIRS (in cache_env). False when it cannot and
 * a ccache.conf may be read: *REASON says why; the compile must run uncached. */
static bool pin_directory_config(const char** reason) {
  static char cwd[PATH_MAX], found[PATH_MAX], entry[sizeof "CCACHE_CEILING_DIRS=" + PATH_MAX];
  if (!getcwd(cwd, sizeof cwd) || cwd[0] != '/') {
    *reason = "(working directory unknown)";
    return false;
  }
  bool present = find_directory_config(cwd, found);
  if (strchr(cwd, ':')) {
    *reason = found;
    return !present;
  }
  if (present) {
    if (trace)
      say("ignoring ", found, " (ccache directory configuration)", NULL);
    log_event_once("ccache-conf-ignored", found);
  }
  const size_t name_len = sizeof "CCACHE_CEILING_DIRS=" - 1;
  concat(entry, sizeof entry, "CCACHE_CEILING_DIRS=", cwd, NULL);
  long at = find_env(entry, name_len);
  char* value = entry;
  if (at >= 0 && cache_env[at][name_len] != '\0')
    value = joined_value(cache_env[at], cwd); /* the caller's ceilings stay */
  if (value && at >= 0) {
    cache_env[at] = value;
  } else if (value && push_env(value)) {
    cache_env[cache_env_count] = NULL;
  } else {
    *reason = "(environment too large)";
    return false;
  }
  return true;
}

static bool is_fingerprint(const char* s) {
  for (int i = 0; i < 64; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return s[64] == '\0' || s[64] == '\n';
}

/* Reads a decimal number followed by one space. */
static bool parse_number(char** cursor, unsigned long long* out) {
  char* p = *cursor;
  unsigned long long value = 0;
  if (*p < '0' || *p > '9')
    return false;
  while (*p >= '0' && *p <= '9')
    value = value * 10 + (unsigned long long)(*p++ - '0');
  if (*p != ' ')
    return false;
  *cursor = p + 1;
  *out = value;
  return true;
}

static unsigned long long nanoseconds(struct timespec t) {
  return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

/* One input line of the snapshot, "INODE SIZE MTIME_NS CTIME_NS NAME": unchanged since then? */
static bool input_unchanged(int dir_fd, char* line) {
  unsigned long long ino, size, mtime, ctime;
  struct stat st;
  return dir_fd >= 0 && parse_number(&line, &ino) && parse_number(&line, &size) &&
         parse_number(&line, &mtime) && parse_number(&line, &ctime) && *line &&
         fstatat(dir_fd, line, &st, 0) == 0 && st.st_ino == ino &&
         (unsigned long long)st.st_size == size && nanoseconds(st.st_mtim) == mtime &&
         nanoseconds(st.st_ctim) == ctime;
}

/* The identity guard. A snapshot holds the toolchain fingerprint and, per input file, the stat
 * data it had when it was hashed (grouped under "dir PATH" lines). When every input still has
 * that stat data, the fingerprint is current: its first digits go to KEY. Any change (content,
 * a replaced file, a touch) makes the snapshot stale. The user's own snapshot (see
 * user_snapshot_path) must be the user's file and start with this prefix's manifest. */
static bool snapshot_is_current(const char* path, bool users_own, char* key) {
  size_t len;
  if (!read_small_file(path, identity_text, IDENTITY_MAX, &len, users_own) || len == 0 ||
      len > IDENTITY_MAX)
    return false;
  char* end = identity_text + len;
  if (end[-1] != '\n')
    return false; /* every line ends with a newline: a truncated snapshot is stale */
  int dir_fd = -1;
  unsigned lineno = 0;
  bool current = true;
  for (char* line = identity_text; current && line < end; lineno++) {
    char* newline = memchr(line, '\n', (size_t)(end - line));
    *newline = '\0';
    if (lineno == 0) {
      current = strcmp(line, IDENTITY_HEADER) == 0;
    } else if (lineno == 1) {
      current = starts_with(line, "fingerprint ") && is_fingerprint(line + 12);
      if (current)
        memcpy(key, line + 12, FINGERPRINT_KEY_LEN);
    } else if (lineno == 2 && users_own &&
               !(starts_with(line, "dir ") && strcmp(line + 4, state_dir) == 0)) {
      current = false; /* another prefix's */
    } else if (starts_with(line, "dir ")) {
      if (dir_fd >= 0)
        close(dir_fd);
      dir_fd = open(line + 4, O_PATH | O_DIRECTORY | O_CLOEXEC);
      current = dir_fd >= 0;
    } else {
      current = input_unchanged(dir_fd, line);
    }
    line = newline + 1;
  }
  if (dir_fd >= 0)
    close(dir_fd);
  return current && lineno >= (users_own ? 4 : 2);
}

/* Where a user who may not write the prefix's state dir keeps the snapshot the helper made for
 * them: ${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/identity/<prefix, '%' and '/' as %25 and %2F>
 * (the same rule as user_snapshot_path in installer/shimctl/core/user_snapshot.cpp). */
static bool user_snapshot_path(char out[PATH_MAX]) {
  char prefix[PATH_MAX];
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  size_t len;
  if (xdg && xdg[0] == '/')
    len = concat(out, PATH_MAX, xdg, "/shimctl/identity/", NULL);
  else if (home && home[0] == '/')
    len = concat(out, PATH_MAX, home, "/.cache/shimctl/identity/", NULL);
  else
    return false;
  if (len >= PATH_MAX || !prefix_of_state(prefix))
    return false;
  size_t name_start = len;
  for (const char* c = prefix; *c; c++) {
    const char* piece = *c == '/' ? "%2F" : *c == '%' ? "%25" : NULL;
    size_t n = piece ? 3 : 1;
    if (len + n >= PATH_MAX || len + n - name_start > NAME_MAX)
      return false;
    memcpy(out + len, piece ? piece : c, n);
    len += n;
  }
  out[len] = '\0';
  return true;
}

/* A stale snapshot: `IDENTITY_HELPER identity-check PREFIX` hashes the inputs, rewrites the
 * snapshot when it may, and prints the fingerprint. Its stdin and stderr are /dev/null: the
 * compile's streams belong to the compiler. */
static bool helper_fingerprint(char* key) {
  static char command[] = "identity-check";
  char prefix[PATH_MAX], out[128];
  char* args[] = { identity_helper, command, prefix, NULL };
  size_t len;
  int status = 0;
  if (!prefix_of_state(prefix) || !run_and_read(args, out, sizeof out, &len, &status) ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !is_fingerprint(out))
    return false;
  memcpy(key, out, FINGERPRINT_KEY_LEN);
  return true;
}

/* Puts the toolchain's current fingerprint into compiler_check_entry; false when unknown. */
static bool know_identity(void) {
  char* key = compiler_check_entry + sizeof compiler_check_entry - 1 - FINGERPRINT_KEY_LEN;
  char path[PATH_MAX];
  if (state_dir && concat(path, sizeof path, state_dir, "/" IDENTITY_NAME, NULL) < sizeof path &&
      snapshot_is_current(path, false, key)) {
    if (trace)
      say("identity current (snapshot)", NULL);
    return true;
  }
  if (user_snapshot_path(path) && snapshot_is_current(path, true, key)) {
    if (trace)
      say("identity current (user snapshot ", path, ")", NULL);
    return true;
  }
  if (trace)
    say("identity snapshot stale: asking ", identity_helper, NULL);
  return helper_fingerprint(key);
}

int main(int argc, char** argv) {
  char* argv0 = argc > 0 ? argv[0] : NULL;
  /* A nested shim's lines would land in the output ccache stores and replays on every hit. */
  trace = env_is("SHIMCTL_SHIM_TRACE", "1") && !getenv("SHIMCTL_ACTIVE");
  if (!locate_self(argv0)) {
    say("cannot find its own executable (/proc/self/exe); run 'shimctl verify'", NULL);
    return 127;
  }
  const char* invoked = argv0 && *base_name(argv0) ? base_name(argv0) : self_name;
  const char* why = load_config();
  if (why)
    run_without_config(argv, invoked, why);
  bool known;
  const struct directive* compiler = resolve_compiler(invoked, &known);
  if (!compiler) {
    concat(problem, sizeof problem, "no compiler entry for '", invoked, "' in ", config_path, NULL);
    run_without_config(argv, invoked, problem);
  }
  if (strcmp(compiler->arg2, self_name) == 0) { /* it would exec itself forever */
    concat(problem, sizeof problem, "the original of '", invoked, "' is the shim itself", NULL);
    run_without_config(argv, invoked, problem);
  }
  char real[PATH_MAX];
  if (!path_in_self_dir(real, compiler->arg2, ""))
    run_without_config(argv, invoked, "path too long");
  if (wants_direct_exec(argc, argv))
    exec_original(real, compiler->arg1, argv);

  /* The user's own CCACHE_COMPILERCHECK wins, as every default does. */
  keyed_by_identity = identity_helper && cache_is_ccache && !getenv("CCACHE_COMPILERCHECK");
  if (keyed_by_identity && !know_identity()) {
    log_event("identity-unknown", identity_helper);
    if (env_is("SHIMCTL_STRICT", "1")) {
      say("cannot establish the toolchain identity: ",
          identity_helper,
          " identity-check failed",
          STRICT_HINT,
          NULL);
      return 1;
    }
    exec_original(real, compiler->arg1, argv);
  }
  /* The target key rides on shimctl's own key: ccache keyed by identity, or sccache's buster. */
  if ((keyed_by_identity || !cache_is_ccache) && !build_target_key(compiler, argc, argv)) {
    log_event("target-unkeyed", compiler->arg1);
    if (trace)
      say("the GPU target cannot be keyed (a native target, or the probe failed): uncached", NULL);
    exec_original(real, compiler->arg1, argv);
  }
  if (trace && target_key_len)
    say("target key ", target_key, NULL);
  if (build_cache_environment() &&
      build_cache_arguments(argc, argv, compiler_for_cache(argv0, invoked, known))) {
    const char* unpinned = NULL;
    if (cache_is_ccache && !pin_directory_config(&unpinned)) {
      log_event_once("ccache-conf-unpinned", unpinned);
      if (env_is("SHIMCTL_STRICT", "1")) {
        say("cannot keep ccache from reading ", unpinned, STRICT_HINT, NULL);
        return 1;
      }
      exec_original(real, compiler->arg1, argv);
    }
    const char* unwritable = unwritable_ccache_dir();
    if (unwritable) {
      log_event("cache-dir-unwritable", unwritable);
      if (env_is("SHIMCTL_STRICT", "1")) {
        say("cache directory ", unwritable, " is not writable by this user", STRICT_HINT, NULL);
        return 1;
      }
      exec_original(real, compiler->arg1, argv);
    }
    if (trace)
      say("cache ", cache_path, " ", cache_argv[1], NULL);
    execve(cache_path, cache_argv, cache_env);
    const char* reason = strerror(errno);
    log_event("cache-missing", reason);
    if (env_is("SHIMCTL_STRICT", "1")) {
      say("cache tool ", cache_path, " cannot run: ", reason, STRICT_HINT, NULL);
      return 1;
    }
  }
  exec_original(real, compiler->arg1, argv); /* the cache layer must never fail a compile */
}
