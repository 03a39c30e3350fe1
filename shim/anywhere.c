/* A compile made the same wherever the code sits (shim.h; the forms: path_roots.h): its roots
 * found, the build root's view of the others made, its arguments rewritten (response files
 * expanded). A compile that cannot be rewritten safely keeps its absolute form, as before. */
#define _GNU_SOURCE
#include "option_table.h"
#include "path_roots.h"
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARENA_SIZE (2 * 1024 * 1024) /* rewritten arguments and response files' text */
#define RESPONSE_FILE_MAX (512 * 1024)
#define CMAKE_CACHE_MAX (1024 * 1024)

bool location_bound_call;

static char arena[ARENA_SIZE];
static size_t arena_used;
static char* flat_argv[MAX_ARGS];
static char* free_argv[MAX_ARGS];
static char root_paths[SHIMCTL_ROOT_COUNT][PATH_MAX];
static struct shimctl_roots roots;
static bool view_current[SHIMCTL_ROOT_COUNT]; /* the view was read and points at the root */

/* Room for LEN bytes in the arena; NULL when full. */
static char* arena_take(size_t len) {
  if (len > sizeof arena - arena_used)
    return NULL;
  char* at = arena + arena_used;
  arena_used += len;
  return at;
}

/* The call keeps its absolute form: why, in the trace; as an event when it is a surprise (once
 * while it is among the last events: every compile of a build may have the same reason). */
static char** absolute_form(char** argv, const char* event, const char* why, const char* what) {
  if (event)
    log_event_once(event, what ? what : why);
  if (shim.trace)
    say("absolute paths: ", why, what ? " " : "", what ? what : "", NULL);
  return argv;
}

/* ARGV with every @file expanded in place, into flat_argv; its count in *ARGC. NULL: a response
 * file that cannot be read or split (*WHY says which). */
static char** expand_response_files(int* argc, char** argv, const char** why) {
  int n = 0;
  for (int i = 0; i < *argc; i++) {
    if (argv[i][0] != '@' || i == 0) {
      if (n + 1 >= MAX_ARGS)
        return NULL;
      flat_argv[n++] = argv[i];
      continue;
    }
    char* text = arena_take(RESPONSE_FILE_MAX + 2);
    size_t len;
    if (!text || !read_small_file(argv[i] + 1, text, RESPONSE_FILE_MAX, &len, false) ||
        len > RESPONSE_FILE_MAX) {
      *why = argv[i];
      return NULL;
    }
    arena_used -= RESPONSE_FILE_MAX + 1 - len; /* keep what was read */
    int got = shimctl_split_response_file(text, len, flat_argv + n, MAX_ARGS - 1 - n);
    if (got < 0) {
      *why = argv[i];
      return NULL;
    }
    for (int k = n; k < n + got; k++)
      if (flat_argv[k][0] == '@') { /* a response file inside one: left to the tools */
        *why = argv[i];
        return NULL;
      }
    n += got;
  }
  flat_argv[n] = NULL;
  *argc = n;
  return flat_argv;
}

/* CMake's source tree of the build root (CMAKE_HOME_DIRECTORY in its CMakeCache.txt) into OUT. */
static bool cmake_source_tree(const char* build, char out[PATH_MAX]) {
  static const char key[] = "\nCMAKE_HOME_DIRECTORY:INTERNAL=";
  char path[PATH_MAX];
  size_t len;
  char* text = arena_take(CMAKE_CACHE_MAX + 2);
  if (!text || concat(path, sizeof path, build, "/CMakeCache.txt", NULL) >= sizeof path ||
      !read_small_file(path, text, CMAKE_CACHE_MAX, &len, false) || len > CMAKE_CACHE_MAX)
    return false;
  const char* at = strstr(text, key);
  arena_used -= CMAKE_CACHE_MAX + 2;
  if (!at)
    return false;
  at += sizeof key - 1;
  size_t value_len = strcspn(at, "\r\n");
  if (value_len == 0 || value_len >= PATH_MAX || at[0] != '/')
    return false;
  memcpy(out, at, value_len);
  while (value_len > 1 && out[value_len - 1] == '/')
    value_len--;
  out[value_len] = '\0';
  return true;
}

