/* shimctl-shim: installed by shimctl in place of a compiler; runs the original compiler either
 * directly or through the cache tool, as "The shim contract" in ARCHITECTURE.md describes.
 *
 * It runs on every compile, so the hot path allocates nothing, uses no stdio and makes few
 * syscalls: readlink(/proc/self/exe), open/read/close of the config, the parent check (only
 * outside a nested call), then execve. It never writes to stdout; its rare messages go to
 * stderr in one write(2) each. A compile must never fail because of the cache layer: whenever
 * the cache cannot be used, the original compiler runs directly.
 *
 * Files: main.c (this: the decisions, the cache tool's environment and arguments), sys.c (every
 * system call), identity_guard.c (the fingerprint for the key), sccache_server.c (a running sccache
 * server before sccache is exec'd), cache_run.c (the cache tool as a child), own_depfile.c (a
 * depfile for ccache's depend mode), call_memo.c (probe calls answered once), probe_memo.c, and the
 * pure parts in the library shimctl-shim-formats: config.c, identity_snapshot.c (formats.h),
 * target_key.c, text.c. */
#define _GNU_SOURCE
#include "call_memo.h"
#include "probe_memo.h"
#include "shim.h"
#include "target_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef SHIMCTL_SHIM_VERSION
#define SHIMCTL_SHIM_VERSION "0.1.0"
#endif

/* Lets `strings` tell an installed shim's version without running it (running it compiles). */
__attribute__((used)) static const char shim_ident[] = "@(#)shimctl-shim " SHIMCTL_SHIM_VERSION;

#define MAX_ARGS 131072         /* arguments handed to the cache tool */
#define TARGET_KEY_MAX 16384    /* the environment and GPU targets in the cache key */
#define ENV_ARENA (1024 * 1024) /* room for appendenv results */
/* Static arrays live in .bss: pages never touched cost nothing. Past these bounds the cache is
 * skipped and the original compiler runs directly. */

extern char** environ;

struct shim shim;
static char* cache_argv[MAX_ARGS];
static char* cache_env[SHIM_MAX_ENV];
static size_t cache_env_count;
static char env_arena[ENV_ARENA];
static size_t env_arena_used;
static char active_entry[] = "SHIMCTL_ACTIVE=1";
static char no_pieces_entry[] = "SHIMCTL_PIECES=0";
static bool keyed_by_identity; /* compiler_check_entry goes to the cache tool (decided in main) */
static char compiler_check_entry[] = "CCACHE_COMPILERCHECK=string:shimctl-"
                                     "................................";
static char target_key_text[TARGET_KEY_MAX];
/* How ccache's depend mode meets this call (plan_depend_mode). */
enum depend_plan { DEPEND_AS_SET, DEPEND_OFF, DEPEND_OWN_FILE, DEPEND_UNCACHED };
static enum depend_plan depend_plan;
static char own_depfile[PATH_MAX];
static char nodepend_entry[] = "CCACHE_NODEPEND=1";
static char depend_mode_entry[] = "CCACHE_DEPEND=1";
static struct target_key target_key = { target_key_text, sizeof target_key_text, 0 };

/* The compiler entry for the invoked name: its own, its alias's, or else N's.
 * *known tells whether the invoked name itself is in the config. */
static const struct shimctl_compiler* resolve_compiler(const char* invoked, bool* known) {
  const struct shimctl_compiler* c = shimctl_find_compiler(&shim.config, invoked);
  const struct shimctl_alias* alias = c ? NULL : shimctl_find_alias(&shim.config, invoked);
  if (alias)
    c = shimctl_find_compiler(&shim.config, alias->compiler);
  *known = c != NULL;
  return c ? c : shimctl_find_compiler(&shim.config, shim.self_name);
}

/* `-###` only prints the driver's jobs: nothing to cache, and sccache 0.4 fails on it. */
static bool prints_jobs_only(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-###") == 0)
      return true;
  return false;
}

/* A call the shim hands on untouched: nested (hipcc -> clang++, or the cache running the
 * compiler), under a cache launcher, or `-###`. */
static bool passes_through(int argc, char** argv) {
  return getenv("SHIMCTL_ACTIVE") || prints_jobs_only(argc, argv) || parent_is_cache_launcher();
}

