/* The shim config: DIR/.shimctl.conf.
 * Text, one directive per line: its name, one space, its fields separated by one space; '#'
 * starts a comment line; the first other line is SHIMCTL_CONFIG_HEADER. */
#ifndef SHIMCTL_FORMATS_CONFIG_H
#define SHIMCTL_FORMATS_CONFIG_H

#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
