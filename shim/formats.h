/* The formats the shim shares with the C++ side, defined once: the shim config (written by
 * installer/shimctl/cache/shim_config.cpp), the identity snapshot (identity/identity_snapshot.cpp)
 * and the path of a user's own snapshot (identity/user_snapshot.cpp). The names, header lines and
 * field order live here, in the inline renderers; the readers are in shim/config.c and
 * shim/identity_snapshot.c (library shimctl-shim-formats, which the shim, the unit tests and the
 * fuzzer compile alike). C11 and C++23; libc only, no allocation. */
#ifndef SHIMCTL_FORMATS_H
#define SHIMCTL_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Appends S at OUT[AT] (truncating at CAP, always NUL-terminated when CAP > 0); returns AT plus
 * the length of S, so a final result >= CAP means "did not fit", as with snprintf. */
static inline size_t shimctl_put(char* out, size_t cap, size_t at, const char* s) {
  size_t n = strlen(s);
  if (at < cap) {
    size_t fit = at + n < cap ? n : cap - 1 - at;
    memcpy(out + at, s, fit);
    out[at + fit] = '\0';
  }
  return at + n;
}

/* Decimal digits of VALUE in BUF; returns their start. */
static inline const char* shimctl_decimal(unsigned long long value, char buf[24]) {
  char* p = buf + 23;
  *p = '\0';
  do
    *--p = (char)('0' + value % 10);
  while ((value /= 10) != 0);
  return p;
}

/* ---- The shim config: DIR/.shimctl.conf ------------------------------------------------------
 * Text, one directive per line: its name, one space, its fields separated by one space; '#'
 * starts a comment line; the first other line is SHIMCTL_CONFIG_HEADER. */
#define SHIMCTL_CONFIG_NAME ".shimctl.conf"
#define SHIMCTL_CONFIG_HEADER "shimctl-shim-config 1"
#define SHIMCTL_CONFIG_MAX (256 * 1024) /* bytes */
#define SHIMCTL_MAX_DIRECTIVES 8192     /* list directives (setenv ... target-probe) */

enum shimctl_directive_kind {
  SHIMCTL_STATE,           /* state PATH: the prefix's state dir (events.log, identity) */
  SHIMCTL_CACHE,           /* cache PATH: the cache tool */
  SHIMCTL_CACHE_KIND,      /* cache-kind ccache|sccache */
  SHIMCTL_IDENTITY_HELPER, /* identity-helper PATH: the shimctl that re-checks the identity */
  SHIMCTL_SETENV,          /* setenv NAME=VALUE: a default, where NAME is unset */
  SHIMCTL_APPENDENV,       /* appendenv NAME=VALUE: appended to NAME with ':' */
  SHIMCTL_COMPILER,        /* compiler NAME REAL_NAME */
  SHIMCTL_ALIAS,           /* alias ALIAS COMPILER */
  SHIMCTL_KEYENV,          /* keyenv VARIABLE */
  SHIMCTL_TARGET_PROBE,    /* target-probe COMPILER PROBE: GPUs of a call that names none */
  SHIMCTL_NATIVE_PROBE,    /* native-probe COMPILER PROBE: GPUs of --offload-arch=native */
  SHIMCTL_SECRETS,         /* secrets PATH: NAME=VALUE lines read at exec time (credentials) */
  SHIMCTL_SCCACHE_SERVER,  /* sccache-server unix|tcp KEY: each user's own server for KEY */
  SHIMCTL_PIECES_HELPER,   /* pieces-helper PATH: the shimctl that builds per-target pieces */
  SHIMCTL_STORE,           /* store PROBE HOST:PORT: the team store whose health the shim keeps */
  SHIMCTL_DIRECTIVE_KINDS
};

static inline const char* shimctl_directive_name(enum shimctl_directive_kind kind) {
  switch (kind) {
    case SHIMCTL_STATE:
      return "state";
    case SHIMCTL_CACHE:
      return "cache";
    case SHIMCTL_CACHE_KIND:
      return "cache-kind";
    case SHIMCTL_IDENTITY_HELPER:
      return "identity-helper";
    case SHIMCTL_SETENV:
      return "setenv";
    case SHIMCTL_APPENDENV:
      return "appendenv";
    case SHIMCTL_COMPILER:
      return "compiler";
    case SHIMCTL_ALIAS:
      return "alias";
    case SHIMCTL_KEYENV:
      return "keyenv";
    case SHIMCTL_TARGET_PROBE:
      return "target-probe";
    case SHIMCTL_NATIVE_PROBE:
      return "native-probe";
    case SHIMCTL_SECRETS:
      return "secrets";
    case SHIMCTL_SCCACHE_SERVER:
      return "sccache-server";
    case SHIMCTL_PIECES_HELPER:
      return "pieces-helper";
    case SHIMCTL_STORE:
      return "store";
    case SHIMCTL_DIRECTIVE_KINDS:
      break;
  }
  return "";
}

#define SHIMCTL_CACHE_KIND_CCACHE "ccache"
#define SHIMCTL_CACHE_KIND_SCCACHE "sccache"
/* sccache-server's transports: a unix socket in the user's private runtime directory
 * (sccache >= 0.9, SCCACHE_SERVER_UDS), or a TCP port on 127.0.0.1 derived from KEY and the uid
 * whose listener must belong to the user (sccache 0.4). */
