/* The shim's own state and what its files share: main.c decides, the others do one thing each
 * (their sections below); cache_tool.h is the seam between the cache tools. */
#ifndef SHIMCTL_SHIM_SHIM_H
#define SHIMCTL_SHIM_SHIM_H

#include "call_traits.h"
#include "formats.h"
#include "target_key.h"
#include "text.h"

#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define STRICT_HINT " (SHIMCTL_STRICT=1; unset it to compile without the cache)"
#define FINGERPRINT_KEY_LEN 32 /* hex digits of the fingerprint in the cache key */
#define SHIM_MAX_ENV 32768     /* environment entries handed to the cache tool */
#define MAX_ARGS 131072        /* arguments handed to the cache tool */
/* Static arrays live in .bss: pages never touched cost nothing. Past these bounds the cache is
 * skipped and the original compiler runs directly. */

struct shim_cache_tool; /* cache_tool.h */

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
bool parent_program(char out[PATH_MAX]);
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
bool find_nearest_holding(const char* dir,
                          const char* const names[],
                          bool regular,
                          char found[PATH_MAX]);
bool find_build_root(const char* dir, char root[PATH_MAX]);
const char* unwritable_cache_dir(const char* dir);
int open_directory(const char* path);
void close_directory(int fd);
bool input_unchanged(int dir_fd, const struct shimctl_snapshot_input* input);

/* ---- sccache_server.c ------------------------------------------------------------------- */
/* The team store is back after an outage: the user's server of the configuration with the
 * store (not its local-only twin) is ended (SIGKILL, found by its socket's peer, this user's
 * only), and its socket removed. Its client of the store may still wait on what died (sccache
 * 0.17's Redis Cluster client waits on a failed master for minutes); the next compile starts a
 * new server. */
void end_store_server(void);
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

/* ---- store_health.c: the team store's health, per user (formats.h) ---------------------- */
/* The config names a team store whose health the shim keeps. */
bool store_configured(void);
/* The store is out for this compile: the tool runs without it (decide_store_use). */
extern bool store_left_out;
/* The store is out, but the tool's server has it in its own environment (sccache: a server the
 * user named): the compile may still wait on it, and that wait is watched. */
extern bool store_behind_server;
/* Decides store_left_out from the memo of the config's store line, asking the store when the
 * verdict is due (at most SHIMCTL_STORE_PROBE_MS). False without a store line. */
bool decide_store_use(void);
/* Before a server starts with the store in its environment (sccache checks the store as it
 * starts): the store asked again (a probe another compile made while this one waited for it
 * counts; an out verdict holds through its cool-down); out: store_left_out, and false (the caller
 * leaves the store out of the environment). */
bool store_answers_before_start(void);
/* store_probe.c: asks the config's store whether it answers (formats/store_health.h: its probe),
 * within SHIMCTL_STORE_PROBE_MS: NULL when it does, else what went wrong, in words (static). */
const char* probe_store(void);
/* The compile uses a store whose health the shim keeps: its wait on the tool is watched. */
bool store_watched(void);
/* The compile's output (-o), for store_watch; NULL: none named. */
extern const char* store_watched_output;
/* While a compile waits on the tool CLIENT it started at STARTED (CLOCK_REALTIME): the store
 * asked again (a verdict younger than SHIMCTL_STORE_WATCH_FRESH_MS holds), and what to do: wait
 * on (the store answers, or the tool's compiler for this compile runs); give up, the output
 * written (sccache waits on its write to the store): the compile is done; or give up and compile
 * uncached (the tool is stuck on the store). */
enum store_watch { STORE_WAIT, STORE_ABANDON, STORE_FINISHED };
enum store_watch store_watch(pid_t client, const struct timespec* started);

/* ---- output_in_making.c ------------------------------------------------------------------ */
/* Another process of this user's, started after CLIENT (the cache tool the shim runs) and
 * running in the shim's directory, names OUTPUT after -o: the sccache server compiles it now. */
bool output_in_making(const char* output, pid_t client);

/* ---- cache_run.c ------------------------------------------------------------------------ */
/* Runs the cache tool PATH (ARGV, ENV) as a child with its stderr held back, and waits for it.
 * Returns the exit status to pass on, its stderr written out; or -1 when the tool failed for a
 * reason of its own (REASON: its own message), its stderr dropped: then the compile must run
 * uncached. A termination signal the shim receives goes to the child, and the shim then dies of
 * it too. */
