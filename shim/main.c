/* shimctl-shim: installed by shimctl in place of a compiler; runs the original compiler either
 * directly or through the cache tool, as "The shim contract" in ARCHITECTURE.md describes.
 *
 * It runs on every compile, so the hot path allocates nothing, uses no stdio and makes few
 * syscalls: readlink(/proc/self/exe), open/read/close of the config, the parent check (only
 * outside a nested call), then execve. It never writes to stdout; its rare messages go to
 * stderr in one write(2) each. A compile must never fail because of the cache layer: whenever
 * the cache cannot be used, the original compiler runs directly.
 *
 * This file decides, then execs: which compiler, whether the call goes to the cache tool, and
 * what runs when it cannot. The rest, one concern per file (shim.h has their sections):
 * cache_tool.h with ccache_run.c and sccache_run.c (what differs between the cache tools),
 * cache_env.c (the tool's environment), cache_args.c (the arguments, the -cuid=), call_key.c
 * (the GPU target key), depend_mode.c and own_depfile.c (ccache's depend mode),
 * pieces_handoff.c (per-target pieces), identity_guard.c (the fingerprint for the key),
 * sccache_server.c and cache_run.c (sccache's server, a tool run as a child), store_health.c
 * and output_in_making.c (a team store's health, a wait on it), probe_call_memo.c and
 * target_probe_memo.c (probe calls and target probes answered once), sys.c (every other system
 * call); the pure parts are the library shimctl-shim-formats: config.c, identity_snapshot.c,
 * runtime_dir.c, tcp_listener.c, store_memo.c (formats.h and formats/), call_traits.c (what the
 * arguments say), target_key.c, text.c. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "call_traits.h"
#include "probe_call_memo.h"
#include "shim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef SHIMCTL_SHIM_VERSION
#define SHIMCTL_SHIM_VERSION "0.1.0"
#endif

/* Lets `strings` tell an installed shim's version without running it (running it compiles). */
__attribute__((used)) static const char shim_ident[] = "@(#)shimctl-shim " SHIMCTL_SHIM_VERSION;

struct shim shim;

/* SHIMCTL_ACTIVE under a link or a compile-and-link: nested shims pass their calls on, and a
 * device link per GPU target goes to `shimctl device-link` (hand_off_device_link). */
static char linking_entry[] = "SHIMCTL_ACTIVE=link";

/* The compiler entry for the invoked name: its own, its alias's, or else N's.
 * *known tells whether the invoked name itself is in the config. */
static const struct shimctl_compiler* resolve_compiler(const char* invoked, bool* known) {
  const struct shimctl_compiler* c = shimctl_find_compiler(&shim.config, invoked);
  const struct shimctl_alias* alias = c ? NULL : shimctl_find_alias(&shim.config, invoked);
  if (alias)
    c = shimctl_find_compiler(&shim.config, alias->compiler);
  *known = c != NULL;
  return c ? c : shimctl_find_compiler(&shim.config, shim.self_name);
}

/* `-###` only prints the driver's jobs: nothing to cache, and sccache 0.4 fails on it. */
static bool prints_jobs_only(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-###") == 0)
      return true;
  return false;
}

/* A call the shim hands on untouched: nested (hipcc -> clang++, or the cache running the
 * compiler), under a cache launcher, or `-###`. */
static bool passes_through(int argc, char** argv) {
  return getenv("SHIMCTL_ACTIVE") || prints_jobs_only(argc, argv) || started_by_a_cache_tool();
}

/* Why a call of KIND (not a compile the cache may store) runs without the cache tool. */
static enum shimctl_not_sent not_sent_reason(enum call_kind kind) {
  switch (kind) {
    case CALL_PREPROCESS:
      return SHIMCTL_NOT_SENT_PREPROCESS;
    case CALL_ONE_STEP:
      return SHIMCTL_NOT_SENT_ONE_STEP;
    case CALL_LINK:
      return SHIMCTL_NOT_SENT_LINK;
    case CALL_COMPILE:
    case CALL_NO_INPUT:
      break;
  }
  return SHIMCTL_NOT_SENT_NO_INPUT;
}

/* stdin holds nothing: /dev/null or an empty file (a pipe may hold a source). */
static bool stdin_is_empty(void) {
  struct stat st;
  return fstat(0, &st) == 0 && ((S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) ||
                                (S_ISREG(st.st_mode) && st.st_size == 0));
}

/* A probe call (is_memoisable_probe: aiter's `hipcc FLAG -x hip -E -P /dev/null -o /dev/null`)
 * answered once per toolchain, arguments and environment (call_memo.c): the exit code to pass
 * on, or -1 when it is no such call or cannot be memoised (no identity: the original runs). */