#define SHIMCTL_SCCACHE_UNIX "unix"
#define SHIMCTL_SCCACHE_TCP "tcp"
#define SHIMCTL_SCCACHE_KEY_HEX 16
/* Appended to the key of a configuration with a team store for its local-only twin: the server
 * the shim uses while the store is out (store health, below). */
#define SHIMCTL_SCCACHE_LOCAL_ONLY "+local-only"
/* sccache's own default port (SCCACHE_SERVER_PORT unset), as a number and as text. */
#define SHIMCTL_SCCACHE_DEFAULT_PORT 4226u
#define SHIMCTL_SCCACHE_DEFAULT_PORT_TEXT "4226"
#define SHIMCTL_SCCACHE_FIRST_PORT 10000u
#define SHIMCTL_SCCACHE_PORT_COUNT 20000u

/* Files in the shim's directory D: both names contain no '/' and no space. */
struct shimctl_compiler {
  const char* name;      /* the shim D/NAME */
  const char* real_name; /* the original compiler D/REAL_NAME */
};
struct shimctl_alias {
  const char* alias;    /* D/ALIAS, a symlink to the shim */
  const char* compiler; /* the NAME of its compiler line */
};
struct shimctl_target_probe {
  const char* compiler; /* the NAME of a compiler line */
  const char* probe;    /* absolute path of the program naming the machine's GPU targets */
};
struct shimctl_sccache_server {
  const char* transport; /* SHIMCTL_SCCACHE_UNIX or SHIMCTL_SCCACHE_TCP */
  const char* key;       /* SHIMCTL_SCCACHE_KEY_HEX lowercase hex digits: the configuration */
};
/* The store line: how the shim asks the team store whether it answers (SHIMCTL_STORE_PROBE_*),
 * and where (HOST:PORT, [V6]:PORT; never a credential). */
struct shimctl_store {
  const char* probe;
  const char* address;
};

struct shimctl_directive {
  enum shimctl_directive_kind kind;
  union {
    const char* path;       /* state, cache, identity-helper, secrets, pieces-helper: absolute */
    const char* cache_kind; /* cache-kind: SHIMCTL_CACHE_KIND_* */
    const char* env;        /* setenv, appendenv: NAME=VALUE, NAME not empty */
    const char* variable;   /* keyenv: a variable name */
    struct shimctl_compiler compiler;
    struct shimctl_alias alias;
    struct shimctl_target_probe target_probe;
    struct shimctl_sccache_server sccache_server;
    struct shimctl_store store;
  } u;
};

/* The directive of KIND with its fields in line order (SECOND: for two-field kinds only). */
static inline struct shimctl_directive shimctl_directive_of(enum shimctl_directive_kind kind,
                                                            const char* first,
                                                            const char* second) {
  struct shimctl_directive d;
  d.kind = kind;
  switch (kind) {
    case SHIMCTL_COMPILER:
      d.u.compiler.name = first;
      d.u.compiler.real_name = second;
      break;
    case SHIMCTL_ALIAS:
      d.u.alias.alias = first;
      d.u.alias.compiler = second;
      break;
    case SHIMCTL_TARGET_PROBE:
    case SHIMCTL_NATIVE_PROBE:
      d.u.target_probe.compiler = first;
      d.u.target_probe.probe = second;
      break;
    case SHIMCTL_SCCACHE_SERVER:
      d.u.sccache_server.transport = first;
      d.u.sccache_server.key = second;
      break;
    case SHIMCTL_STORE:
      d.u.store.probe = first;
      d.u.store.address = second;
      break;
    case SHIMCTL_CACHE_KIND:
      d.u.cache_kind = first;
      break;
    case SHIMCTL_SETENV:
    case SHIMCTL_APPENDENV:
      d.u.env = first;
      break;
    case SHIMCTL_KEYENV:
      d.u.variable = first;
      break;
    default: /* state, cache, identity-helper, secrets, pieces-helper */
      d.u.path = first;
      break;
  }
  return d;
}

/* The fields of D's line in order; returns how many (0 to 2). */
static inline int shimctl_directive_fields(const struct shimctl_directive* d, const char* f[2]) {
  switch (d->kind) {
    case SHIMCTL_COMPILER:
      f[0] = d->u.compiler.name;
      f[1] = d->u.compiler.real_name;
      return 2;
    case SHIMCTL_ALIAS:
      f[0] = d->u.alias.alias;
      f[1] = d->u.alias.compiler;
      return 2;
    case SHIMCTL_TARGET_PROBE:
    case SHIMCTL_NATIVE_PROBE:
      f[0] = d->u.target_probe.compiler;
      f[1] = d->u.target_probe.probe;
      return 2;
    case SHIMCTL_SCCACHE_SERVER:
      f[0] = d->u.sccache_server.transport;
      f[1] = d->u.sccache_server.key;
      return 2;
    case SHIMCTL_STORE:
      f[0] = d->u.store.probe;
      f[1] = d->u.store.address;
      return 2;
    case SHIMCTL_STATE:
    case SHIMCTL_CACHE:
    case SHIMCTL_IDENTITY_HELPER:
    case SHIMCTL_SECRETS:
    case SHIMCTL_PIECES_HELPER:
      f[0] = d->u.path;
      return 1;
    case SHIMCTL_CACHE_KIND:
      f[0] = d->u.cache_kind;
      return 1;
    case SHIMCTL_SETENV:
    case SHIMCTL_APPENDENV:
      f[0] = d->u.env;
      return 1;
    case SHIMCTL_KEYENV:
      f[0] = d->u.variable;
      return 1;
    case SHIMCTL_DIRECTIVE_KINDS:
      break;
  }
  return 0;
}