/* The view's path of ROOT in the build root, into OUT. */
static bool view_path(enum shimctl_root root, char out[PATH_MAX]) {
  return concat(out,
                PATH_MAX,
                roots.path[SHIMCTL_ROOT_BUILD],
                "/" SHIMCTL_ROOTS_VIEW "/",
                shimctl_root_view_name(root),
                NULL) < PATH_MAX;
}

/* What the view of ROOT points at now, into OUT; false when there is none. */
static bool view_target(enum shimctl_root root, char out[PATH_MAX]) {
  char path[PATH_MAX];
  if (!view_path(root, path))
    return false;
  ssize_t n = readlink(path, out, PATH_MAX - 1);
  if (n <= 0)
    return false;
  out[n] = '\0';
  return true;
}

/* The source tree of the compile whose source (or first search directory outside the build
 * tree) is ANCHOR, into roots: the view's target when ANCHOR is under it (a build's every compile
 * after the first), else CMake's source tree, else the top of ANCHOR's git repository. */
static void find_source_root(const char* anchor) {
  char* out = root_paths[SHIMCTL_ROOT_SOURCE];
  char dir[PATH_MAX];
  struct shimctl_roots probe = { { NULL }, NULL };
  probe.path[0] = out;
  if (view_target(SHIMCTL_ROOT_SOURCE, out) && shimctl_root_of(&probe, anchor) == 0) {
    roots.path[SHIMCTL_ROOT_SOURCE] = out;
    view_current[SHIMCTL_ROOT_SOURCE] = true;
    return;
  }
  if (cmake_source_tree(roots.path[SHIMCTL_ROOT_BUILD], out) &&
      shimctl_root_of(&probe, anchor) == 0) {
    roots.path[SHIMCTL_ROOT_SOURCE] = out;
    return;
  }
  if (concat(dir, sizeof dir, anchor, NULL) >= sizeof dir)
    return;
  *strrchr(dir, '/') = '\0';
  static const char* const repository[] = { ".git", NULL }; /* a directory, or a worktree's file */
  if (*dir && find_nearest_holding(dir, repository, false, out))
    roots.path[SHIMCTL_ROOT_SOURCE] = out;
}

/* The first Python package directory an absolute path of ARGV lies in (torch's headers, a JIT's
 * sources in a venv), into roots. */
static void find_packages_root(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const char* value = argv[i];
    const char* joined;
    if (shimctl_joined_path_option(value, &joined))
      value = joined;
    size_t len = value[0] == '/' ? shimctl_packages_dir_len(value) : 0;
    if (len && len < PATH_MAX) {
      memcpy(root_paths[SHIMCTL_ROOT_PACKAGES], value, len);
      root_paths[SHIMCTL_ROOT_PACKAGES][len] = '\0';
      roots.path[SHIMCTL_ROOT_PACKAGES] = root_paths[SHIMCTL_ROOT_PACKAGES];
      return;
    }
  }
}

/* The install's base dirs (SHIMCTL_BASE_DIRS: the user's, else the config's setenv default), in
 * their order, into roots. */
static void find_base_roots(void) {
  const char* value = getenv(SHIMCTL_BASE_DIRS_VARIABLE);
  const size_t name_len = sizeof SHIMCTL_BASE_DIRS_VARIABLE;
  for (size_t i = 0; !value && i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    if (d->kind == SHIMCTL_SETENV &&
        strncmp(d->u.env, SHIMCTL_BASE_DIRS_VARIABLE "=", name_len) == 0)
      value = d->u.env + name_len;
  }
  for (int n = 0; value && *value && n < SHIMCTL_BASE_DIRS_MAX;) {
    size_t len = strcspn(value, ":");
    while (len > 1 && value[len - 1] == '/')
      len--;
    char* out = root_paths[SHIMCTL_ROOT_BASE + n];
    if (value[0] == '/' && len > 1 && len < PATH_MAX) {
      memcpy(out, value, len);
      out[len] = '\0';
      roots.path[SHIMCTL_ROOT_BASE + n++] = out;
    }
    value += strcspn(value, ":");
    value += *value == ':';
  }
}

