/* The cache tool's environment (shim.h): the caller's, the secrets file's defaults, the config's
 * setenv and appendenv lines (a variable the user set wins, as does its CCACHE_NO<X> form), the
 * tool's own entries (cache_tool.h) and SHIMCTL_ACTIVE=1, in static arrays: no allocation. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"
#include "target_key.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENV_ARENA (1024 * 1024) /* room for appendenv results */

extern char** environ;

char* cache_env[SHIM_MAX_ENV];
size_t cache_env_count;
char active_entry[] = "SHIMCTL_ACTIVE=1";
bool keyed_by_identity;
char identity_key[FINGERPRINT_KEY_LEN + 1];
static char env_arena[ENV_ARENA];
static size_t env_arena_used;

bool push_env(char* entry) {
  if (cache_env_count + 2 >= SHIM_MAX_ENV)
    return false;
  cache_env[cache_env_count++] = entry;
  return true;
}

/* Index of the first "NAME=" entry (name_len counts the '='), as getenv finds it; -1 if none. */
long find_env(const char* name, size_t name_len) {
  for (size_t i = 0; i < cache_env_count; i++)
    if (strncmp(cache_env[i], name, name_len) == 0)
      return (long)i;
  return -1;
}

/* "NAME=OLD" + ":" + VALUE in env_arena; NULL when full. */
char* joined_value(const char* old_entry, const char* value) {
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
char* with_target_key(const char* entry) {
  size_t len = strlen(entry);
  if (env_arena_used + len + target_key.len + 1 > sizeof env_arena)
    return NULL;
  char* out = env_arena + env_arena_used;
  memcpy(out, entry, len);
  memcpy(out + len, target_key.buf, target_key.len + 1);
  env_arena_used += len + target_key.len + 1;
  return out;
}

/* ENTRY's CCACHE_NO<X> (or CCACHE_<X>) form is in the environment: the user set the default. */
static bool overridden_by_negation(const char* entry) {
  char other[256];
  size_t len = shimctl_negated_env_name(other, sizeof other, entry);
  return len && find_env(other, len) >= 0;
}

static char cwd_text[PATH_MAX];
static bool cwd_read;
static char root[PATH_MAX];
static int root_found = -1;

/* The working directory, read once; NULL when unknown. */
const char* current_dir(void) {
  if (!cwd_read)
    cwd_read = getcwd(cwd_text, sizeof cwd_text) && cwd_text[0] == '/';
  return cwd_read ? cwd_text : NULL;
}

/* The build tree the compile runs in (find_build_root), looked up once; NULL when none. */
const char* build_root(void) {
  if (root_found < 0)
    root_found = current_dir() && find_build_root(current_dir(), root);
  return root_found ? root : NULL;
}

/* The compile runs in DIR, taken for its build tree: the working directory changed, PWD named. */
bool run_in(const char* dir) {
  static char pwd_entry[sizeof "PWD=" + PATH_MAX];
  if (strlen(dir) >= PATH_MAX || chdir(dir) != 0)
    return false;
  concat(cwd_text, sizeof cwd_text, dir, NULL);
  concat(root, sizeof root, dir, NULL);
  cwd_read = true;
  root_found = 1;
  concat(pwd_entry, sizeof pwd_entry, "PWD=", dir, NULL);
  putenv(pwd_entry);
  return true;
}

/* The base_dir ccache uses for this compile: the user's CCACHE_BASEDIR (NULL when set but empty),
 * else the build tree's root. NULL: none. */
const char* base_dir(void) {
  const char* user = getenv("CCACHE_BASEDIR");
  if (user)
    return *user == '/' ? user : NULL;
  return build_root();
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

/* environ + secrets + setenv defaults + appendenv + the tool's own + SHIMCTL_RECORD (ARGS) +
 * SHIMCTL_ACTIVE=1, into cache_env. */
bool build_cache_environment(const struct shim_cache_tool* tool, char** args) {
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
  if (depend_plan == DEPEND_OFF && !push_env(nodepend_entry))
    return false;
  if (!tool->add_environment())
    return false;
  if (decide_store_use() && !tool->leave_store_out())
    return false;
  if (!push_record_entry(args))
    return false;
  if (!push_env(active_entry))
    return false;
  cache_env[cache_env_count] = NULL;
  return true;
}