/* D's line, "NAME FIELD...\n", into OUT (see shimctl_put for CAP and the result). */
static inline size_t shimctl_render_directive(char* out,
                                              size_t cap,
                                              const struct shimctl_directive* d) {
  const char* fields[2];
  int count = shimctl_directive_fields(d, fields);
  size_t len = shimctl_put(out, cap, 0, shimctl_directive_name(d->kind));
  for (int i = 0; i < count; i++)
    len = shimctl_put(out, cap, shimctl_put(out, cap, len, " "), fields[i]);
  return shimctl_put(out, cap, len, "\n");
}

/* The parsed config. Its strings point into the text it was parsed from. */
struct shimctl_config {
  const char* state_dir;                        /* NULL when there is no state line */
  const char* cache_path;                       /* never NULL once parsed */
  const char* identity_helper;                  /* NULL when there is none */
  const char* pieces_helper;                    /* NULL when there is none */
  const char* cache_kind;                       /* cache-kind: SHIMCTL_CACHE_KIND_* (ccache) */
  const char* secrets_path;                     /* NULL when there is no secrets line */
  struct shimctl_sccache_server sccache_server; /* transport NULL when there is no such line */
  struct shimctl_store store;                   /* probe NULL when there is no store line */
  size_t count;
  /* setenv, appendenv, compiler, alias, keyenv, target-probe and native-probe lines, in order */
  struct shimctl_directive list[SHIMCTL_MAX_DIRECTIVES];
};

/* Parses TEXT[0..LEN) in place (TEXT[LEN] must be writable) into CONFIG. Returns NULL, or why the
 * config cannot be used: "PATH:LINE: what" in PROBLEM. */
const char* shimctl_parse_config(struct shimctl_config* config,
                                 char* text,
                                 size_t len,
                                 const char* path,
                                 char* problem,
                                 size_t problem_cap);

/* The entries for NAME; NULL when there is none. */
const struct shimctl_compiler* shimctl_find_compiler(const struct shimctl_config* config,
                                                     const char* name);
const struct shimctl_alias* shimctl_find_alias(const struct shimctl_config* config,
                                               const char* alias);
/* The last line of KIND (SHIMCTL_TARGET_PROBE or SHIMCTL_NATIVE_PROBE) for compiler NAME, NULL
 * when there is none. */
const struct shimctl_target_probe* shimctl_find_probe(const struct shimctl_config* config,
                                                      enum shimctl_directive_kind kind,
                                                      const char* name);

/* ---- The identity snapshot: STATE_DIR/identity ------------------------------------------------
 *   shimctl-identity 1
 *   fingerprint <64 lowercase hex digits>
 *   dir <absolute directory>
 *   <inode> <size> <mtime ns> <ctime ns> <file name>      (files of the last dir line)
 * Every line ends with '\n': a snapshot without a final newline was cut short. */
#define SHIMCTL_IDENTITY_NAME "identity"
#define SHIMCTL_IDENTITY_HEADER "shimctl-identity 1"
#define SHIMCTL_IDENTITY_MAX (256 * 1024)
#define SHIMCTL_IDENTITY_FINGERPRINT "fingerprint " /* the second line's start */
#define SHIMCTL_IDENTITY_DIR "dir "                 /* a directory line's start */
#define SHIMCTL_FINGERPRINT_HEX 64

struct shimctl_snapshot_input {
  unsigned long long inode, size, mtime_ns, ctime_ns;
  const char* name; /* in the directory of the last dir line */
};

/* The first two lines for FINGERPRINT. */
static inline size_t shimctl_render_snapshot_start(char* out, size_t cap, const char* fingerprint) {
  size_t len = shimctl_put(out, cap, 0, SHIMCTL_IDENTITY_HEADER "\n" SHIMCTL_IDENTITY_FINGERPRINT);
  return shimctl_put(out, cap, shimctl_put(out, cap, len, fingerprint), "\n");
}

static inline size_t shimctl_render_snapshot_dir(char* out, size_t cap, const char* dir) {
  return shimctl_put(
    out, cap, shimctl_put(out, cap, shimctl_put(out, cap, 0, SHIMCTL_IDENTITY_DIR), dir), "\n");
}

static inline size_t shimctl_render_snapshot_input(char* out,
                                                   size_t cap,
                                                   const struct shimctl_snapshot_input* in) {
  const unsigned long long numbers[] = { in->inode, in->size, in->mtime_ns, in->ctime_ns };
  size_t len = 0;
  for (int i = 0; i < 4; i++) {
    char digits[24];
    len =
      shimctl_put(out, cap, shimctl_put(out, cap, len, shimctl_decimal(numbers[i], digits)), " ");
  }
  return shimctl_put(out, cap, shimctl_put(out, cap, len, in->name), "\n");
}