/* The view of ROOT points at it (its directory made by views_are_safe): made when missing, or
 * when what it pointed at is gone (the tree moved); a view that still points at another tree is
 * left alone: false then, as when the build root cannot be written. */
static bool make_view(enum shimctl_root root) {
  char path[PATH_MAX], target[PATH_MAX] = "", temporary[PATH_MAX], pid[24];
  struct stat st;
  const char* want = roots.path[root];
  if (view_current[root] || (view_target(root, target) && strcmp(target, want) == 0))
    return true;
  if (!view_path(root, path))
    return false;
  if (lstat(path, &st) == 0 && (!S_ISLNK(st.st_mode) || stat(target, &st) == 0))
    return false; /* another tree's view, or not a view at all */
  if (concat(temporary,
             sizeof temporary,
             path,
             ".",
             shimctl_decimal((unsigned long long)getpid(), pid),
             NULL) >= sizeof temporary)
    return false;
  unlink(temporary);
  if (symlink(want, temporary) != 0)
    return false;
  if (rename(temporary, path) != 0) {
    unlink(temporary);
    return false;
  }
  if (shim.trace)
    say("view ", path, " -> ", want, NULL);
  return true;
}

/* PATH and its parents up to the cache home made (0700 where new); best effort. */
static void make_parents(char* path, size_t from) {
  for (char* slash = strchr(path + from + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
  }
}

/* This user's memo of the build tree of the last location-free compile through this prefix
 * (formats/user_files.h): one readlink when it is current, a new link when the tree changed. */
static void note_last_roots(void) {
  char prefix[PATH_MAX], memo[PATH_MAX], target[PATH_MAX], temporary[PATH_MAX + 24], pid[24];
  const char* build = roots.path[SHIMCTL_ROOT_BUILD];
  if (!prefix_of_state(prefix))
    return;
  size_t len = shimctl_user_file_path(
    memo, sizeof memo, getenv("XDG_CACHE_HOME"), getenv("HOME"), SHIMCTL_USER_ROOTS_DIR, prefix);
  if (len == 0 || len >= sizeof memo)
    return;
  ssize_t n = readlink(memo, target, sizeof target - 1);
  if (n > 0 && (size_t)n == strlen(build) && memcmp(target, build, (size_t)n) == 0)
    return;
  size_t home =
    shimctl_user_cache_home(target, sizeof target, getenv("XDG_CACHE_HOME"), getenv("HOME"));
  make_parents(memo, home);
  concat(temporary,
         sizeof temporary,
         memo,
         ".",
         shimctl_decimal((unsigned long long)getpid(), pid),
         NULL);
  unlink(temporary);
  if (symlink(build, temporary) != 0 || rename(temporary, memo) != 0)
    unlink(temporary);
}

/* ARG in its location-free form (arena), or ARG itself when it names no root. NULL: it names a
 * root in a way that cannot be rewritten (*WHY: ARG). PATH_VALUE: ARG is a path. */
static char* free_form(char* arg, bool path_value, const char** why) {
  char buf[PATH_MAX];
  const char* prefix = "";
  const char* value = arg;
  if (!path_value && arg[0] == '-') {
    const struct shimctl_option* option = shimctl_joined_path_option(arg, &value);
    if (!option || value[0] != '/') {
      if (shimctl_names_a_root(&roots, arg) < 0)
        return arg;
      *why = arg;
      return NULL;
    }
    prefix = option->name;
  }
  if (value[0] != '/' || shimctl_root_of(&roots, value) < 0) {
    if (shimctl_names_a_root(&roots, value) < 0)
      return arg;
    *why = arg; /* a relative path with a root's name inside, or the like */
    return NULL;
  }
  const char* rewritten = shimctl_location_free(&roots, value, buf, sizeof buf);
  size_t len = rewritten ? strlen(prefix) + strlen(rewritten) + 1 : 0;
  char* out = len ? arena_take(len) : NULL;
  if (!out) {
    *why = arg;
    return NULL;
  }
  concat(out, len, prefix, rewritten, NULL);
  return out;
}

/* ARGV (ARGC arguments, response files expanded) rewritten into free_argv; NULL with *WHY when
 * an argument names a root in a way that cannot be rewritten. */
static char** rewrite(int argc, char** argv, const char** why) {
  bool value_of_path = false, value_of_other = false;
  free_argv[0] = argv[0];
  for (int i = 1; i < argc; i++) {
    char* arg = argv[i];
    if (value_of_other) {
      value_of_other = false;
      if (shimctl_names_a_root(&roots, arg) >= 0) {
        *why = arg;
        return NULL;
      }
      free_argv[i] = arg;
      continue;
    }
    bool path_value = value_of_path || arg[0] != '-';
    value_of_path = false;
    if (!(free_argv[i] = free_form(arg, path_value, why)))
      return NULL;
    const struct shimctl_option* option = path_value ? NULL : shimctl_separate_option(arg);
    if (option && option->path)
      value_of_path = true;
    else if (option)
      value_of_other = true;
  }
  free_argv[argc] = NULL;
  return free_argv;
}

/* DIR is this user's and nobody else may change what is in it: its entries
 * cannot be swapped between the shim's look and the compiler's open. STICKY_DIR_OK: a directory
 * others may write but with the sticky bit (they cannot rename what is not theirs) will do. */
static bool mine_alone(const char* dir, bool sticky_dir_ok) {
  static uid_t me = (uid_t)-1;
  struct stat st;
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return false;
  if (sticky_dir_ok && (st.st_mode & S_ISVTX))
    return true;
  if (me == (uid_t)-1)
    me = geteuid();
  return st.st_uid == me && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* The build tree's views may be used: the build tree and its view directory are this user's
 * alone (a build tree in a shared place, or another user's, keeps the absolute form). Made when
 * missing. */
static bool views_are_safe(void) {
  char dir[PATH_MAX];
  if (concat(dir, sizeof dir, roots.path[SHIMCTL_ROOT_BUILD], "/" SHIMCTL_ROOTS_VIEW, NULL) >=
        sizeof dir ||
      !mine_alone(roots.path[SHIMCTL_ROOT_BUILD], true))
    return false;
  if (mine_alone(dir, false))
    return true;
  /* Two compiles of a fresh build tree may make it at once: either's directory will do. */
  return (mkdir(dir, 0755) == 0 || errno == EEXIST) && mine_alone(dir, false);
}

/* Any root other than the build root that the rewritten arguments name has its view. */
static bool make_views(int argc, char** rewritten) {
  bool checked = false;
  for (int r = SHIMCTL_ROOT_BUILD + 1; r < SHIMCTL_ROOT_COUNT; r++) {
    if (!roots.path[r])
      continue;
    char needle[64];
    concat(needle, sizeof needle, SHIMCTL_ROOTS_VIEW "/", shimctl_root_view_name(r), NULL);
    for (int i = 1; i < argc; i++)
      if (strstr(rewritten[i], needle)) {
        if ((!checked && !(checked = views_are_safe())) || !make_view((enum shimctl_root)r))
          return false;
        break;
      }
  }
  return true;
}

/* PATH (relative to the working directory) made absolute, in the arena; NULL when it does not fit.
 */
static char* absolute_path(const char* path) {
  size_t len = strlen(current_dir()) + strlen(path) + 2;
  char* out = arena_take(len);
  if (out)
    concat(out, len, current_dir(), "/", path, NULL);
  return out;
}

/* A call from a directory with no build tree above it (a JIT's `hipcc -c /abs/csrc/x.hip -o
 * /abs/build/x.o` from anywhere): its output's directory is taken for its build tree, every path
 * of its arguments made absolute in place (ARGV: flat_argv), and *DIR set to that directory, where
 * the compile then runs. False, with *WHY, when an argument may name a path the shim cannot
 * follow (an option it does not know holding a '/'), or the call names a depfile (whose paths
 * would be the new directory's). */
static bool adopt_output_directory(int argc,
                                   char** argv,
                                   const struct call_traits* traits,
                                   char dir[PATH_MAX],
                                   const char** why) {
  if (!traits->source || !traits->output || traits->names_dependencies ||
      strcmp(traits->output, "-") == 0 || starts_with(traits->output, "/dev/")) {
    *why = traits->names_dependencies ? "a depfile" : "no source file or no output file";
    return false;
  }
  bool value_of_path = false, value_of_other = false;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    const char* joined;
    const struct shimctl_option* option = NULL;
    bool path_value = value_of_path || (arg[0] != '-' && !value_of_other);
    bool define =
      value_of_other && (strcmp(argv[i - 1], "-D") == 0 || strcmp(argv[i - 1], "-U") == 0);
    value_of_path = value_of_other = false;
    if (path_value) {
      if (arg[0] != '/' && !(argv[i] = absolute_path(arg)))
        return false;
    } else if (arg[0] == '-' && (option = shimctl_joined_path_option(arg, &joined))) {
      if (joined[0] != '/') {
        size_t len = strlen(option->name) + strlen(current_dir()) + strlen(joined) + 2;
        char* out = arena_take(len);
        if (!out)
          return false;
        concat(out, len, option->name, current_dir(), "/", joined, NULL);
        argv[i] = out;
      }
    } else if (arg[0] == '-' && (option = shimctl_separate_option(arg))) {
      value_of_path = option->path;
      value_of_other = !option->path;
    } else if (strchr(arg, '/') && !define && !starts_with(arg, "-D") && !starts_with(arg, "-U")) {
      *why = arg;
      return false;
    }
  }
  const char* output = traits->output;
  for (int i = 1; i < argc; i++) /* the output as made absolute above */
    if (strcmp(argv[i - 1], "-o") == 0)
      output = argv[i];
    else if (starts_with(argv[i], "-o") && argv[i][2])
      output = argv[i] + 2;
  struct stat st;
  const char* slash = strrchr(output, '/');
  size_t len = slash ? (size_t)(slash - output) : 0;
  if (len == 0 || len >= PATH_MAX) {
    *why = output;
    return false;
  }
  memcpy(dir, output, len);
  dir[len] = '\0';
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = dir;
    return false;
  }
  return true;
}

/* The first absolute search directory of ARGV outside the build tree (-I/x, -isystem /x). */
static const char* first_search_directory(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const char* value = NULL;
    const struct shimctl_option* option = shimctl_separate_option(argv[i]);
    if (option && option->path && i + 1 < argc && strcmp(argv[i], "-o") != 0)
      value = argv[i + 1];
    else if (shimctl_joined_path_option(argv[i], &value) && starts_with(argv[i], "-o"))
      value = NULL;
    if (value && value[0] == '/' && !starts_with(value, roots.path[SHIMCTL_ROOT_BUILD]) &&
        !starts_with(value, "/usr/") && !starts_with(value, "/opt/"))
      return value;
  }
  return NULL;
}