static int answer_probe(const char* real,
                        const struct shimctl_compiler* compiler,
                        struct call_traits call,
                        int argc,
                        char** argv) {
  char identity[FINGERPRINT_KEY_LEN + 1];
  if (call.kind != CALL_PREPROCESS || !shim.config.identity_helper ||
      !is_memoisable_probe(argc, argv, stdin_is_empty()) || !know_identity(identity) ||
      !build_target_key(compiler, call))
    return -1;
  identity[FINGERPRINT_KEY_LEN] = '\0';
  return answer_probe_call(real, identity, target_key.buf, argc, argv);
}

/* REFUSAL's compile runs uncached: logged, recorded, then the original runs. In strict mode,
 * where the refusal has a message, the shim says it and returns 1 instead. */
static int uncached(const struct tool_refusal* refusal,
                    const char* real,
                    const char* name,
                    char** args) {
  if (refusal->event_once)
    log_event_once(refusal->event, refusal->reason);
  else
    log_event(refusal->event, refusal->reason);
  if (refusal->strict && env_is("SHIMCTL_STRICT", "1")) {
    say(refusal->strict,
        refusal->reason,
        refusal->strict_after ? refusal->strict_after : "",
        STRICT_HINT,
        NULL);
    return 1;
  }
  record_not_sent(refusal->not_sent);
  if (shim.trace)
    say(refusal->event, " (", refusal->reason, "): compiling uncached", NULL);
  exec_original(real, name, args);
}

/* The cache dir TOOL would use: its variable when set, else its default (NULL: the tool's own
 * choice, not checked). */
static const char* cache_dir(const struct shim_cache_tool* tool) {
  long at = find_env(tool->dir_variable, strlen(tool->dir_variable));
  if (at >= 0)
    return cache_env[at] + strlen(tool->dir_variable);
  return tool->default_dir ? tool->default_dir() : NULL;
}

/* Under `shimctl measure`: the cache directory this call hands to TOOL (formats/measure.h). */
static void record_cache_dir(const struct shim_cache_tool* tool) {
  const char* log = measure_log();
  if (!log) /* not measuring: the exec path looks up nothing more */
    return;
  const char* dir = cache_dir(tool);
  char body[PATH_MAX + 64];
  if (dir && dir[0] == '/' && concat(body, sizeof body, tool->kind, " ", dir, NULL) < sizeof body)
    append_measure_record(log, SHIMCTL_MEASURE_CACHE_DIR, body);
}

/* The compiler of the invoked name, or a config problem (then the original runs without it). */
static const struct shimctl_compiler* compiler_of(char** argv,
                                                  const char* invoked,
                                                  bool* known,
                                                  char real[PATH_MAX]) {
  const struct shimctl_compiler* compiler = resolve_compiler(invoked, known);
  if (!compiler) {
    concat(shim.problem,
           sizeof shim.problem,
           "no compiler entry for '",
           invoked,
           "' in ",
           shim.config_path,
           NULL);
    run_without_config(argv, invoked, shim.problem);
  }
  if (strcmp(compiler->real_name, shim.self_name) == 0) { /* it would exec itself forever */
    concat(shim.problem,
           sizeof shim.problem,
           "the original of '",
           invoked,
           "' is the shim itself",
           NULL);
    run_without_config(argv, invoked, shim.problem);
  }
  if (!path_in_self_dir(real, compiler->real_name, ""))
    run_without_config(argv, invoked, "path too long");
  return compiler;
}

/* The call through TOOL: keyed, planned, its environment and arguments built, checked, run.
 * Returns the status to exit with; runs the original uncached whenever the cache cannot be used. */
