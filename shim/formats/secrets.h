/* The secrets file: STATE_DIR/secrets. Credentials (a remote's password) live only here, never
 * in the config or the manifest: mode 0600 (root's use only) or 0640 with the shared cache's
 * group. One NAME=VALUE line each; the shim applies them as setenv defaults that win over the
 * config's setenv lines of the same NAME. A user who cannot read the file compiles with the
 * config's values (the local cache). */
#ifndef SHIMCTL_FORMATS_SECRETS_H
#define SHIMCTL_FORMATS_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_SECRETS_NAME "secrets"
#define SHIMCTL_SECRETS_MAX (64 * 1024)

#ifdef __cplusplus
}
#endif

#endif