char** location_free_arguments(int* argc_io, char** argv, const struct call_traits* call) {
  const char* why = NULL;
  int argc = *argc_io;
  if (call->kind != CALL_COMPILE || env_is("SHIMCTL_ANYWHERE", "0"))
    return argv;
  if (getenv("CCACHE_BASEDIR") || getenv("SCCACHE_BASEDIRS"))
    return absolute_form(argv, NULL, "the user's CCACHE_BASEDIR/SCCACHE_BASEDIRS wins", NULL);
  const char* bound = shimctl_location_bound_argument(argc, argv);
  if (bound) {
    location_bound_call = true;
    return absolute_form(argv, NULL, "the object names its place:", bound);
  }
  static char output_dir[PATH_MAX];
  const char* cwd = current_dir();
  roots.path[SHIMCTL_ROOT_BUILD] = build_root();
  roots.cwd = cwd;
  if (!cwd)
    return argv;
  int flat_argc = argc;
  char** flat = expand_response_files(&flat_argc, argv, &why);
  if (!flat)
    return absolute_form(argv, "anywhere-absolute", "response file not expanded:", why);
  struct call_traits traits = traits_of(flat_argc, flat, NULL, NULL);
  if (traits.kind != CALL_COMPILE) /* a response file that held a link: the call as it was */
    return argv;
  static char* as_called[MAX_ARGS]; /* the arguments before any was made absolute */
  memcpy(as_called, flat, (size_t)flat_argc * sizeof *flat);
  bool moves = !roots.path[SHIMCTL_ROOT_BUILD];
  if (moves) { /* no build tree: the output's directory, where the compile will run */
    if (!adopt_output_directory(flat_argc, flat, &traits, output_dir, &why))
      return absolute_form(argv, NULL, "no build tree, and the call cannot move:", why);
    roots.path[SHIMCTL_ROOT_BUILD] = roots.cwd = output_dir;
    traits = traits_of(flat_argc, flat, NULL, NULL);
  }
  struct shimctl_roots build_only = { { roots.path[SHIMCTL_ROOT_BUILD] }, cwd };
  const char* anchor =
    traits.source && shimctl_root_of(&build_only, traits.source) < 0 && traits.source[0] == '/'
      ? traits.source
      : first_search_directory(flat_argc, flat);
  find_packages_root(flat_argc, flat);
  struct shimctl_roots packages_only = { { NULL }, NULL };
  packages_only.path[0] = roots.path[SHIMCTL_ROOT_PACKAGES];
  /* A source in a package directory (a JIT's, pip installed) needs no walk up to a repository. */
  if (anchor && !(packages_only.path[0] && shimctl_root_of(&packages_only, anchor) == 0))
    find_source_root(anchor);
  find_base_roots();
  if (traits.source && traits.source[0] == '/' && shimctl_root_of(&roots, traits.source) < 0)
    return absolute_form(argv,
                         moves ? NULL : "anywhere-absolute", /* no build tree: nothing expected */
                         "source outside every root:",
                         traits.source);
  char** rewritten = rewrite(flat_argc, flat, &why);
  if (!rewritten)
    return absolute_form(argv, "anywhere-absolute", "an argument names a root:", why);
  moves = moves && strcmp(output_dir, cwd) != 0;
  bool same = !moves;
  for (int i = 1; same && i < flat_argc; i++)
    same = strcmp(rewritten[i], as_called[i]) == 0;
  if (same) /* nothing under a root that was not relative already: the call as it was (@file too) */
    return argv;
  if (!make_views(flat_argc, rewritten))
    return absolute_form(argv, "anywhere-absolute", "no view in the build tree:", build_root());
  if (shim.trace)
    say("roots: build ",
        roots.path[SHIMCTL_ROOT_BUILD],
        roots.path[SHIMCTL_ROOT_SOURCE] ? ", source " : "",
        roots.path[SHIMCTL_ROOT_SOURCE] ? roots.path[SHIMCTL_ROOT_SOURCE] : "",
        roots.path[SHIMCTL_ROOT_PACKAGES] ? ", packages " : "",
        roots.path[SHIMCTL_ROOT_PACKAGES] ? roots.path[SHIMCTL_ROOT_PACKAGES] : "",
        NULL);
  if (moves && !run_in(output_dir))
    return absolute_form(
      argv, "anywhere-absolute", "cannot run in the output's directory:", output_dir);
  note_last_roots();
  *argc_io = flat_argc;
  return rewritten;
}
