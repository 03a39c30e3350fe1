/* Each user's own sccache server.
 * sccache runs the compile in its server, as the user who started that server, with the storage
 * settings that server started with. So every user gets a server of their own per configuration
 * (KEY, from the sccache-server line): over a unix socket SHIMCTL_SCCACHE_SOCKET_NAME in a
 * directory only that user can enter (sccache >= 0.9), else on the TCP port below, whose listener
 * the shim checks belongs to the user before it lets sccache connect (sccache 0.4). Rollback
 * finds the servers by SHIMCTL_SCCACHE_SERVER_OF=<state dir> in their environment. */
#ifndef SHIMCTL_FORMATS_SCCACHE_SERVER_H
#define SHIMCTL_FORMATS_SCCACHE_SERVER_H

#include "config.h"
#include "hash.h"
#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
