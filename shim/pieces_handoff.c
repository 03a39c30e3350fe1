/* Per-target pieces (installer/shimctl/pieces/), the shim's side (shim.h).
 * The cache tool runs the compiler only on a miss, and then through this shim (SHIMCTL_ACTIVE):
 * there a clang HIP compile of one source for two or more GPU targets (with SHIMCTL_PIECES=1,
 * one too) goes to `shimctl compile-pieces`, which builds the object from one cached piece per
 * target (or runs the compile whole, saying why). The hit path never comes here.
 * SHIMCTL_PIECES=0 turns it off. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "call_traits.h"
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

void exec_helper(const char* const* head, size_t count, int argc, char** argv) {
  size_t n = 0;
  cache_argv[n++] = (char*)shim.config.pieces_helper;
  for (size_t i = 0; i < count; i++)
    cache_argv[n++] = (char*)head[i];
  for (int i = 0; i < argc; i++)
    cache_argv[n++] = argv[i];
  cache_argv[n] = NULL;
  execve(shim.config.pieces_helper, cache_argv, environ);
}

void compile_pieces(const char* real,
                    const struct shimctl_compiler* compiler,
                    const struct call_traits* call,
                    int argc,
                    char** argv,
                    char* for_cache) {
  if (!shim.config.pieces_helper || env_is("SHIMCTL_PIECES", "0") ||
      starts_with(base_name(compiler->name), "hipcc") || (size_t)argc + 8 > MAX_ARGS)
    return;
  /* A piece's own compile that asks for the new offload driver's image (piece_image.hpp): the
   * helper makes it (its mark is made first: a miss). */
  bool image =
    call->device_only && getenv("SHIMCTL_PIECE_MARK") && env_is("SHIMCTL_PIECE_IMAGE", "1");
  if (call->kind != CALL_COMPILE || !call->object_compile || (call->device_only && !image) ||
      call->gpu_targets < (image || env_is("SHIMCTL_PIECES", "1") ? 1u : 2u) ||
      !compiles_hip(call, false))
    return;
  const char* head[] = {
    "compile-pieces", shim.config.cache_path, shim_cache_tool()->kind, real, for_cache, "--"
  };
  exec_helper(head, sizeof head / sizeof *head, argc, argv); /* else: the compile runs whole */
}

/* A piece's compile (a target's device-only compile, or the host half) that the cache tool runs:
 * a miss. `shimctl compile-pieces` names a file in SHIMCTL_PIECE_MARK for each piece and tells hit
 * from miss by it (sccache says neither per call). */
void mark_piece_compiled(const struct call_traits* call) {
  const char* mark = getenv("SHIMCTL_PIECE_MARK");
  if (!mark || call->kind != CALL_COMPILE)
    return;
  int fd = open_file(mark, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600);
  if (fd >= 0)
    close(fd);
}

/* SHIMCTL_CACHE_CALL (formats/cache_call.h) in the cache tool's environment for CALL, a HIP
 * compile naming a GPU target: cache_argv after the tool's path. Nothing when it does not apply or
 * fit (the object is then not derived, only compiled). */
void push_cache_call_entry(const struct call_traits* call, bool hipcc) {
  static char entry[sizeof SHIMCTL_CACHE_CALL_VAR + SHIMCTL_CACHE_CALL_MAX];
  if (!shim.config.pieces_helper || call->gpu_targets == 0 || !compiles_hip(call, hipcc))
    return;
  size_t n = concat(entry, sizeof entry, SHIMCTL_CACHE_CALL_VAR "=", NULL);
  for (size_t i = 1; cache_argv[i]; i++) {
    size_t len = strlen(cache_argv[i]);
    if (memchr(cache_argv[i], SHIMCTL_CACHE_CALL_SEPARATOR, len) || n + len + 2 > sizeof entry)
      return;
    if (i > 1)
      entry[n++] = SHIMCTL_CACHE_CALL_SEPARATOR;
    memcpy(entry + n, cache_argv[i], len);
    n += len;
  }
  entry[n] = '\0';
  long at = find_env(SHIMCTL_CACHE_CALL_VAR "=", sizeof SHIMCTL_CACHE_CALL_VAR);
  if (at >= 0)
    cache_env[at] = entry;
  else if (push_env(entry))
    cache_env[cache_env_count] = NULL;
}

/* `shimctl compile-pieces` asks the cache tool for an earlier target set's object with
 * SHIMCTL_LOOKUP_ONLY=1 (installer/shimctl/pieces/derive.hpp): the compile it runs on a miss
 * compiles nothing and fails, so that the tool stores nothing. */
bool looks_up_only(const struct call_traits* call) {
  return call->kind == CALL_COMPILE && getenv("SHIMCTL_PIECE_MARK") &&
         env_is("SHIMCTL_LOOKUP_ONLY", "1");
}

/* A piece's device-only compile under ccache's depend mode names its depfile as `-MF F`
 * (compile-pieces, piece_compile.cpp): clang-17 and later write none for a device-only compile
 * (the driver drops -MF and warns), and ccache would then compile again. The device cc1 gets it
 * directly: `-Xclang -dependency-file -Xclang F` (with -MD it has -MT and -sys-header-deps). */
