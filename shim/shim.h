/* The shim's own state and its system calls (sys.c), shared by main.c and identity_guard.c. */
#ifndef SHIMCTL_SHIM_SHIM_H
#define SHIMCTL_SHIM_SHIM_H

#include "formats.h"
#include "text.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define STRICT_HINT " (SHIMCTL_STRICT=1; unset it to compile without the cache)"
#define FINGERPRINT_KEY_LEN 32 /* hex digits of the fingerprint in the cache key */

struct shim {
  char self_path[PATH_MAX]; /* D/N: the shim's real path */
  char self_dir[PATH_MAX];  /* D */
  const char* self_name;    /* N */
  char config_path[PATH_MAX];
  char problem[PATH_MAX + 256]; /* why the config cannot be used */
  bool trace;                   /* SHIMCTL_SHIM_TRACE=1 */
  bool self_replaced; /* our file was replaced while we started (a rollback or reinstall) */
  struct shimctl_config config;
};
extern struct shim shim;

/* ---- sys.c: every system call the shim makes -------------------------------------------- */
/* Prints "shimctl-shim: <parts>" as one line to stderr. */
void say(const char* first, ...);
bool env_is(const char* name, const char* value);
bool path_in_self_dir(char out[PATH_MAX], const char* name, const char* suffix);
bool find_in_path(const char* name, char out[PATH_MAX]);
bool locate_self(const char* argv0);
/* open(2) with O_CLOEXEC added, in one system call (musl's open() adds an fcntl). */
int open_file(const char* path, int flags, mode_t mode);
bool read_small_file(const char* path, char* buf, size_t max, size_t* len, bool mine);
const char* load_config(void);
bool parent_is_cache_launcher(void);
bool prefix_of_state(char out[PATH_MAX]);
_Noreturn void exec_original(const char* real, const char* name, char** argv);
_Noreturn void run_without_config(char** argv, const char* invoked, const char* why);
bool run_and_read(char* const args[], char* out, size_t cap, size_t* len, int* status);
void log_event(const char* event, const char* reason);
/* Under `shimctl measure` (CCACHE_STATSLOG set): appends a record of a call the shim ran without
 * the cache, in ccache's stats-log format ("# <what>" then the counter COUNTER). */
void record_uncached_call(const char* counter);
void log_event_once(const char* event, const char* reason);
bool find_directory_config(const char* dir, char found[PATH_MAX]);
bool find_build_root(const char* dir, char root[PATH_MAX]);
const char* unwritable_ccache_dir(const char* dir);
int open_directory(const char* path);
void close_directory(int fd);
bool input_unchanged(int dir_fd, const struct shimctl_snapshot_input* input);

/* ---- sccache_server.c ------------------------------------------------------------------- */
/* True when an sccache server answers on the port SCCACHE (run with ENV) uses, or once one was
 * started (`sccache --start-server`, one shim at a time); false: the compile must run uncached. */
bool sccache_server_ready(const char* sccache, char* const env[]);

/* ---- identity_guard.c ------------------------------------------------------------------- */
/* Puts the first FINGERPRINT_KEY_LEN digits of the toolchain's current fingerprint at KEY;
 * false when unknown. */
bool know_identity(char* key);

#endif