/* S starts with SHIMCTL_FINGERPRINT_HEX lowercase hex digits and ends there or at a newline. */
bool shimctl_is_fingerprint(const char* s);

/* Reads a snapshot line by line, in place. */
struct shimctl_snapshot_reader {
  char* next; /* the next line */
  char* end;
};

/* Checks the first two lines of TEXT[0..LEN) and points *FINGERPRINT at the 64 digits (NUL-
 * terminated in place). False when it is not a whole snapshot. */
bool shimctl_snapshot_begin(struct shimctl_snapshot_reader* reader,
                            char* text,
                            size_t len,
                            const char** fingerprint);

enum shimctl_snapshot_line {
  SHIMCTL_SNAPSHOT_END,   /* no more lines */
  SHIMCTL_SNAPSHOT_DIR,   /* *DIR: the directory of the inputs that follow */
  SHIMCTL_SNAPSHOT_INPUT, /* *INPUT: one input */
  SHIMCTL_SNAPSHOT_BAD    /* a line this format does not have */
};

enum shimctl_snapshot_line shimctl_snapshot_next(struct shimctl_snapshot_reader* reader,
                                                 const char** dir,
                                                 struct shimctl_snapshot_input* input);

/* ---- A user's own snapshot ---------------------------------------------------------------------
 * For a user who may not write the prefix's state dir:
 *   ${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/identity/<prefix, '%' as %25 and '/' as %2F>
 * (XDG_CACHE_HOME and HOME count only when absolute). Its first input is the prefix's manifest. */
#define SHIMCTL_USER_CACHE_DIR "shimctl"     /* in the cache home */
#define SHIMCTL_USER_SNAPSHOT_DIR "identity" /* in SHIMCTL_USER_CACHE_DIR */
#define SHIMCTL_NAME_MAX 255                 /* Linux's NAME_MAX */

/* The cache home into OUT; 0 when neither variable is usable. */
static inline size_t shimctl_user_cache_home(char* out,
                                             size_t cap,
                                             const char* xdg_cache_home,
                                             const char* home) {
  if (xdg_cache_home && xdg_cache_home[0] == '/')
    return shimctl_put(out, cap, 0, xdg_cache_home);
  if (home && home[0] == '/')
    return shimctl_put(out, cap, shimctl_put(out, cap, 0, home), "/.cache");
  return 0;
}

/* The snapshot's file name for PREFIX at OUT[AT]; returns AT plus its length. */
static inline size_t shimctl_user_snapshot_name(char* out,
                                                size_t cap,
                                                size_t at,
                                                const char* prefix) {
  for (const char* c = prefix; *c; c++) {
    char one[2] = { *c, '\0' };
    at = shimctl_put(out, cap, at, *c == '/' ? "%2F" : *c == '%' ? "%25" : one);
  }
  return at;
}

/* ${cache home}/shimctl/SUBDIR/<PREFIX encoded as above>; 0 when there is no cache home or the
 * name is longer than SHIMCTL_NAME_MAX. */
static inline size_t shimctl_user_file_path(char* out,
                                            size_t cap,
                                            const char* xdg_cache_home,
                                            const char* home,
                                            const char* subdir,
                                            const char* prefix) {
  size_t len = shimctl_user_cache_home(out, cap, xdg_cache_home, home);
  if (len == 0)
    return 0;
  len = shimctl_put(out, cap, len, "/" SHIMCTL_USER_CACHE_DIR "/");
  len = shimctl_put(out, cap, shimctl_put(out, cap, len, subdir), "/");
  size_t name_end = shimctl_user_snapshot_name(out, cap, len, prefix);
  return name_end - len > SHIMCTL_NAME_MAX ? 0 : name_end;
}

/* The user's snapshot of PREFIX (see shimctl_user_file_path). */
static inline size_t shimctl_user_snapshot_path(char* out,
                                                size_t cap,
                                                const char* xdg_cache_home,
                                                const char* home,
                                                const char* prefix) {
  return shimctl_user_file_path(out, cap, xdg_cache_home, home, SHIMCTL_USER_SNAPSHOT_DIR, prefix);
}

/* ---- A user's own events log ------------------------------------------------------------------
 * The shim appends "<unix time> <event> <cache tool> <reason>" lines to STATE_DIR/events.log; a
 * user who may not write there (a root-installed prefix) gets them in
 * ${cache home}/shimctl/events/<prefix, encoded as above>, which `shimctl status` and `verify`
 * run as that user read too. */
#define SHIMCTL_USER_EVENTS_DIR "events" /* in SHIMCTL_USER_CACHE_DIR */

/* The one hash of shimctl's names: 64-bit FNV-1a over TAG and PARTS[0..COUNT), each followed by
 * a NUL. Not a cryptographic hash: names (a CUID, a server's instance and port, a memo's file)
 * whose full key is kept or checked elsewhere. */
static inline unsigned long long shimctl_fnv1a(const char* tag,
                                               const char* const* parts,
                                               int count) {
  unsigned long long h = 14695981039346656037ULL;
  for (int p = -1; p < count; p++) {
    for (const char* c = p < 0 ? tag : parts[p]; *c; c++)
      h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    h = (h ^ 0u) * 1099511628211ULL; /* the NUL after each part */
  }
  return h;
}

