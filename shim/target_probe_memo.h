/* Memoised target probes (target_probe_memo.c). */
#ifndef SHIMCTL_SHIM_TARGET_PROBE_MEMO_H
#define SHIMCTL_SHIM_TARGET_PROBE_MEMO_H

#include "target_key.h"

#include <stdbool.h>
#include <stddef.h>

/* PROBE's answer (its stdout into OUT, as run_and_read) from the user's memo while nothing it
 * depends on changed, else by running it (and keeping a successful answer). */
bool run_probe_memoised(const char* probe, char* out, size_t cap, size_t* len, int* status);

/* mkdir -p of PATH[0..DIR_LEN) (new levels 0700); false unless that directory is this user's
 * and nobody else may write it (no symlink). */
bool own_memo_dir(char* path, size_t dir_len);

/* Appends ";NAME=VALUE" for each variable that changes which GPUs a probe sees and is set. */
bool key_visibility(struct target_key* key);

#endif
