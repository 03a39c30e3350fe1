/* The cache tools as the shim runs them: what differs between ccache and sccache on the hot path,
 * one entry per tool in a table picked by the config's cache-kind (the shim's twin of
 * installer/shimctl/cache/tool.hpp). main.c decides whether a call goes to the cache tool at all;
 * the entry says what the tool needs and how it runs. */
#ifndef SHIMCTL_SHIM_CACHE_TOOL_H
#define SHIMCTL_SHIM_CACHE_TOOL_H

#include "shim.h"

/* Why a compile cannot go through the cache tool: it then runs uncached (main.c). */
struct tool_refusal {
  const char* event;  /* for events.log */
  const char* reason; /* the event's detail */
  bool event_once;    /* logged once while it stays the last event (a file every compile finds) */
  enum shimctl_not_sent not_sent; /* for `shimctl measure` */
  const char* strict; /* strict mode's message before REASON; NULL: strict mode compiles too */
  const char* strict_after; /* and after it (NULL: nothing) */
};

struct shim_cache_tool {
  const char* kind; /* the config's cache-kind (SHIMCTL_CACHE_KIND_*) */
  /* The variable through which shimctl's identity snapshot keys its compiles, unless the user
   * set it (ccache: CCACHE_COMPILERCHECK); NULL: the installer's key is in its config already
   * (sccache's cache buster), the GPU target key rides on it. */
  const char* identity_key_variable;
  bool has_depend_mode; /* a depend mode the shim plans per call (depend_mode.c) */
  /* A store that stops answering costs it a bounded wait of its own (ccache's
   * operation-timeout): the shim never ends it for the store's sake. */
  bool ends_store_wait;
  const char* dir_variable;         /* "NAME=" of the variable naming its cache directory */
  const char* stats_log;            /* its own per-call stats log variable (NULL: none) */
  const char* (*default_dir)(void); /* its cache directory when DIR_VARIABLE is unset, or NULL */
  /* Its own entries in cache_env, after the config's (cache_env.c). False: no room. */
  bool (*add_environment)(void);
  /* Takes the team store out of cache_env, leaving the local tier (store_health.c says when).
   * False: no room. */
  bool (*leave_store_out)(void);
  /* The team store answers again after an outage (store_health.c): what the tool holds of the
   * store from before is let go. NULL: nothing. */
  void (*store_back)(void);
  /* What must hold before it runs (ccache: no ccache.conf of a directory is read; sccache: a
   * server of this user's answers). False fills *REFUSAL. */
  bool (*prepare)(struct tool_refusal* refusal);
  /* Runs it (cache_argv, cache_env): the exit status to pass on (when it exec'd, no return), or
   * -1 with *REFUSAL filled: the compile runs uncached. */
  int (*run)(struct tool_refusal* refusal);
};

/* The config's cache tool (ccache when the config names none or an unknown one: config.c
 * refuses that). */
const struct shim_cache_tool* shim_cache_tool(void);

/* True when one of the cache tools started us (our parent's program is named after its kind):
 * that process is already the cache layer. */
bool started_by_a_cache_tool(void);

extern const struct shim_cache_tool ccache_shim_tool;  /* ccache_run.c */
extern const struct shim_cache_tool sccache_shim_tool; /* sccache_run.c */

#endif