/* shimctl_fnv1a as 16 lowercase hex digits at OUT (17 bytes). */
static inline const char* shimctl_hash16(char out[17],
                                         const char* tag,
                                         const char* const* parts,
                                         int count) {
  unsigned long long h = shimctl_fnv1a(tag, parts, count);
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; i--, h >>= 4)
    out[i] = digits[h & 15];
  out[16] = '\0';
  return out;
}

/* ---- The CUID the shim gives a HIP compile ---------------------------------------------------
 * clang names a global __hip_cuid_<hash> in every HIP object after the command line, -o
 * included, which ccache leaves out of its key: a hit for x2.o would hand out x1.o's CUID, and
 * two such objects collide in one link. The shim passes -cuid=<value> (the user's own -cuid= or
 * -fuse-cuid= wins), a value made of the source and the output as the command names them (made
 * relative to the working directory when under it): the same command gets the same CUID and the
 * same key, a fresh build directory still hits, and two objects of one link differ. */
#define SHIMCTL_CUID_FLAG "-cuid="
#define SHIMCTL_CUID_HEX 16

/* The value for SOURCE and OUTPUT ("" when the command has no -o): 16 hex digits of 64-bit
 * FNV-1a over "shimctl-cuid 1", SOURCE, a NUL, OUTPUT, at OUT (17 bytes). */
static inline const char* shimctl_cuid_value(char out[SHIMCTL_CUID_HEX + 1],
                                             const char* source,
                                             const char* output) {
  const char* parts[] = { source, output };
  return shimctl_hash16(out, "shimctl-cuid 1", parts, 2);
}

/* ---- Each user's own sccache server -------------------------------------------------------------
 * sccache runs the compile in its server, as the user who started that server, with the storage
 * settings that server started with. So every user gets a server of their own per configuration
 * (KEY, from the sccache-server line): over a unix socket SHIMCTL_SCCACHE_SOCKET_NAME in a
 * directory only that user can enter (sccache >= 0.9), else on the TCP port below, whose listener
 * the shim checks belongs to the user before it lets sccache connect (sccache 0.4). Rollback
 * finds the servers by SHIMCTL_SCCACHE_SERVER_OF=<state dir> in their environment. */
#define SHIMCTL_SCCACHE_SERVER_OF "SHIMCTL_SCCACHE_SERVER_OF"
/* A `sccache --start-server` that failed within this long (a store that answered with an error:
 * sccache 0.17 does not start on one "temporary" error reading its check entry, e.g. an S3 500
 * while another new server writes it) is tried once more after a pause (plus up to 0.3 s, by
 * pid); one that ran into its client's 10 s timeout is not. The shim's rule and verify's. */
#define SHIMCTL_SCCACHE_QUICK_FAILURE_MS 8000
#define SHIMCTL_SCCACHE_RETRY_PAUSE_MS 300
static inline long shimctl_sccache_retry_pause_ms(long pid) {
  return SHIMCTL_SCCACHE_RETRY_PAUSE_MS + pid % 300; /* servers started at once retry apart */
}
#define SHIMCTL_RUNTIME_DIR "shimctl-run" /* under $XDG_RUNTIME_DIR or the user's cache home */
#define SHIMCTL_RUNTIME_DIR_CHOICES 3
#define SHIMCTL_SUN_PATH_MAX 108 /* sizeof sockaddr_un.sun_path on Linux */

/* The server's own name, 16 hex digits, for configuration KEY as seen from mount namespace
 * MOUNT_NS (readlink /proc/self/ns/mnt, "" when unknown): a container with its own files gets
 * a server of its own even where it shares the socket's directory or the network with the host
 * (a server resolves the compile's paths in its own namespace). */
static inline const char* shimctl_sccache_instance(char out[SHIMCTL_SCCACHE_KEY_HEX + 1],
                                                   const char* key,
                                                   const char* mount_ns) {
  const char* parts[] = { key, mount_ns };
  return shimctl_hash16(out, "shimctl-sccache 1", parts, 2);
}

/* The server of a build that `shimctl measure` runs (MEASURE_LOG: its SHIMCTL_MEASURE_LOG, below):
 * the same configuration, a name of its own, so that the build gets fresh servers whose
 * statistics are that build's alone. MEASURE_LOG NULL: shimctl_sccache_instance's name. */
static inline const char* shimctl_sccache_measured_instance(char out[SHIMCTL_SCCACHE_KEY_HEX + 1],
                                                            const char* key,
                                                            const char* mount_ns,
                                                            const char* measure_log) {
  const char* parts[] = { key, mount_ns, measure_log };
  return shimctl_hash16(out, "shimctl-sccache 1", parts, measure_log ? 3 : 2);
}

/* The TCP port of user UID's server INSTANCE (shimctl_sccache_instance). */
static inline unsigned shimctl_sccache_port(const char* instance, unsigned long long uid) {
  char num[24];
  const char* parts[] = { instance, shimctl_decimal(uid, num) };
  return SHIMCTL_SCCACHE_FIRST_PORT +
         (unsigned)(shimctl_fnv1a("shimctl-sccache 1", parts, 2) % SHIMCTL_SCCACHE_PORT_COUNT);
}