static bool push_env(char* entry) {
  if (cache_env_count + 2 >= SHIM_MAX_ENV)
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

/* NAME=VALUE with the target key appended, in env_arena; NULL when full. */
static char* with_target_key(const char* entry) {
  size_t len = strlen(entry);
  if (env_arena_used + len + target_key.len + 1 > sizeof env_arena)
    return NULL;
  char* out = env_arena + env_arena_used;
  memcpy(out, entry, len);
  memcpy(out + len, target_key.buf, target_key.len + 1);
  env_arena_used += len + target_key.len + 1;
  return out;
}

/* Fills target_key for COMPILER called with ARGV. False: the object depends on what cannot be
 * keyed (a native target and no probe, a failed probe, a key too long): compile uncached. */
static bool build_target_key(const struct shimctl_compiler* compiler, struct call_traits call) {
  for (size_t i = 0; i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    const char* value = d->kind == SHIMCTL_KEYENV ? getenv(d->u.variable) : NULL;
    if (value && !(key_append(&target_key, ";", d->u.variable, "=") &&
                   key_append(&target_key, value, "", "")))
      return false;
  }
  if (call.host_cpu) {
    static char info[65536];
    size_t len;
    if (!read_small_file("/proc/cpuinfo", info, sizeof info - 2, &len, false) ||
        !key_host_cpu(&target_key, info, len))
      return false;
  }
  if (call.target == TARGET_EXPLICIT)
    return true;
  /* --offload-arch=native: what the compiler runs for it (clang's amdgpu-arch, nvcc's
   * __nvcc_device_query); no target at all: what hipcc runs (rocm_agent_enumerator). */
  const struct shimctl_target_probe* probe =
    shimctl_find_probe(&shim.config,
                       call.target == TARGET_NATIVE ? SHIMCTL_NATIVE_PROBE : SHIMCTL_TARGET_PROBE,
                       compiler->name);
  if (!probe)
    return call.target != TARGET_NATIVE;
  char out[4096];
  size_t len;
  int status = 0;
  if (!run_probe_memoised(probe->probe, out, sizeof out, &len, &status) || len == sizeof out - 1)
    return false; /* more than any GPU list: the key would be cut */
  return key_probe_output(&target_key, out, status) && key_visibility(&target_key);
  return true;
}

/* ENTRY's CCACHE_NO<X> (or CCACHE_<X>) form is in the environment: the user set the default. */
static bool overridden_by_negation(const char* entry) {
  char other[256];
  size_t len = shimctl_negated_env_name(other, sizeof other, entry);
  return len && find_env(other, len) >= 0;
}

/* The working directory, read once; NULL when unknown. */
static const char* current_dir(void) {
  static char cwd[PATH_MAX];
  static bool read;
  if (!read)
    read = getcwd(cwd, sizeof cwd) && cwd[0] == '/';
  return read ? cwd : NULL;
}

/* The build tree the compile runs in (find_build_root), looked up once; NULL when none. */
static const char* build_root(void) {
  static char root[PATH_MAX];
  static int found = -1;
  if (found < 0)
    found = current_dir() && find_build_root(current_dir(), root);
  return found ? root : NULL;
}

/* The base_dir ccache uses for this compile: the user's CCACHE_BASEDIR (NULL when set but empty),
 * else the build tree's root. NULL: none. */
static const char* base_dir(void) {
  const char* user = getenv("CCACHE_BASEDIR");
  if (user)
    return *user == '/' ? user : NULL;
  return build_root();
}

/* ccache's base_dir, by default the build tree the compile runs in (build_root in sys.c): paths
 * under it (-I<build dir>/..., generated headers, depfiles) become relative to the working
 * directory, so a fresh build directory of the same sources gets the same keys. Paths outside it
 * (the source tree, the toolchain) stay absolute. A -g compile keeps its directory in the key
 * (ccache's hash_dir), so no debug info of another directory is served. The user's own
 * CCACHE_BASEDIR wins (empty: none). False when the environment is full. */
static bool push_build_root_base_dir(void) {
  static char entry[sizeof "CCACHE_BASEDIR=" + PATH_MAX];
  if (getenv("CCACHE_BASEDIR") || !build_root())
    return true;
  concat(entry, sizeof entry, "CCACHE_BASEDIR=", build_root(), NULL);
  if (shim.trace)
    say("base_dir ", build_root(), " (the build tree)", NULL);
  return push_env(entry);
}

/* The secrets file's NAME=VALUE lines (a remote's credential: formats.h) as defaults, ahead of
 * the config's setenv lines so that they win over those of the same name; the user's own
 * environment wins over both. A user who may not read the file compiles with the config's values
 * (without the remote). False when the environment is full. */
static bool push_secrets(void) {
  static char text[SHIMCTL_SECRETS_MAX + 1];
  size_t len;
  const char* path = shim.config.secrets_path;
  if (!path)
    return true;
  if (!read_protected_file(path, text, SHIMCTL_SECRETS_MAX, &len) || len > SHIMCTL_SECRETS_MAX) {
    if (shim.trace)
      say("secrets ", path, " not readable (", strerror(errno), "): no remote storage", NULL);
    return true;
  }
  for (char* line = text; line < text + len;) {
    char* newline = strchr(line, '\n');
    if (newline)
      *newline = '\0';
    char* eq = strchr(line, '=');
    if (line[0] != '#' && eq && eq != line && find_env(line, (size_t)(eq - line) + 1) < 0 &&
        !push_env(line))
      return false;
    line = newline ? newline + 1 : text + len;
  }
  return true;
}

/* Under SHIMCTL_SHIM_TRACE=1 with ccache: the shim's stderr, kept open as another descriptor and
 * named in SHIMCTL_TRACE_FD=<fd>:<device>:<inode>, for `shimctl compile-pieces` under ccache to
 * trace to (its own stderr goes into the cached result: ccache replays it on every hit). Not
 * with sccache: its server runs the compile, and a server the shim starts would inherit the
 * descriptor and hold the caller's terminal or pipe open for its whole life. */
static bool push_trace_fd(void) {
  static char entry[96];
  struct stat st;
  int fd = fcntl(2, F_DUPFD, 100);
  if (fd < 0 || fstat(fd, &st) != 0)
    return true; /* no trace from there, that is all */
  char fd_text[24], dev_text[24], ino_text[24];
  concat(entry,
         sizeof entry,
         "SHIMCTL_TRACE_FD=",
         shimctl_decimal((unsigned long long)fd, fd_text),
         ":",
         shimctl_decimal((unsigned long long)st.st_dev, dev_text),
         ":",
         shimctl_decimal((unsigned long long)st.st_ino, ino_text),
         NULL);
  return push_env(entry);
}

/* environ + secrets + setenv defaults + appendenv + CCACHE_BASEDIR + SHIMCTL_ACTIVE=1, into
 * cache_env. */
static bool build_cache_environment(void) {
  for (char** e = environ; *e; e++)
    if (!push_env(*e))
      return false;
  if (!push_secrets())
    return false;
  for (size_t i = 0; i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    if (d->kind != SHIMCTL_SETENV && d->kind != SHIMCTL_APPENDENV)
      continue;
    char* entry = (char*)d->u.env; /* execve does not write it */
    if (depend_plan == DEPEND_OFF && strcmp(entry, depend_mode_entry) == 0)
      continue;
    size_t name_len = (size_t)(strchr(entry, '=') - entry) + 1;
    long at = find_env(entry, name_len);
    if (at < 0 && d->kind == SHIMCTL_SETENV && overridden_by_negation(entry))
      continue;
    if (at < 0) {
      if (!push_env(entry))
        return false;
    } else if (d->kind == SHIMCTL_APPENDENV && cache_env[at][name_len] == '\0') {
      cache_env[at] = entry; /* set but empty: nothing to append to */
    } else if (d->kind == SHIMCTL_APPENDENV) {
      if (!(cache_env[at] = joined_value(cache_env[at], entry + name_len)))
        return false;
    }
  }
  if (shim.config.cache_is_ccache && !push_build_root_base_dir())
    return false;
  if (depend_plan == DEPEND_OFF && !push_env(nodepend_entry))
    return false;
  if (keyed_by_identity &&
      !push_env(target_key.len ? with_target_key(compiler_check_entry) : compiler_check_entry))
    return false;
  if (!shim.config.cache_is_ccache && target_key.len) { /* sccache: its buster carries the key */
    long at = find_env("SCCACHE_C_CUSTOM_CACHE_BUSTER=", 30);
    if (at < 0 || !(cache_env[at] = with_target_key(cache_env[at])))
      return false;
  }
  if (shim.trace && shim.config.cache_is_ccache && !push_trace_fd())
    return false;
  /* ccache sets CCACHE_DISABLE=1 for the compiler it runs, and the pieces unset it: when the
   * user set it, the compile is meant to run uncached, whole. */
  if (shim.config.cache_is_ccache && getenv("CCACHE_DISABLE") && !push_env(no_pieces_entry))
    return false;
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
  return shim.self_path;
}

/* PATH relative to the working directory when under it, else PATH. */
static const char* under_cwd(const char* path) {
  const char* cwd = current_dir();
  size_t len = cwd ? strlen(cwd) : 0;
  if (!cwd || !starts_with(path, cwd))
    return path;
  if (len == 1) /* cwd is / */
    return path + 1;
  return path[len] == '/' && path[len + 1] ? path + len + 1 : path;
}

/* PATH as ccache hands it to the compiler: relative to the working directory when under it, or
 * ("../" steps) when under base_dir, as ccache rewrites it; else PATH. BUF holds the result. */
static const char* as_compiled(const char* path, char buf[PATH_MAX]) {
  const char* rel = under_cwd(path);
  if (rel != path || path[0] != '/')
    return rel; /* relative already: no base_dir lookup (the common case: CMake, ninja) */
  const char* base = base_dir();
  const char* cwd = current_dir();
  if (!base || !cwd || !starts_with(path, base) ||
      (path[strlen(base)] != '/' && strcmp(base, "/") != 0))
    return rel;
  /* The directory both are under: up to the last '/' of their common start (PATH is not under
   * CWD, so that '/' ends a component of both). One "../" for each component of CWD below it. */
  size_t common = 0;
  for (size_t i = 0; cwd[i] && cwd[i] == path[i]; i++)
    if (cwd[i] == '/')
      common = i;
  size_t len = 0;
  for (const char* c = cwd + common; *c; c++)
    if (*c == '/' && (len += concat(buf + len, PATH_MAX - len, "../", NULL)) >= PATH_MAX)
      return path;
  if (concat(buf + len, PATH_MAX - len, path + common + 1, NULL) >= PATH_MAX - len)
    return path;
  return buf;
}

/* "-cuid=<value>" for CALL (formats.h), or NULL when the call gets none. */
static char* cuid_argument(const struct shimctl_compiler* compiler,
                           const struct call_traits* call) {
  static char arg[sizeof SHIMCTL_CUID_FLAG + SHIMCTL_CUID_HEX];
  char value[SHIMCTL_CUID_HEX + 1];
  if (!wants_cuid(call, starts_with(base_name(compiler->name), "hipcc")))
    return NULL;
  char source[PATH_MAX], output[PATH_MAX];
  shimctl_cuid_value(value,
                     as_compiled(call->source, source),
                     call->output ? as_compiled(call->output, output) : "");
  concat(arg, sizeof arg, SHIMCTL_CUID_FLAG, value, NULL);
  if (shim.trace)
    say("cuid ", value, " (source ", call->source, ")", NULL);
  return arg;
}

/* ARGV with EXTRA (the shim's -cuid=) appended, in own_argv; ARGV itself without EXTRA or when
 * it would not fit. Every compile the shim runs, cached or not, gets the same arguments. */
static char** compile_arguments(int argc, char** argv, char* extra) {
  static char* own_argv[MAX_ARGS];
  if (!extra || (size_t)argc + 2 > MAX_ARGS)
    return argv;
  memcpy(own_argv, argv, (size_t)argc * sizeof *argv);
  own_argv[argc] = extra;
  own_argv[argc + 1] = NULL;
  return own_argv;
}

/* The cache tool's arguments: the compiler, ARGV's arguments, and the shim's own depfile. */
static bool build_cache_arguments(char** argv, char* compiler) {
  static char md[] = "-MD", mf[] = "-MF";
  size_t n = 0;
  cache_argv[n++] = (char*)shim.config.cache_path;
  cache_argv[n++] = compiler;
  for (int i = 1; argv[i]; i++) {
    if (n + 4 >= MAX_ARGS)
      return false;
    cache_argv[n++] = argv[i];
  }
  if (depend_plan == DEPEND_OWN_FILE) {
    cache_argv[n++] = md;
    cache_argv[n++] = mf;
    cache_argv[n++] = own_depfile;
  }
  cache_argv[n] = NULL;
  return true;
}

/* The config gives ccache its depend mode (CCACHE_DEPEND=1; every install since depend mode). */
static bool config_sets_depend_mode(void) {
  for (size_t i = 0; i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    if (d->kind == SHIMCTL_SETENV && strcmp(d->u.env, depend_mode_entry) == 0)
      return true;
  }
  return false;
}

/* ccache's depend mode reads the compiler's depfile instead of running the preprocessor before a
 * miss. A HIP compile that names no depfile gets one of the shim's own (own_depfile.c): HIP's
 * preprocessing (host and device) is 20-40 % of a small kernel's compile. Not for C, C++ or nvcc
 * (their preprocessing is cheap; and ccache 4.7's depend mode gives a unit without headers the
 * same key for its manifest and its result, which then overwrite each other in remote storage).
 * A device-only compile runs without depend mode: clang-21 writes no depfile there (clang-15
 * does), and ccache would compile a second time. One that names a depfile all the same runs
 * uncached, under either tool: ccache 4.14 compiles a second time when the depfile it was
 * promised is missing, in either mode, and sccache 0.17 fails to store it and runs clang three
 * times (2.2x the uncached compile). The user's own CCACHE_DEPEND or CCACHE_NODEPEND wins
 * otherwise, and a response file (it may name a depfile), -S and several sources keep the
 * configured mode. */
static enum depend_plan plan_depend_mode(const struct shimctl_compiler* compiler,
                                         const struct call_traits* call) {
  if (call->device_only && call->names_dependencies)
    return DEPEND_UNCACHED; /* sccache too: it fails to store the missing depfile, compiles 3x */
  if (!shim.config.cache_is_ccache)
    return DEPEND_AS_SET;
  if (getenv("CCACHE_DEPEND") || getenv("CCACHE_NODEPEND") || !config_sets_depend_mode())
    return DEPEND_AS_SET;
  if (call->device_only)
    return DEPEND_OFF;
  if (!compiles_hip(call, starts_with(base_name(compiler->name), "hipcc")) ||
      !call->object_compile || call->names_dependencies || call->response_file ||
      (call->output && strcmp(call->output, "-") == 0))
    return DEPEND_AS_SET;
  return own_depfile_path(own_depfile) ? DEPEND_OWN_FILE : DEPEND_AS_SET;
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

/* Names the working directory in CCACHE_CEILING_DIRS (in cache_env). False when it cannot and
 * a ccache.conf may be read: *REASON says why; the compile must run uncached. */
static bool pin_directory_config(const char** reason) {
  static char found[PATH_MAX], entry[sizeof "CCACHE_CEILING_DIRS=" + PATH_MAX];
  const char* cwd = current_dir();
  if (!cwd) {
    *reason = "(working directory unknown)";
    return false;
  }
  bool present = find_directory_config(cwd, found);
  if (strchr(cwd, ':')) {
    *reason = found;
    return !present;
  }
  if (present) {
    if (shim.trace)
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

/* The cache dir the tool would use: CCACHE_DIR when set (else ccache picks its own default);
 * SCCACHE_DIR, else sccache's default, <cache home>/sccache. */
static const char* cache_dir(bool ccache) {
  static char dir[PATH_MAX];
  const char* name = ccache ? "CCACHE_DIR=" : "SCCACHE_DIR=";
  long at = find_env(name, strlen(name));
  if (at >= 0)
    return cache_env[at] + strlen(name);
  if (ccache)
    return NULL;
  size_t len = shimctl_user_cache_home(dir, sizeof dir, getenv("XDG_CACHE_HOME"), getenv("HOME"));
  return len && concat(dir + len, sizeof dir - len, "/sccache", NULL) < sizeof dir - len ? dir
                                                                                         : NULL;
}

/* For sccache: this user's own server (sccache_server.c) in cache_env, running. False, with
 * *WHY: the compile must run uncached. */
static bool own_sccache_server(const char** why) {
  const char* entry = sccache_server_entry(why);
  if (*why)
    return false;
  if (entry) { /* none when the user named a server: sccache_server_entry */
    if (!push_env((char*)entry))
      return false;
    cache_env[cache_env_count] = NULL;
  }
  return sccache_server_ready(shim.config.cache_path, cache_env, cache_env_count, why);
}

/* Why a call of KIND (not a compile the cache may store) runs without the cache tool. */
static enum shimctl_not_sent not_sent_reason(enum call_kind kind) {
  switch (kind) {
    case CALL_PREPROCESS:
      return SHIMCTL_NOT_SENT_PREPROCESS;
    case CALL_ONE_STEP:
      return SHIMCTL_NOT_SENT_ONE_STEP;
    case CALL_LINK:
      return SHIMCTL_NOT_SENT_LINK;
    case CALL_COMPILE:
    case CALL_NO_INPUT:
      break;
  }
  return SHIMCTL_NOT_SENT_NO_INPUT;
}

/* stdin holds nothing: /dev/null or an empty file (a pipe may hold a source). */
static bool stdin_is_empty(void) {
  struct stat st;
  return fstat(0, &st) == 0 && ((S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) ||
                                (S_ISREG(st.st_mode) && st.st_size == 0));
}

/* A probe call (is_memoisable_probe: aiter's `hipcc FLAG -x hip -E -P /dev/null -o /dev/null`)
 * answered once per toolchain, arguments and environment (call_memo.c): the exit code to pass
 * on, or -1 when it is no such call or cannot be memoised (no identity: the original runs). */
static int answer_probe(const char* real,
                        const struct shimctl_compiler* compiler,
                        struct call_traits call,
                        int argc,
                        char** argv) {
  char identity[FINGERPRINT_KEY_LEN + 1];
  if (call.kind != CALL_PREPROCESS || !shim.config.identity_helper ||
      !is_memoisable_probe(argc, argv, stdin_is_empty()) || !know_identity(identity) ||
      !build_target_key(compiler, call))
    return -1;
  identity[FINGERPRINT_KEY_LEN] = '\0';
  return answer_probe_call(real, identity, target_key.buf, argc, argv);
}

/* ---- Per-target pieces (installer/shimctl/pieces/) ---------------------------------------
 * The cache tool runs the compiler only on a miss, and then through this shim (SHIMCTL_ACTIVE):
 * there a clang HIP compile of one source for two or more GPU targets (with SHIMCTL_PIECES=1,
 * one too) goes to `shimctl compile-pieces`, which builds the object from one cached piece per
 * target (or runs the compile whole, saying why). The hit path never comes here.
 * SHIMCTL_PIECES=0 turns it off. */
static void compile_pieces(const char* real,
                           const struct shimctl_compiler* compiler,
                           const struct call_traits* call,
                           int argc,
                           char** argv,
                           char* for_cache) {
  if (!shim.config.pieces_helper || env_is("SHIMCTL_PIECES", "0") ||
      starts_with(base_name(compiler->name), "hipcc") || (size_t)argc + 8 > MAX_ARGS)
    return;
  /* A piece's own compile that asks for the new offload driver's image (piece_image.hpp): the
   * helper makes it (its mark is made first: a miss). */
  bool image =
    call->device_only && getenv("SHIMCTL_PIECE_MARK") && env_is("SHIMCTL_PIECE_IMAGE", "1");
  if (call->kind != CALL_COMPILE || !call->object_compile || (call->device_only && !image) ||
      call->gpu_targets < (image || env_is("SHIMCTL_PIECES", "1") ? 1u : 2u) ||
      !compiles_hip(call, false))
    return;
  char** helper_argv = cache_argv; /* unused on this path */
  static char verb[] = "compile-pieces", ccache_kind[] = "ccache", sccache_kind[] = "sccache",
              end[] = "--";
  size_t n = 0;
  helper_argv[n++] = (char*)shim.config.pieces_helper;
  helper_argv[n++] = verb;
  helper_argv[n++] = (char*)shim.config.cache_path;
  helper_argv[n++] = shim.config.cache_is_ccache ? ccache_kind : sccache_kind;
  helper_argv[n++] = (char*)real;
  helper_argv[n++] = for_cache;
  helper_argv[n++] = end;
  for (int i = 0; i < argc; i++)
    helper_argv[n++] = argv[i];
  helper_argv[n] = NULL;
  execve(shim.config.pieces_helper, helper_argv, environ); /* else: the compile runs whole */
}

/* A piece's compile (a target's device-only compile, or the host half) that the cache tool runs:
 * a miss. `shimctl compile-pieces` names a file in SHIMCTL_PIECE_MARK for each piece and tells hit
 * from miss by it (sccache says neither per call). */
static void mark_piece_compiled(const struct call_traits* call) {
  const char* mark = getenv("SHIMCTL_PIECE_MARK");
  if (!mark || call->kind != CALL_COMPILE)
    return;
  int fd = open_file(mark, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600);
  if (fd >= 0)
    close(fd);
}

/* With SHIMCTL_STRICT=1: prints the parts and exits 1. Otherwise returns. */
#define STRICT_FAIL(...)                                                                           \
  do {                                                                                             \
    if (env_is("SHIMCTL_STRICT", "1")) {                                                           \
      say(__VA_ARGS__, STRICT_HINT, NULL);                                                         \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char** argv) {
  char* argv0 = argc > 0 ? argv[0] : NULL;
  /* A nested shim's lines would land in the output ccache stores and replays on every hit. */
  shim.trace = env_is("SHIMCTL_SHIM_TRACE", "1") && !getenv("SHIMCTL_ACTIVE");
  if (!locate_self(argv0)) {
    say("cannot find its own executable (/proc/self/exe); run 'shimctl verify'", NULL);
    return 127;
  }
  const char* invoked = argv0 && *base_name(argv0) ? base_name(argv0) : shim.self_name;
  const char* why = load_config();
  if (why)
    run_without_config(argv, invoked, why);
  bool known;
  const struct shimctl_compiler* compiler = resolve_compiler(invoked, &known);
  if (!compiler) {
    concat(shim.problem,
           sizeof shim.problem,
           "no compiler entry for '",
           invoked,
           "' in ",
           shim.config_path,
           NULL);
    run_without_config(argv, invoked, shim.problem);
  }
  if (strcmp(compiler->real_name, shim.self_name) == 0) { /* it would exec itself forever */
    concat(shim.problem,
           sizeof shim.problem,
           "the original of '",
           invoked,
           "' is the shim itself",
           NULL);
    run_without_config(argv, invoked, shim.problem);
  }
  char real[PATH_MAX];
  if (!path_in_self_dir(real, compiler->real_name, ""))
    run_without_config(argv, invoked, "path too long");
  if (passes_through(argc, argv)) {
    if (getenv("SHIMCTL_ACTIVE")) {
      struct call_traits nested = traits_of(argc, argv, NULL, NULL);
      mark_piece_compiled(&nested);
      compile_pieces(
        real, compiler, &nested, argc, argv, compiler_for_cache(argv0, invoked, known));
    }
    exec_original(real, compiler->name, argv);
  }
  struct call_traits call =
    traits_of(argc, argv, getenv("HCC_AMDGPU_TARGET"), getenv("HIPCC_COMPILE_FLAGS_APPEND"));
  /* From here on the original runs with the shim's -cuid= too (formats.h): the same object with
   * the cache, without it (SHIMCTL_DISABLE=1) and on every fallback. */
  char** args = compile_arguments(argc, argv, cuid_argument(compiler, &call));
  if (env_is("SHIMCTL_DISABLE", "1"))
    exec_original(real, compiler->name, args);
  if (!call.cached_output) { /* a link, -E, --version: the cache tool would only run it */
    record_not_sent(not_sent_reason(call.kind));
    putenv(active_entry); /* hipcc's own clang++ call (a shim too) passes straight through */
    int answered = answer_probe(real, compiler, call, argc, args);
    if (answered >= 0)
      return answered;
    exec_original(real, compiler->name, args);
  }

  /* The user's own CCACHE_COMPILERCHECK wins, as every default does. */
  const bool ccache = shim.config.cache_is_ccache;
  keyed_by_identity = shim.config.identity_helper && ccache && !getenv("CCACHE_COMPILERCHECK");
  char* key = compiler_check_entry + sizeof compiler_check_entry - 1 - FINGERPRINT_KEY_LEN;
  if (keyed_by_identity && !know_identity(key)) {
    log_event("identity-unknown", shim.config.identity_helper);
    STRICT_FAIL("cannot establish the toolchain identity: ",
                shim.config.identity_helper,
                " identity-check failed");
    record_not_sent(SHIMCTL_NOT_SENT_IDENTITY_UNKNOWN);
    exec_original(real, compiler->name, args);
  }
  /* The target key rides on shimctl's own key: ccache keyed by identity, or sccache's buster. */
  if ((keyed_by_identity || !ccache) && !build_target_key(compiler, call)) {
    log_event("target-unkeyed", compiler->name);
    record_not_sent(SHIMCTL_NOT_SENT_TARGET_UNKEYED);
    if (shim.trace)
      say("the GPU target cannot be keyed (a native target, or the probe failed): uncached", NULL);
    exec_original(real, compiler->name, args);
  }
  if (shim.trace && target_key.len)
    say("target key ", target_key.buf, NULL);
  depend_plan = plan_depend_mode(compiler, &call);
  if (depend_plan == DEPEND_UNCACHED) {
    record_not_sent(SHIMCTL_NOT_SENT_DEVICE_ONLY_DEPFILE);
    if (shim.trace)
      say("device-only with a depfile (the cache tool would compile again): uncached", NULL);
    exec_original(real, compiler->name, args);
  }
  if (shim.trace && depend_plan == DEPEND_OFF)
    say("device-only: no depend mode", NULL);
  if (shim.trace && depend_plan == DEPEND_OWN_FILE)
    say("depend mode with the shim's depfile ", own_depfile, NULL);
  if (build_cache_environment() &&
      build_cache_arguments(args, compiler_for_cache(argv0, invoked, known))) {
    const char* unpinned = NULL;
    if (ccache && !pin_directory_config(&unpinned)) {
      log_event_once("ccache-conf-unpinned", unpinned);
      STRICT_FAIL("cannot keep ccache from reading ", unpinned);
      record_not_sent(SHIMCTL_NOT_SENT_CCACHE_CONF_UNPINNED);
      exec_original(real, compiler->name, args);
    }
    const char* unwritable = unwritable_cache_dir(cache_dir(ccache));
    if (unwritable) {
      log_event("cache-dir-unwritable", unwritable);
      STRICT_FAIL("cache directory ", unwritable, " is not writable by this user");
      record_not_sent(SHIMCTL_NOT_SENT_CACHE_DIR_UNWRITABLE);
      exec_original(real, compiler->name, args);
    }
    const char* no_server = NULL;
    if (!ccache && !own_sccache_server(&no_server)) {
      if (!no_server)
        no_server = "(environment too large)";
      log_event("sccache-server-unavailable", no_server);
      if (shim.trace)
        say("no sccache server of this user's: ", no_server, ": uncached", NULL);
      STRICT_FAIL("no sccache server of this user's answers: ", no_server);
      record_not_sent(SHIMCTL_NOT_SENT_SCCACHE_SERVER_UNAVAILABLE);
      exec_original(real, compiler->name, args);
    }
    if (shim.trace)
      say("cache ", shim.config.cache_path, " ", cache_argv[1], NULL);
    if (!ccache) { /* sccache can fail a compile itself: it runs as a child (cache_run.c) */
      char reason[256];
      record_sccache_call(shim.config.cache_path, cache_env);
      int status = run_cache_tool(shim.config.cache_path, cache_argv, cache_env, reason);
      if (status >= 0)
        return status;
      log_event("sccache-failed", reason);
      record_not_sent(SHIMCTL_NOT_SENT_SCCACHE_FAILED);
      if (shim.trace)
        say("sccache failed (", reason, "): compiling uncached", NULL);
      exec_original(real, compiler->name, args);
    }
    if (depend_plan == DEPEND_OWN_FILE) { /* ccache as a child: the depfile goes after it */
      int status;
      int spawned = spawn_and_wait(shim.config.cache_path, cache_argv, cache_env, NULL, &status);
      unlink(own_depfile);
      if (spawned == 0)
        return passed_on_status(status);
      errno = spawned;
    } else {
      execve(shim.config.cache_path, cache_argv, cache_env);
    }
    const char* reason = strerror(errno);
    log_event("cache-missing", reason);
    STRICT_FAIL("cache tool ", shim.config.cache_path, " cannot run: ", reason);
    record_not_sent(SHIMCTL_NOT_SENT_CACHE_MISSING);
  } else {
    record_not_sent(SHIMCTL_NOT_SENT_SHIM_LIMITS);
  }
  exec_original(real, compiler->name, args); /* the cache layer must never fail a compile */
}