int run_cache_tool(const char* path, char** argv, char** env, char reason[256]);
/* The REASON run_cache_tool gives when it ended the tool because the store stopped answering
 * (the compile must run uncached); and, the compile's output written, the status it returns. */
extern const char store_abandoned_reason[];
#define STORE_FINISHED_STATUS 0
/* Runs PATH (ARGV, ENV; ACTIONS may be NULL) as a child and waits for it, passing the termination
 * signals the shim receives on to it. Returns posix_spawn's result; *STATUS: the wait status. */
int spawn_and_wait(const char* path,
                   char** argv,
                   char** env,
                   const posix_spawn_file_actions_t* actions,
                   int* status);
/* spawn_and_wait for a tool that uses the team store (store_watched): every
 * SHIMCTL_STORE_WATCH_MS of waiting asks store_watch, and when it says to give up ends the child
 * (SIGTERM) and sets *GAVE_UP to its verdict (else STORE_WAIT). */
int spawn_and_watch(const char* path,
                    char** argv,
                    char** env,
                    const posix_spawn_file_actions_t* actions,
                    int* status,
                    enum store_watch* gave_up);
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

/* ---- cache_env.c: the cache tool's environment ------------------------------------------ */
extern char* cache_env[SHIM_MAX_ENV];
extern size_t cache_env_count;
extern char active_entry[]; /* SHIMCTL_ACTIVE=1: a nested shim passes its call straight on */
/* The identity snapshot keys this compile (main.c decides; the tool's identity_key_variable),
 * by these FINGERPRINT_KEY_LEN digits (know_identity). */
extern bool keyed_by_identity;
extern char identity_key[FINGERPRINT_KEY_LEN + 1];
/* Appends ENTRY (not terminated: the builder does that); false when full. */
bool push_env(char* entry);
/* Index of the first "NAME=" entry (NAME_LEN counts the '='), as getenv finds it; -1 if none. */
long find_env(const char* name, size_t name_len);
/* "NAME=OLD" + ":" + VALUE, in the shim's arena; NULL when full. */
char* joined_value(const char* old_entry, const char* value);
/* ENTRY with the target key appended, in the shim's arena; NULL when full. */
char* with_target_key(const char* entry);
/* The working directory, read once; NULL when unknown. */
const char* current_dir(void);
/* The build tree the compile runs in (find_build_root), looked up once; NULL when none. */
const char* build_root(void);
/* The compile runs in DIR from now on, taken for its build tree (the working directory changed,
 * PWD set); false when it cannot change there. */
bool run_in(const char* dir);
/* The base_dir ccache uses for this compile: the user's CCACHE_BASEDIR (NULL when set but
 * empty), else the build tree's root. NULL: none. */
const char* base_dir(void);
/* environ + secrets + setenv defaults + appendenv + TOOL's own + SHIMCTL_RECORD (ARGS' depfile) +
 * SHIMCTL_ACTIVE=1, terminated.
 * False when it does not fit. */
bool build_cache_environment(const struct shim_cache_tool* tool, char** args);

/* ---- call_key.c: the GPU target key of a call ------------------------------------------- */
extern struct target_key target_key;
/* Fills target_key for COMPILER called as CALL. False: the object depends on what cannot be
 * keyed (a native target and no probe, a failed probe, a key too long): compile uncached. */
bool build_target_key(const struct shimctl_compiler* compiler, struct call_traits call);

/* ---- cache_args.c: the compile's arguments ---------------------------------------------- */
extern char* cache_argv[MAX_ARGS];
/* The compiler as the cache tool should run it: the path the caller used. */
char* compiler_for_cache(char* argv0, const char* invoked, bool known);
/* "-cuid=<value>" for CALL (formats.h), or NULL when the call gets none. */
char* cuid_argument(const struct shimctl_compiler* compiler, const struct call_traits* call);
/* ARGV with EXTRA appended (a static copy), or ARGV itself without EXTRA or when it does not fit.
 */
char** compile_arguments(int argc, char** argv, char* extra);
/* cache_argv: the tool, COMPILER, ARGV's arguments and the shim's own depfile; false: too many. */
bool build_cache_arguments(char** argv, char* compiler);