/* Choice I (0 to SHIMCTL_RUNTIME_DIR_CHOICES - 1) of the user's private directory for sockets
 * and locks, into OUT: $XDG_RUNTIME_DIR/shimctl-run, <cache home>/shimctl-run,
 * /tmp/shimctl-run-<uid>. The first that is (or can be made) a directory of the user's, mode
 * 0700, with room for a socket name under it, is the one. 0 when choice I does not apply. */
static inline size_t shimctl_runtime_dir(char* out,
                                         size_t cap,
                                         int i,
                                         const char* xdg_runtime_dir,
                                         const char* xdg_cache_home,
                                         const char* home,
                                         unsigned long long uid) {
  size_t len = 0;
  char num[24];
  if (i == 0 && xdg_runtime_dir && xdg_runtime_dir[0] == '/')
    len = shimctl_put(out, cap, shimctl_put(out, cap, 0, xdg_runtime_dir), "/" SHIMCTL_RUNTIME_DIR);
  else if (i == 1 && (len = shimctl_user_cache_home(out, cap, xdg_cache_home, home)) != 0)
    len = shimctl_put(out, cap, len, "/" SHIMCTL_RUNTIME_DIR);
  else if (i == 2)
    len = shimctl_put(out,
                      cap,
                      shimctl_put(out, cap, 0, "/tmp/" SHIMCTL_RUNTIME_DIR "-"),
                      shimctl_decimal(uid, num));
  const size_t socket_name = sizeof "/sccache-" - 1 + SHIMCTL_SCCACHE_KEY_HEX + sizeof ".sock";
  return len < cap && len + socket_name <= SHIMCTL_SUN_PATH_MAX ? len : 0;
}

/* The first usable choice above into OUT (made when missing: runtime_dir.c); false when none
 * is. The directory's parent must belong to the user or root and, when others may write it, be
 * sticky: a variable that `su` kept (another user's XDG_RUNTIME_DIR or HOME) must not lead a
 * compile into a directory that user controls. */
bool shimctl_private_runtime_dir(char* out, size_t cap);

/* Who listens on TCP port PORT (any address), as the kernel records each socket's owner
 * (NETLINK_SOCK_DIAG for listening sockets; /proc/net/tcp and tcp6 where that cannot answer):
 * nobody, only this user (effective uid), or another user too. Nothing connects to the port. */
enum shimctl_listener { SHIMCTL_LISTENER_NONE, SHIMCTL_LISTENER_MINE, SHIMCTL_LISTENER_OTHER };
enum shimctl_listener shimctl_tcp_listener(unsigned port);

/* "sccache-INSTANCE.sock" / "sccache-INSTANCE.lock" at OUT[AT]. */
static inline size_t shimctl_sccache_file_name(char* out,
                                               size_t cap,
                                               size_t at,
                                               const char* key,
                                               const char* suffix) {
  return shimctl_put(
    out, cap, shimctl_put(out, cap, shimctl_put(out, cap, at, "sccache-"), key), suffix);
}

/* ---- A team store's health, per user: <private runtime dir>/store-<hash>.health ----------------
 * The store line (struct shimctl_store) names how to ask the store whether it answers:
 * redis (connect, "PING", any reply), http (connect, "HEAD /", an HTTP status line) or tcp
 * (connect only: a TLS endpoint). A store that refuses, does not answer within
 * SHIMCTL_STORE_PROBE_MS, or answers with something else is out for a cool-down
 * (SHIMCTL_STORE_COOLDOWN_FIRST s, doubling while it stays out, at most SHIMCTL_STORE_COOLDOWN_MAX
 * s); meanwhile the user's compiles leave it out (ccache: no remote storage; sccache: a local-only
 * server). A store in use is asked again when its verdict is SHIMCTL_STORE_RECHECK s old, and
 * every SHIMCTL_STORE_WATCH_MS while a compile waits on the cache tool (a verdict younger than
 * SHIMCTL_STORE_WATCH_FRESH_MS holds; one compile asks, the others wait for its answer). A wait on
 * a tool with no timeout of its own (sccache) is given up when the store is out: once the
 * compile's output is written (sccache waits on its write to the store), or, when no compiler
 * for it runs (it is stuck on the store), at once (the compile then runs uncached). The memo is
 * one line:
 *   "<healthy|out> <checked> <until> <cooldown> <failed> <address> <failure...>\n"
 * (unix times in seconds; until and cooldown 0 while healthy; failed 0 and failure "-" when
 * none was seen). The shim writes it (temp file, rename); `shimctl status` and `verify` read it. */
#define SHIMCTL_STORE_PROBE_REDIS "redis"
#define SHIMCTL_STORE_PROBE_HTTP "http"
#define SHIMCTL_STORE_PROBE_TCP "tcp"
#define SHIMCTL_STORE_PROBE_MS 200
#define SHIMCTL_STORE_PROBE_MS_TEXT "200"
#define SHIMCTL_STORE_RECHECK 10
#define SHIMCTL_STORE_WATCH_MS 700
#define SHIMCTL_STORE_WATCH_FRESH_MS 300
#define SHIMCTL_STORE_COOLDOWN_FIRST 15
#define SHIMCTL_STORE_COOLDOWN_MAX 30
#define SHIMCTL_STORE_MEMO_MAX 512
/* ccache's operation-timeout for a store whose health the shim keeps, unless the URL names one. */
#define SHIMCTL_CCACHE_OPERATION_TIMEOUT_MS_TEXT "1000"
#define SHIMCTL_STORE_HEALTHY "healthy"
#define SHIMCTL_STORE_OUT "out"

