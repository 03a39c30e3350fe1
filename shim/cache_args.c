/* The compile's arguments (shim.h): the shim's -cuid= (formats.h) computed from the paths as
 * ccache hands them to the compiler, and the cache tool's argument list with the compiler as the
 * caller named it and the shim's own depfile (depend_mode.c). */
#define _GNU_SOURCE
#include "call_traits.h"
#include "shim.h"

#include <string.h>

char* cache_argv[MAX_ARGS];

/* The compiler as the cache tool should run it: the path the caller used. */
char* compiler_for_cache(char* argv0, const char* invoked, bool known) {
  static char path[PATH_MAX];
  if (argv0 && strchr(argv0, '/'))
    return argv0;
  if (known && path_in_self_dir(path, invoked, ""))
    return path;
  if (!known && find_in_path(invoked, path))
    return path;
  return shim.self_path;
}

/* PATH relative to the working directory when under it, else PATH. */
static const char* under_cwd(const char* path) {
  const char* cwd = current_dir();
  size_t len = cwd ? strlen(cwd) : 0;
  if (!cwd || !starts_with(path, cwd))
    return path;
  if (len == 1) /* cwd is / */
    return path + 1;
  return path[len] == '/' && path[len + 1] ? path + len + 1 : path;
}

/* PATH as ccache hands it to the compiler: relative to the working directory when under it, or
 * ("../" steps) when under base_dir, as ccache rewrites it; else PATH. BUF holds the result. */
static const char* as_compiled(const char* path, char buf[PATH_MAX]) {
  const char* rel = under_cwd(path);
  if (rel != path || path[0] != '/')
    return rel; /* relative already: no base_dir lookup (the common case: CMake, ninja) */
  const char* base = base_dir();
  const char* cwd = current_dir();
  if (!base || !cwd || !starts_with(path, base) ||
      (path[strlen(base)] != '/' && strcmp(base, "/") != 0))
    return rel;
  /* The directory both are under: up to the last '/' of their common start (PATH is not under
   * CWD, so that '/' ends a component of both). One "../" for each component of CWD below it. */
  size_t common = 0;
  for (size_t i = 0; cwd[i] && cwd[i] == path[i]; i++)
    if (cwd[i] == '/')
      common = i;
  size_t len = 0;
  for (const char* c = cwd + common; *c; c++)
    if (*c == '/' && (len += concat(buf + len, PATH_MAX - len, "../", NULL)) >= PATH_MAX)
      return path;
  if (concat(buf + len, PATH_MAX - len, path + common + 1, NULL) >= PATH_MAX - len)
    return path;
  return buf;
}

/* "-cuid=<value>" for CALL (formats.h), or NULL when the call gets none. */
char* cuid_argument(const struct shimctl_compiler* compiler, const struct call_traits* call) {
  static char arg[sizeof SHIMCTL_CUID_FLAG + SHIMCTL_CUID_HEX];
  char value[SHIMCTL_CUID_HEX + 1];
  if (!wants_cuid(call, starts_with(base_name(compiler->name), "hipcc")))
    return NULL;
  char source[PATH_MAX], output[PATH_MAX];
  shimctl_cuid_value(value,
                     as_compiled(call->source, source),
                     call->output ? as_compiled(call->output, output) : "");
  concat(arg, sizeof arg, SHIMCTL_CUID_FLAG, value, NULL);
  if (shim.trace)
    say("cuid ", value, " (source ", call->source, ")", NULL);
  return arg;
}

/* ARGV with EXTRA (the shim's -cuid=) appended, in own_argv; ARGV itself without EXTRA or when
 * it would not fit. Every compile the shim runs, cached or not, gets the same arguments. */
char** compile_arguments(int argc, char** argv, char* extra) {
  static char* own_argv[MAX_ARGS];
  if (!extra || (size_t)argc + 2 > MAX_ARGS)
    return argv;
  memcpy(own_argv, argv, (size_t)argc * sizeof *argv);
  own_argv[argc] = extra;
  own_argv[argc + 1] = NULL;
  return own_argv;
}

/* The cache tool's arguments: the compiler, ARGV's arguments, and the shim's own depfile. */
bool build_cache_arguments(char** argv, char* compiler) {
  static char md[] = "-MD", mf[] = "-MF";
  size_t n = 0;
  cache_argv[n++] = (char*)shim.config.cache_path;
  cache_argv[n++] = compiler;
  for (int i = 1; argv[i]; i++) {
    if (n + 4 >= MAX_ARGS)
      return false;
    cache_argv[n++] = argv[i];
  }
  if (depend_plan == DEPEND_OWN_FILE) {
    cache_argv[n++] = md;
    cache_argv[n++] = mf;
    cache_argv[n++] = own_depfile;
  }
  cache_argv[n] = NULL;
  return true;
}
