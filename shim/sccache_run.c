/* sccache as the shim runs it (cache_tool.h): each user's own server for the configuration
 * (sccache_server.c), the GPU target key on its cache buster, and run as a child (cache_run.c):
 * sccache can fail a compile for reasons of its own, and then the compile runs uncached. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"
#include "target_key.h"

#include <stdlib.h>
#include <string.h>

/* sccache's default cache directory: <cache home>/sccache (formats.h's one rule). */
static const char* sccache_default_dir(void) {
  static char dir[PATH_MAX];
  size_t len = shimctl_user_cache_home(dir, sizeof dir, getenv("XDG_CACHE_HOME"), getenv("HOME"));
  return len && concat(dir + len, sizeof dir - len, "/sccache", NULL) < sizeof dir - len ? dir
                                                                                         : NULL;
}

/* Its cache buster carries the target key. A chain with a disk level (the local tier in front of
 * a store) needs SCCACHE_DIR: sccache will not start without it ("Disk cache specified in levels
 * but not configured"), so the user's default goes in when the config and the user name none. */
static bool sccache_add_environment(void) {
  static char dir_entry[sizeof "SCCACHE_DIR=" + PATH_MAX];
  const char chain[] = "SCCACHE_MULTILEVEL_CHAIN=", dir[] = "SCCACHE_DIR=";
  if (find_env(chain, sizeof chain - 1) >= 0 && find_env(dir, sizeof dir - 1) < 0) {
    const char* path = sccache_default_dir();
    if (path && concat(dir_entry, sizeof dir_entry, dir, path, NULL) < sizeof dir_entry &&
        !push_env(dir_entry))
      return false;
  }
  const char buster[] = "SCCACHE_C_CUSTOM_CACHE_BUSTER=";
  long at = find_env(buster, sizeof buster - 1);
  /* A compile whose object names its directory (-g: DW_AT_comp_dir) is keyed by it, as ccache's
   * hash_dir keys it: no other build directory's debug information is served. */
  if (location_bound_call && current_dir() && at >= 0 &&
      !(cache_env[at] = joined_value(cache_env[at], current_dir())))
    return false;
  if (!target_key.len)
    return true;
  return at >= 0 && (cache_env[at] = with_target_key(cache_env[at])) != NULL;
}

/* The variables that name a store to sccache (a chain of levels, each backend's settings). */
static const char* const sccache_store_variables[] = { "SCCACHE_MULTILEVEL_", "SCCACHE_REDIS",
                                                       "SCCACHE_WEBDAV",      "SCCACHE_BUCKET",
                                                       "SCCACHE_ENDPOINT",    "SCCACHE_REGION",
                                                       "SCCACHE_S3_",         "SCCACHE_GCS_",
                                                       "SCCACHE_AZURE_",      "SCCACHE_MEMCACHED",
                                                       "SCCACHE_GHA_",        "SCCACHE_OSS_",
                                                       "SCCACHE_COS_",        NULL };

/* The team store out (store_health.c): its variables leave cache_env, so the local-only server
 * (sccache_server_entry names it while store_left_out) reads and writes the disk cache alone,
 * the chain's disk level (SCCACHE_DIR stays). */
static bool sccache_leave_store_out(void) {
  size_t kept = 0;
  for (size_t i = 0; i < cache_env_count; i++) {
    bool store = false;
    for (const char* const* v = sccache_store_variables; *v && !store; v++)
      store = starts_with(cache_env[i], *v);
    if (!store)
      cache_env[kept++] = cache_env[i];
  }
  cache_env_count = kept;
  cache_env[kept] = NULL;
  return true;
}

/* This user's own server (sccache_server.c) in cache_env, running. */
static bool sccache_prepare(struct tool_refusal* refusal) {
  const char* why = NULL;
  /* The store out and a server the shim does not name (the user's own, an old config's port):
   * that server has the store in its environment and may wait on it: the wait is watched. */
  if (store_left_out && (!shim.config.sccache_server.transport || getenv("SCCACHE_SERVER_UDS") ||
                         getenv("SCCACHE_SERVER_PORT")))
    store_behind_server = true;
  const char* entry = sccache_server_entry(&why);
  bool ready = false;
  if (!why && (!entry || push_env((char*)entry))) { /* no entry: the user named a server */
    cache_env[cache_env_count] = NULL;
    ready = sccache_server_ready(shim.config.cache_path, cache_env, cache_env_count, &why);
  }
  if (ready)
    return true;
  *refusal = (struct tool_refusal){ "sccache-server-unavailable",
                                    why ? why : "(environment too large)",
                                    false,
                                    SHIMCTL_NOT_SENT_SCCACHE_SERVER_UNAVAILABLE,
                                    "no sccache server of this user's answers: ",
                                    NULL };
  return false;
}

static int sccache_run(struct tool_refusal* refusal) {
  static char reason[256];
  record_sccache_call(shim.config.cache_path, cache_env);
  int status = run_cache_tool(shim.config.cache_path, cache_argv, cache_env, reason);
  if (status >= 0)
    return status;
  bool store_out = strcmp(reason, store_abandoned_reason) == 0;
  *refusal =
    (struct tool_refusal){ store_out ? "store-out" : "sccache-failed",
                           reason,
                           false,
                           store_out ? SHIMCTL_NOT_SENT_STORE_OUT : SHIMCTL_NOT_SENT_SCCACHE_FAILED,
                           NULL,
                           NULL };
  return -1;
}

const struct shim_cache_tool sccache_shim_tool = {
  .kind = SHIMCTL_CACHE_KIND_SCCACHE,
  .identity_key_variable = NULL, /* its buster carries shimctl's key (the installer's) */
  .has_depend_mode = false,
  .ends_store_wait = false, /* a read waits 60 s, a write for ever */
  .dir_variable = "SCCACHE_DIR=",
  .stats_log = NULL,
  .default_dir = sccache_default_dir,
  .add_environment = sccache_add_environment,
  .leave_store_out = sccache_leave_store_out,
  .store_back = end_store_server,
  .prepare = sccache_prepare,
  .run = sccache_run,
};
