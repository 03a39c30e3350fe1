/* The target in the cache key: what decides the object besides the command line, the sources and
 * the toolchain's files. Pure functions: the shim runs the probe and reads /proc/cpuinfo. */
#ifndef SHIMCTL_SHIM_TARGET_KEY_H
#define SHIMCTL_SHIM_TARGET_KEY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The key, ";NAME=VALUE;cpu=...;gpus=...", NUL-terminated in BUF. */
struct target_key {
  char* buf;
  size_t cap;
  size_t len;
};

/* Appends A, B and C; false (the key unchanged in length) when they do not fit. */
bool key_append(struct target_key* key, const char* a, const char* b, const char* c);

/* Appends ";cpu=..." with what INFO (/proc/cpuinfo, LEN bytes, modified in place) says of the
 * first CPU that decides what -march=native means (vendor, family, model, name, cache size,
 * feature flags). */
bool key_host_cpu(struct target_key* key, char* info, size_t len);

/* Appends ";gpus=<OUT>" (the probe's output, modified in place: newlines as commas), and
 * ";probe-status=N" (or "signal") unless the probe exited with 0 (STATUS: its wait status). */
bool key_probe_output(struct target_key* key, char* out, int status);

#ifdef __cplusplus
}
#endif

#endif