/* ---- depend_mode.c: how ccache's depend mode meets a call ------------------------------- */
enum depend_plan { DEPEND_AS_SET, DEPEND_OFF, DEPEND_OWN_FILE, DEPEND_UNCACHED };
extern enum depend_plan depend_plan;
extern char own_depfile[PATH_MAX]; /* DEPEND_OWN_FILE: its path */
extern char nodepend_entry[];      /* CCACHE_NODEPEND=1 */
extern char depend_mode_entry[];   /* CCACHE_DEPEND=1 */
enum depend_plan plan_depend_mode(const struct shim_cache_tool* tool,
                                  const struct shimctl_compiler* compiler,
                                  const struct call_traits* call);

/* ---- pieces_handoff.c: per-target pieces ------------------------------------------------ */
/* Execs the config's pieces-helper (shimctl) with HEAD's COUNT words, then ARGV, in cache_argv
 * (unused on these paths); returns only when the exec fails. The callers leave room: argc + 8. */
void exec_helper(const char* const* head, size_t count, int argc, char** argv);
/* Execs `shimctl compile-pieces` for a nested compile of the cache tool's miss when pieces
 * apply; returns when they do not (the compile then runs whole). */
void compile_pieces(const char* real,
                    const struct shimctl_compiler* compiler,
                    const struct call_traits* call,
                    int argc,
                    char** argv,
                    char* for_cache);
/* A piece's compile that the cache tool runs (a miss): marks SHIMCTL_PIECE_MARK. */
void mark_piece_compiled(const struct call_traits* call);
bool looks_up_only(const struct call_traits* call);
/* SHIMCTL_CACHE_CALL for a HIP compile, into cache_env (formats/cache_call.h). */
void push_cache_call_entry(const struct call_traits* call, bool hipcc);
/* A piece's device-only compile with `-MF F`: the arguments with `-Xclang -dependency-file
 * -Xclang F` in its place (in cache_argv), for depend mode; else ARGV. */
char** piece_depfile_arguments(const struct call_traits* call, int argc, char** argv);
/* Under a link: SHIMCTL_LINK_STATE=<the config's state dir>, where the device links' store is
 * found (installer/shimctl/cache/link_store_place.hpp). */
void name_link_state(void);
/* Under a HIP link: the old offload driver's per-target lld jobs through shimctl (COMPILER_PATH,
 * SHIMCTL_LINK_IDENTITY); nothing when that cannot be set up. */
void route_old_driver_device_links(const struct shimctl_compiler* compiler, int argc, char** argv);
/* A per-target device link (new offload driver) under a link: execs `shimctl device-link`;
 * returns when it does not apply (SHIMCTL_DEVICE_LINKS=0 among others). */
void hand_off_device_link(const char* real, const struct call_traits* call, int argc, char** argv);

/* ---- miss_record.c: a compile record on a miss (formats/miss_record.h) -------------------- */
/* Adds SHIMCTL_RECORD (what only the outer shim knows: the store's state, the identity and GPU
 * target keys, the depfile of ARGS) to the cache tool's environment; false when it is full. */
bool push_record_entry(char** args);
/* A nested compile the cache tool runs (a miss) whose caller asked for a record: execs
 * `shimctl record-miss`; returns when no record applies. */
void record_miss(const struct call_traits* call, int argc, char** argv);

/* ---- anywhere.c: a compile the same wherever the code sits (path_roots.h) ---------------- */
/* A compile's arguments with every path under its roots in the location-free form, response
 * files expanded (*ARGC: their count), the build root's view made; ARGV itself when the call
 * keeps its absolute form (not a compile, SHIMCTL_ANYWHERE=0, the user's CCACHE_BASEDIR or
 * SCCACHE_BASEDIRS, debug information, no build tree, an argument naming a root that cannot be
 * rewritten: the last two with an event). */
char** location_free_arguments(int* argc, char** argv, const struct call_traits* call);
/* The call asks for what names its place (-g, coverage): its key must name the place too. */
extern bool location_bound_call;

/* ---- identity_guard.c ------------------------------------------------------------------- */
/* Puts the first FINGERPRINT_KEY_LEN digits of the toolchain's current fingerprint at KEY;
 * false when unknown. */
bool know_identity(char* key);
/* The same from a current snapshot alone (the prefix's or the user's); false when neither is. */
bool current_identity(char* key);

#endif