char** piece_depfile_arguments(const struct call_traits* call, int argc, char** argv) {
  if (!getenv("SHIMCTL_PIECE_MARK") || !call->device_only || (size_t)argc + 4 > MAX_ARGS)
    return argv;
  static char xclang[] = "-Xclang", dependency_file[] = "-dependency-file";
  int at = 1;
  while (at + 1 < argc && strcmp(argv[at], "-MF") != 0)
    at++;
  if (at + 1 >= argc)
    return argv;
  size_t n = 0;
  for (int i = 0; i < argc; i++) {
    if (i == at) {
      cache_argv[n++] = xclang;
      cache_argv[n++] = dependency_file;
      cache_argv[n++] = xclang;
      continue;
    }
    cache_argv[n++] = argv[i];
  }
  cache_argv[n] = NULL;
  return cache_argv;
}

/* A per-target device link of the new offload driver: clang-linker-wrapper runs the clang beside
 * it (this shim) with --target=amdgcn-amd-amdhsa, -o and no -c, for each GPU target. Under a
 * link through a shim (SHIMCTL_ACTIVE=link: not a compile the cache tool runs, whose object is
 * cached whole) it goes to `shimctl device-link` (installer/shimctl/links/), keyed by the
 * toolchain's identity; SHIMCTL_DEVICE_LINKS=0 turns that off. Returns when it does not apply
 * (the link then runs as given). */
void hand_off_device_link(const char* real, const struct call_traits* call, int argc, char** argv) {
  if (env_is("SHIMCTL_DEVICE_LINKS", "0") || !env_is("SHIMCTL_ACTIVE", "link") ||
      !shim.config.pieces_helper || call->kind != CALL_LINK || (size_t)argc + 8 > MAX_ARGS)
    return;
  bool amdgcn = false, output = false;
  for (int i = 1; i < argc; i++) {
    amdgcn = amdgcn || strcmp(argv[i], "--target=amdgcn-amd-amdhsa") == 0;
    output = output || strcmp(argv[i], "-o") == 0;
  }
  static char identity[FINGERPRINT_KEY_LEN + 1];
  if (!amdgcn || !output || !shim.config.identity_helper || !know_identity(identity))
    return;
  identity[FINGERPRINT_KEY_LEN] = '\0';
  const char* head[] = { "device-link", real, identity, "--" };
  exec_helper(head, sizeof head / sizeof *head, argc, argv); /* else: the link runs as given */
}

/* The device links' store is the install's (installer/shimctl/cache/link_store_place.hpp: beside
 * a shared cache, read-only with --remote-read-only): under a link the shim names its state
 * directory in SHIMCTL_LINK_STATE for `shimctl device-link` and the old driver's `lld`. */
void name_link_state(void) {
  static char entry[sizeof "SHIMCTL_LINK_STATE=" + PATH_MAX];
  if (shim.config.state_dir &&
      concat(entry, sizeof entry, "SHIMCTL_LINK_STATE=", shim.config.state_dir, NULL) <
        sizeof entry)
    putenv(entry);
}

/* The old offload driver (clang <= 22) runs each GPU target's device link itself, as the `lld`
 * it finds first in COMPILER_PATH. Under a HIP link (--hip-link, or hipcc) the shim puts a
 * directory of the user's own first there, whose `lld` is shimctl (<private runtime
 * dir>/link-tools/lld -> the config's pieces-helper): it serves that device link from the store
 * (installer/shimctl/links/) and runs any other lld call as it is. The toolchain's identity goes
 * along in SHIMCTL_LINK_IDENTITY. Nothing changes when any of it cannot be set up. */
void route_old_driver_device_links(const struct shimctl_compiler* compiler, int argc, char** argv) {
  if (env_is("SHIMCTL_DEVICE_LINKS", "0") || !shim.config.pieces_helper ||
      !shim.config.identity_helper)
    return;
  bool hip_link = starts_with(base_name(compiler->name), "hipcc");
  for (int i = 1; i < argc && !hip_link; i++)
    hip_link = strcmp(argv[i], "--hip-link") == 0;
  static char dir[PATH_MAX];
  char link[PATH_MAX], target[PATH_MAX];
  if (!hip_link || !shimctl_private_runtime_dir(dir, sizeof dir - 16))
    return;
  concat(dir + strlen(dir), 16, "/link-tools", NULL);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return;
  if (concat(link, sizeof link, dir, "/lld", NULL) >= sizeof link)
    return;
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n < 0 || (size_t)n != strlen(shim.config.pieces_helper) ||
      memcmp(target, shim.config.pieces_helper, (size_t)n) != 0) {
    unlink(link);
    if (symlink(shim.config.pieces_helper, link) != 0)
      return;
  }
  static char identity_entry[sizeof "SHIMCTL_LINK_IDENTITY=" + FINGERPRINT_KEY_LEN];
  static char path_entry[sizeof "COMPILER_PATH=" + 2 * PATH_MAX];
  char identity[FINGERPRINT_KEY_LEN + 1];
  if (!know_identity(identity))
    return;
  identity[FINGERPRINT_KEY_LEN] = '\0';
  const char* old = getenv("COMPILER_PATH");
  if (concat(path_entry,
             sizeof path_entry,
             "COMPILER_PATH=",
             dir,
             old ? ":" : "",
             old ? old : "",
             NULL) >= sizeof path_entry)
    return;
  concat(identity_entry, sizeof identity_entry, "SHIMCTL_LINK_IDENTITY=", identity, NULL);
  putenv(identity_entry);
  putenv(path_entry);
}
