/* Paths in a form that is the same wherever the code sits (path_roots.c; the shim's anywhere.c
 * finds the roots and makes the view). Pure: no system call.
 *
 * A compile's paths under its roots are rewritten before anything runs, so that the cache tool
 * and the compiler see the same text in every checkout, build directory and JIT directory:
 *   - under the build root (the build tree the compile runs in): relative to the working
 *     directory ("../" steps), as ccache's base_dir does;
 *   - under another root (the source tree, a Python package directory): through the build root's
 *     view, BUILD_ROOT/.shimctl-roots/<role> (a symbolic link to that root), named relative to
 *     the working directory: "../.shimctl-roots/s/include/x.h".
 * The compiler opens the same files either way; the object, the depfile and __FILE__ name the
 * relative forms, which are this location's. */
#ifndef SHIMCTL_SHIM_PATH_ROOTS_H
#define SHIMCTL_SHIM_PATH_ROOTS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_ROOTS_VIEW ".shimctl-roots"

/* The install's --base-dir directories: SHIMCTL_BASE_DIRS, absolute paths joined by ':' (the
 * user's environment, else the shim config's setenv default), at most this many. */
#define SHIMCTL_BASE_DIRS_VARIABLE "SHIMCTL_BASE_DIRS"
#define SHIMCTL_BASE_DIRS_MAX 4

enum shimctl_root {
  SHIMCTL_ROOT_BUILD,    /* the build tree: paths relative to the working directory */
  SHIMCTL_ROOT_SOURCE,   /* the source tree: view "s" */
  SHIMCTL_ROOT_PACKAGES, /* a Python site-packages (or dist-packages) directory: view "p" */
  SHIMCTL_ROOT_BASE,     /* the base dirs, in their order: views "b0", "b1", ... */
  SHIMCTL_ROOT_COUNT = SHIMCTL_ROOT_BASE + SHIMCTL_BASE_DIRS_MAX
};

/* The view's name of ROOT ("s", "p", "b0".."b3"; "" for the build root, which has none). */
const char* shimctl_root_view_name(enum shimctl_root root);

struct shimctl_roots {
  const char* path[SHIMCTL_ROOT_COUNT]; /* absolute, without a trailing '/'; NULL: none */
  const char* cwd; /* the working directory, absolute, the build root or under it */
};

/* The root PATH (absolute) lies under, the deepest of them; -1 when under none. */
int shimctl_root_of(const struct shimctl_roots* roots, const char* path);

/* PATH's location-free form at OUT (CAP bytes): under the build root relative to the working
 * directory ("." for the directory itself), under another root through the view. NULL when PATH
 * is relative, under no root, or the form does not fit. */
const char* shimctl_location_free(const struct shimctl_roots* roots,
                                  const char* path,
                                  char* out,
                                  size_t cap);

/* ARG names one of the roots somewhere in its text (a -D value, -MT, an option glued to a path):
 * the root's index, else -1. */
int shimctl_names_a_root(const struct shimctl_roots* roots, const char* arg);

/* The Python package directory PATH lies in: the length of its prefix up to and including the
 * last "/site-packages" or "/dist-packages" component; 0 when none. */
size_t shimctl_packages_dir_len(const char* path);

/* Why a compile keeps its absolute form: an argument that ties the object to its place beyond
 * the paths the shim rewrites (-g and its kin, coverage, profiles): the argument, else NULL. */
const char* shimctl_location_bound_argument(int argc, char** argv);

/* Splits a response file's TEXT (LEN bytes, NUL-terminated, modified in place) into arguments as
 * gcc and clang do: blanks separate, '...' and "..." quote, a backslash escapes the next
 * character. Up to MAX at ARGS; returns the count, or -1 when there are more or a quote is open. */
int shimctl_split_response_file(char* text, size_t len, char** args, int max);

#ifdef __cplusplus
}
#endif

#endif