/* "store-<16 hex digits of PROBE and ADDRESS>.health" at OUT[AT]. */
static inline size_t shimctl_store_memo_name(char* out,
                                             size_t cap,
                                             size_t at,
                                             const char* probe,
                                             const char* address) {
  char hex[17];
  const char* parts[] = { probe, address };
  shimctl_hash16(hex, "shimctl-store 1", parts, 2);
  return shimctl_put(
    out, cap, shimctl_put(out, cap, shimctl_put(out, cap, at, "store-"), hex), ".health");
}

struct shimctl_store_health {
  bool out;                    /* out for a cool-down */
  unsigned long long checked;  /* when the verdict was reached */
  unsigned long long until;    /* out: when the cool-down ends */
  unsigned long long cooldown; /* out: its length, seconds */
  unsigned long long failed;   /* the last failure's time, 0: none seen */
  char address[128];           /* the store, as the store line names it */
  char failure[160];           /* the last failure in words, "" when none */
};

/* Parses the memo TEXT (NUL-terminated) into H; false when it is no memo. */
bool shimctl_parse_store_health(const char* text, struct shimctl_store_health* h);
/* H's memo line into OUT (see shimctl_put for CAP and the result). */
size_t shimctl_render_store_health(char* out, size_t cap, const struct shimctl_store_health* h);

/* ---- The secrets file: STATE_DIR/secrets
 * ---------------------------------------------------------- Credentials (a remote's password) live
 * only here, never in the config or the manifest: mode 0600 (root's use only) or 0640 with the
 * shared cache's group. One NAME=VALUE line each; the shim applies them as setenv defaults that win
 * over the config's setenv lines of the same NAME. A user who cannot read the file compiles with
 * the config's values (the local cache). */
#define SHIMCTL_SECRETS_NAME "secrets"
#define SHIMCTL_SECRETS_MAX (64 * 1024)

/* ---- Defaults the user's environment overrides ------------------------------------------------
 * A setenv default NAME=VALUE applies only where the environment sets neither NAME nor, for
 * ccache's booleans, the other form of it: CCACHE_NODEPEND=1 turns off a CCACHE_DEPEND=1 default,
 * CCACHE_DEPEND=1 a CCACHE_NODEPEND=1 one (ccache reads CCACHE_<X> and CCACHE_NO<X> as one
 * setting, and refuses CCACHE_DEPEND=0). */
#define SHIMCTL_CCACHE_ENV "CCACHE_"

/* The other form of the variable named by ENTRY ("NAME" or "NAME=VALUE"), "NAME=" included, into
 * OUT: CCACHE_X= <-> CCACHE_NOX=. 0 when NAME is no CCACHE_ variable or OUT is too small. */
static inline size_t shimctl_negated_env_name(char* out, size_t cap, const char* entry) {
  const size_t prefix_len = sizeof SHIMCTL_CCACHE_ENV - 1;
  size_t name_len = 0;
  while (entry[name_len] && entry[name_len] != '=')
    name_len++;
  if (name_len <= prefix_len)
    return 0;
  for (size_t i = 0; i < prefix_len; i++)
    if (entry[i] != SHIMCTL_CCACHE_ENV[i])
      return 0;
  const char* rest = entry + prefix_len;
  size_t rest_len = name_len - prefix_len;
  bool negated = rest_len > 2 && rest[0] == 'N' && rest[1] == 'O';
  size_t len = prefix_len + (negated ? rest_len - 2 : rest_len + 2) + 1;
  if (len + 1 > cap)
    return 0;
  size_t at = shimctl_put(out, cap, 0, SHIMCTL_CCACHE_ENV);
  if (negated) {
    rest += 2;
    rest_len -= 2;
  } else {
    at = shimctl_put(out, cap, at, "NO");
  }
  for (size_t i = 0; i < rest_len; i++)
    out[at++] = rest[i];
  out[at++] = '=';
  out[at] = '\0';
  return at;
}

/* ---- `shimctl measure`: the shim's records ---------------------------------------------------
 * measure runs the build with SHIMCTL_MEASURE_LOG=<a private file> (and ccache's own
 * CCACHE_STATSLOG=<another>). Each shim appends its records there, each in one write(2) with
 * O_APPEND (records of parallel calls stay whole), a header line and one line of data:
 * - a call it ran without the cache tool: SHIMCTL_MEASURE_NOT_SENT, then the reason's name
 *   (shimctl_not_sent_name);
 * - a call it handed to sccache: SHIMCTL_MEASURE_SCCACHE, then SCOPE SCCACHE ENTRY separated by
 *   one space: the sccache binary (a config field: no space) and the server it used, ENTRY
 *   "SCCACHE_SERVER_UDS=<path>" or "SCCACHE_SERVER_PORT=<port>" (the rest of the line). SCOPE
 *   SHIMCTL_MEASURE_OWN_SERVER: a server of this build's own (shimctl_sccache_measured_instance),
 *   which measure reads and then stops; SHIMCTL_MEASURE_SHARED_SERVER: one other clients may use
 *   too (the user's own SCCACHE_SERVER_UDS/PORT, or a config without a sccache-server line).
 * ccache's calls are in ccache's own stats log. Without SHIMCTL_MEASURE_LOG a ccache shim appends
 * its not-sent records to CCACHE_STATSLOG when set, the reason named by ccache's counter of the
 * same meaning (shimctl_not_sent_stats_log_name), as shims did before measure had a log. */
