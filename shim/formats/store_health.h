/* A team store's health, per user: <private runtime dir>/store-<hash>.health.
 * The store line (struct shimctl_store) names how to ask the store whether it answers:
 * redis (connect, "PING", any reply), http (connect, "HEAD /", an HTTP status line), tcp
 * (connect only: a TLS endpoint) or redis-cluster (the address a comma list of seeds: the first
 * that connects says cluster_state:ok, and each master with slots not marked failed connects;
 * an error reply, -NOAUTH, as PING). A store that refuses, does not answer within
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
#ifndef SHIMCTL_FORMATS_STORE_HEALTH_H
#define SHIMCTL_FORMATS_STORE_HEALTH_H

#include "hash.h"
#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_STORE_PROBE_REDIS "redis"
#define SHIMCTL_STORE_PROBE_HTTP "http"
#define SHIMCTL_STORE_PROBE_TCP "tcp"
#define SHIMCTL_STORE_PROBE_REDIS_CLUSTER "redis-cluster"
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

#ifdef __cplusplus
}
#endif

#endif