static int through_cache(const struct shim_cache_tool* tool,
                         const struct shimctl_compiler* compiler,
                         const struct call_traits* call,
                         const char* real,
                         char** args,
                         char* for_cache) {
  struct tool_refusal refusal;
  /* The user's own key variable (CCACHE_COMPILERCHECK) wins, as every default does. */
  keyed_by_identity = shim.config.identity_helper && tool->identity_key_variable &&
                      !getenv(tool->identity_key_variable);
  if (keyed_by_identity && !know_identity(identity_key)) {
    refusal = (struct tool_refusal){ "identity-unknown",
                                     shim.config.identity_helper,
                                     false,
                                     SHIMCTL_NOT_SENT_IDENTITY_UNKNOWN,
                                     "cannot establish the toolchain identity: ",
                                     " identity-check failed" };
    return uncached(&refusal, real, compiler->name, args);
  }
  /* The target key rides on shimctl's own key: the identity's, or the tool's (sccache's buster). */
  if ((keyed_by_identity || !tool->identity_key_variable) && !build_target_key(compiler, *call)) {
    refusal = (struct tool_refusal){
      "target-unkeyed", compiler->name, false, SHIMCTL_NOT_SENT_TARGET_UNKEYED, NULL, NULL
    };
    return uncached(&refusal, real, compiler->name, args);
  }
  if (shim.trace && target_key.len)
    say("target key ", target_key.buf, NULL);
  depend_plan = plan_depend_mode(tool, compiler, call);
  if (depend_plan == DEPEND_UNCACHED) {
    record_not_sent(SHIMCTL_NOT_SENT_DEVICE_ONLY_DEPFILE);
    if (shim.trace)
      say("device-only with a depfile (the cache tool would compile again): uncached", NULL);
    exec_original(real, compiler->name, args);
  }
  if (shim.trace && depend_plan == DEPEND_OFF)
    say("device-only: no depend mode", NULL);
  if (shim.trace && depend_plan == DEPEND_OWN_FILE)
    say("depend mode with the shim's depfile ", own_depfile, NULL);
  if (!build_cache_environment(tool, args) || !build_cache_arguments(args, for_cache)) {
    record_not_sent(SHIMCTL_NOT_SENT_SHIM_LIMITS);
    exec_original(real, compiler->name, args);
  }
  push_cache_call_entry(call, starts_with(base_name(compiler->name), "hipcc"));
  const char* unwritable = unwritable_cache_dir(cache_dir(tool));
  if (unwritable) { /* checked first: an sccache server would not start there */
    refusal = (struct tool_refusal){ "cache-dir-unwritable",
                                     unwritable,
                                     false,
                                     SHIMCTL_NOT_SENT_CACHE_DIR_UNWRITABLE,
                                     "cache directory ",
                                     " is not writable by this user" };
    return uncached(&refusal, real, compiler->name, args);
  }
  if (!tool->prepare(&refusal))
    return uncached(&refusal, real, compiler->name, args);
  if (shim.trace)
    say("cache ", shim.config.cache_path, " ", cache_argv[1], NULL);
  store_watched_output = call->output;
  record_cache_dir(tool);
  int status = tool->run(&refusal);
  if (status >= 0)
    return status;
  return uncached(&refusal, real, compiler->name, args); /* never fail a compile for the cache */
}

int main(int argc, char** argv) {
  char* argv0 = argc > 0 ? argv[0] : NULL;
  /* A nested shim's lines would land in the output ccache stores and replays on every hit. */
  shim.trace = env_is("SHIMCTL_SHIM_TRACE", "1") && !getenv("SHIMCTL_ACTIVE");
  if (!locate_self(argv0)) {
    say("cannot find its own executable (/proc/self/exe); run 'shimctl verify'", NULL);
    return 127;
  }
  const char* invoked = argv0 && *base_name(argv0) ? base_name(argv0) : shim.self_name;
  const char* why = load_config();
  if (why)
    run_without_config(argv, invoked, why);
  bool known;
  char real[PATH_MAX];
  const struct shimctl_compiler* compiler = compiler_of(argv, invoked, &known, real);
  if (passes_through(argc, argv)) {
    if (getenv("SHIMCTL_ACTIVE")) {
      struct call_traits nested = traits_of(argc, argv, NULL, NULL);
      record_miss(&nested, argc, argv); /* a miss whose record was asked for */
      mark_piece_compiled(&nested);
      if (looks_up_only(&nested))
        return 1; /* an earlier target set's object asked for (derive.hpp): a miss stores nothing */
      compile_pieces(
        real, compiler, &nested, argc, argv, compiler_for_cache(argv0, invoked, known));
      hand_off_device_link(real, &nested, argc, argv);
      exec_original(real, compiler->name, piece_depfile_arguments(&nested, argc, argv));
    }
    exec_original(real, compiler->name, argv);
  }
  struct call_traits call =
    traits_of(argc, argv, getenv("HCC_AMDGPU_TARGET"), getenv("HIPCC_COMPILE_FLAGS_APPEND"));
  /* The compile in the form that is the same wherever the code sits, cached or not. */
  char** located = location_free_arguments(&argc, argv, &call);
  if (located != argv) {
    argv = located;
    call = traits_of(argc, argv, getenv("HCC_AMDGPU_TARGET"), getenv("HIPCC_COMPILE_FLAGS_APPEND"));
  }
  /* From here on the original runs with the shim's -cuid= too (formats.h): the same object with
   * the cache, without it (SHIMCTL_DISABLE=1) and on every fallback. */
  char** args = compile_arguments(argc, argv, cuid_argument(compiler, &call));
  if (env_is("SHIMCTL_DISABLE", "1"))
    exec_original(real, compiler->name, args);
  if (!call.cached_output) { /* a link, -E, --version: the cache tool would only run it */
    record_not_sent(not_sent_reason(call.kind));
    /* hipcc's own clang++ call (a shim too) passes straight through; under a link the device
     * links per GPU target go to the store (pieces_handoff.c) */
    bool links = call.kind == CALL_LINK || call.kind == CALL_ONE_STEP;
    putenv(links ? linking_entry : active_entry);
    if (links) {
      name_link_state();
      route_old_driver_device_links(compiler, argc, args);
    }
    int answered = answer_probe(real, compiler, call, argc, args);
    if (answered >= 0)
      return answered;
    hand_off_device_link(real, &call, argc, args);
    exec_original(real, compiler->name, args);
  }
  return through_cache(
    shim_cache_tool(), compiler, &call, real, args, compiler_for_cache(argv0, invoked, known));
}
