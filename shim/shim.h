/* The shim's own state and its system calls (sys.c), shared by main.c and identity_guard.c. */
#ifndef SHIMCTL_SHIM_SHIM_H
#define SHIMCTL_SHIM_SHIM_H

#include "formats.h"
#include "text.h"

#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define STRICT_HINT " (SHIMCTL_STRICT=1; unset it to compile without the cache)"
#define FINGERPRINT_KEY_LEN 32 /* hex digits of the fingerprint in the cache key */
#define SHIM_MAX_ENV 32768     /* environment entries handed to the cache tool */

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
/* Reads up to MAX + 1 bytes of PATH into BUF and NUL-terminates them (*len > max: too large).
 * False with errno set when the file cannot be read. With MINE, also false unless the file is a
 * regular file of this user that nobody else may write. */
bool read_small_file(const char* path, char* buf, size_t max, size_t* len, bool mine);
/* read_small_file of a regular file that only its owner can write (not a link); errno EPERM
 * when it is another kind of file or writable by others. */
bool read_protected_file(const char* path, char* buf, size_t max, size_t* len);
const char* load_config(void);
bool parent_is_cache_launcher(void);
bool prefix_of_state(char out[PATH_MAX]);
_Noreturn void exec_original(const char* real, const char* name, char** argv);
_Noreturn void run_without_config(char** argv, const char* invoked, const char* why);
bool run_and_read(char* const args[], char* out, size_t cap, size_t* len, int* status);
void log_event(const char* event, const char* reason);
/* `shimctl measure`'s log (SHIMCTL_MEASURE_LOG, read once), NULL when unset or empty. */
const char* measure_log(void);
/* Appends HEADER "\n" BODY "\n" to LOG in one write(2) (formats.h), best effort. */
void append_measure_record(const char* log, const char* header, const char* body);
/* Records a call the shim runs without the cache tool, for REASON (formats.h): in measure's log;
 * else, with ccache, in CCACHE_STATSLOG when set, by ccache's counter name. Not for a nested
 * call (SHIMCTL_ACTIVE: its caller is recorded). */
void record_not_sent(enum shimctl_not_sent reason);
void log_event_once(const char* event, const char* reason);
bool find_directory_config(const char* dir, char found[PATH_MAX]);
bool find_build_root(const char* dir, char root[PATH_MAX]);
const char* unwritable_cache_dir(const char* dir);
int open_directory(const char* path);
void close_directory(int fd);
bool input_unchanged(int dir_fd, const struct shimctl_snapshot_input* input);

/* ---- sccache_server.c ------------------------------------------------------------------- */
/* The entry naming this user's own server for the config's sccache-server line
 * ("SCCACHE_SERVER_UDS=<private dir>/sccache-KEY.sock" or "SCCACHE_SERVER_PORT=<port of KEY and
 * the uid>"), to add to the cache tool's environment; NULL when there is nothing to add (no such
 * line, or the user chose the server) or, with *PROBLEM set, when no private directory is
 * usable: the compile must run uncached. */
const char* sccache_server_entry(const char** problem);
/* True when a server of this user's answers where SCCACHE (run with ENV, ENV_COUNT entries and
 * room for one more) will look for it, or once one was started (`sccache --start-server`, one
 * shim at a time); false, with *WHY: the compile must run uncached. */
bool sccache_server_ready(const char* sccache, char** env, size_t env_count, const char** why);
/* Under `shimctl measure` (measure_log()): records that this call goes to SCCACHE at the server
 * ENV names (formats.h). Call it once the server is ready. */
void record_sccache_call(const char* sccache, char* const env[]);

/* ---- cache_run.c ------------------------------------------------------------------------ */
/* Runs the cache tool PATH (ARGV, ENV) as a child with its stderr held back, and waits for it.
 * Returns the exit status to pass on, its stderr written out; or -1 when the tool failed for a
 * reason of its own (REASON: its own message), its stderr dropped: then the compile must run
 * uncached. A termination signal the shim receives goes to the child, and the shim then dies of
 * it too. */
int run_cache_tool(const char* path, char** argv, char** env, char reason[256]);
/* Runs PATH (ARGV, ENV; ACTIONS may be NULL) as a child and waits for it, passing the termination
 * signals the shim receives on to it. Returns posix_spawn's result; *STATUS: the wait status. */
int spawn_and_wait(const char* path,
                   char** argv,
                   char** env,
                   const posix_spawn_file_actions_t* actions,
                   int* status);
/* Writes LEN bytes of DATA to FD (retrying short writes); false when it cannot. */
bool write_all(int fd, const char* data, size_t len);
/* Writes the whole memory file FD to the descriptor TO. */
void copy_out(int fd, int to);
/* The child's end (STATUS) as the shim's own: dies of the signal it passed on or the child died
 * of, as if the child had been exec'd; else returns the exit code. */
int passed_on_status(int status);

/* ---- own_depfile.c ---------------------------------------------------------------------- */
/* A dependency file of the shim's own for a compile that names none, so that ccache can use its
 * depend mode (no preprocessor run on a miss): a fresh path in the user's private runtime
 * directory into OUT, after removing what earlier shims that were killed left there. False
 * when there is no private directory. */
bool own_depfile_path(char out[PATH_MAX]);

/* ---- identity_guard.c ------------------------------------------------------------------- */
/* Puts the first FINGERPRINT_KEY_LEN digits of the toolchain's current fingerprint at KEY;
 * false when unknown. */
bool know_identity(char* key);

#endif
