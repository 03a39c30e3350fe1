/* `shimctl measure`: the shim's records.
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
 * - a call it handed to a cache tool: SHIMCTL_MEASURE_CACHE_DIR, then KIND DIR: the tool's kind
 *   (the config's cache-kind) and the cache directory the call used (the rest of the line);
 *   measure adds up the entries there that the build wrote or used (build/build_needs.hpp).
 * ccache's calls are in ccache's own stats log. Without SHIMCTL_MEASURE_LOG a ccache shim appends
 * its not-sent records to CCACHE_STATSLOG when set, the reason named by ccache's counter of the
 * same meaning (shimctl_not_sent_stats_log_name), as shims did before measure had a log. */
#ifndef SHIMCTL_FORMATS_MEASURE_H
#define SHIMCTL_FORMATS_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_MEASURE_LOG "SHIMCTL_MEASURE_LOG"
#define SHIMCTL_MEASURE_NOT_SENT "# shimctl-shim: ran without the cache"
#define SHIMCTL_MEASURE_SCCACHE "# shimctl-shim: sccache"
#define SHIMCTL_MEASURE_CACHE_DIR "# shimctl-shim: cache dir"
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