#define SHIMCTL_MEASURE_LOG "SHIMCTL_MEASURE_LOG"
#define SHIMCTL_MEASURE_NOT_SENT "# shimctl-shim: ran without the cache"
#define SHIMCTL_MEASURE_SCCACHE "# shimctl-shim: sccache"
#define SHIMCTL_MEASURE_OWN_SERVER "measured"
#define SHIMCTL_MEASURE_SHARED_SERVER "shared"

/* Why the shim ran a call without the cache tool. */
enum shimctl_not_sent {
  SHIMCTL_NOT_SENT_LINK,                       /* objects or libraries only */
  SHIMCTL_NOT_SENT_PREPROCESS,                 /* -E (aiter's flag probes) */
  SHIMCTL_NOT_SENT_ONE_STEP,                   /* sources, no -c: compile and link */
  SHIMCTL_NOT_SENT_NO_INPUT,                   /* --version, -print-*, ... */
  SHIMCTL_NOT_SENT_DEVICE_ONLY_DEPFILE,        /* a device-only compile naming a depfile */
  SHIMCTL_NOT_SENT_NO_CONFIG,                  /* the shim's config is missing or unusable */
  SHIMCTL_NOT_SENT_IDENTITY_UNKNOWN,           /* identity-check failed */
  SHIMCTL_NOT_SENT_TARGET_UNKEYED,             /* the GPU target cannot be keyed */
  SHIMCTL_NOT_SENT_CCACHE_CONF_UNPINNED,       /* a ccache.conf above a working dir with ':' */
  SHIMCTL_NOT_SENT_CACHE_DIR_UNWRITABLE,       /* the cache dir is not this user's to write */
  SHIMCTL_NOT_SENT_SCCACHE_SERVER_UNAVAILABLE, /* no sccache server of the user's answers */
  SHIMCTL_NOT_SENT_SCCACHE_FAILED,             /* sccache failed by itself */
  SHIMCTL_NOT_SENT_CACHE_MISSING,              /* the cache tool cannot be executed */
  SHIMCTL_NOT_SENT_SHIM_LIMITS,                /* past the shim's static bounds */
  SHIMCTL_NOT_SENT_STORE_OUT, /* the team store stopped answering while the compile waited */
  SHIMCTL_NOT_SENT_REASONS
};

/* REASON's name in measure's log and output. */
static inline const char* shimctl_not_sent_name(enum shimctl_not_sent reason) {
  switch (reason) {
    case SHIMCTL_NOT_SENT_LINK:
      return "link";
    case SHIMCTL_NOT_SENT_PREPROCESS:
      return "preprocess";
    case SHIMCTL_NOT_SENT_ONE_STEP:
      return "one_step_compile_and_link";
    case SHIMCTL_NOT_SENT_NO_INPUT:
      return "no_input";
    case SHIMCTL_NOT_SENT_DEVICE_ONLY_DEPFILE:
      return "device_only_depfile";
    case SHIMCTL_NOT_SENT_NO_CONFIG:
      return "no_config";
    case SHIMCTL_NOT_SENT_IDENTITY_UNKNOWN:
      return "identity_unknown";
    case SHIMCTL_NOT_SENT_TARGET_UNKEYED:
      return "target_unkeyed";
    case SHIMCTL_NOT_SENT_CCACHE_CONF_UNPINNED:
      return "ccache_conf_unpinned";
    case SHIMCTL_NOT_SENT_CACHE_DIR_UNWRITABLE:
      return "cache_dir_unwritable";
    case SHIMCTL_NOT_SENT_SCCACHE_SERVER_UNAVAILABLE:
      return "sccache_server_unavailable";
    case SHIMCTL_NOT_SENT_SCCACHE_FAILED:
      return "sccache_failed";
    case SHIMCTL_NOT_SENT_CACHE_MISSING:
      return "cache_missing";
    case SHIMCTL_NOT_SENT_SHIM_LIMITS:
      return "shim_limits";
    case SHIMCTL_NOT_SENT_STORE_OUT:
      return "store_out";
    case SHIMCTL_NOT_SENT_REASONS:
      break;
  }
  return "";
}

/* REASON's name in a CCACHE_STATSLOG without measure's log (ccache's counter of the same
 * meaning, as shims before SHIMCTL_MEASURE_LOG wrote them); NULL: not recorded there. */
static inline const char* shimctl_not_sent_stats_log_name(enum shimctl_not_sent reason) {
  switch (reason) {
    case SHIMCTL_NOT_SENT_LINK:
      return "called_for_link";
    case SHIMCTL_NOT_SENT_PREPROCESS:
      return "called_for_preprocessing";
    case SHIMCTL_NOT_SENT_ONE_STEP:
      return "one_step_compile_and_link";
    case SHIMCTL_NOT_SENT_NO_INPUT:
      return "no_input_file";
    case SHIMCTL_NOT_SENT_DEVICE_ONLY_DEPFILE:
      return "device_only_depfile";
    default:
      break;
  }
  return NULL;
}

#ifdef __cplusplus
}
#endif

#endif
