/* Paths in a form that is the same wherever the code sits (path_roots.h). */
#include "path_roots.h"

#include "text.h"

#include <string.h>

const char* shimctl_root_view_name(enum shimctl_root root) {
  static const char* const names[SHIMCTL_ROOT_COUNT] = { "", "s", "p", "b0", "b1", "b2", "b3" };
  return root < SHIMCTL_ROOT_COUNT ? names[root] : "";
}

/* PATH is DIR or lies under it (DIR without a trailing '/'); the length of DIR then, else 0. */
static size_t under(const char* path, const char* dir) {
  size_t len = dir ? strlen(dir) : 0;
  if (len == 0 || strncmp(path, dir, len) != 0)
    return 0;
  return path[len] == '/' || path[len] == '\0' ? len : 0;
}

int shimctl_root_of(const struct shimctl_roots* roots, const char* path) {
  int found = -1;
  size_t found_len = 0;
  if (path[0] != '/')
    return -1;
  for (int r = 0; r < SHIMCTL_ROOT_COUNT; r++) {
    size_t len = under(path, roots->path[r]);
    if (len > found_len) {
      found = r;
      found_len = len;
    }
  }
  return found;
}

/* "../" once for each directory of the working directory below the build root, at OUT. */
static size_t steps_up(const struct shimctl_roots* roots, char* out, size_t cap) {
  size_t len = 0;
  const char* below = roots->cwd + strlen(roots->path[SHIMCTL_ROOT_BUILD]);
  for (const char* c = below; *c; c++)
    if (*c == '/' && c[1] != '\0')
      len += concat(out + len, len < cap ? cap - len : 0, "../", NULL);
  return len;
}

/* PATH (in the build tree) relative to the working directory: ".." for each of the working
 * directory's components below the directory both lie in, then the rest of PATH; "." for the
 * working directory itself. */
static const char* in_build_tree(const char* cwd, const char* path, char* out, size_t cap) {
  size_t i = 0, common = 0;
  for (; cwd[i] && cwd[i] == path[i]; i++)
    if (cwd[i] == '/')
      common = i;
  if ((cwd[i] == '\0' || cwd[i] == '/') && (path[i] == '\0' || path[i] == '/'))
    common = i;
  size_t len = 0;
  for (const char* c = cwd + common; *c; c++)
    if (*c == '/')
      len += concat(out + len, len < cap ? cap - len : 0, len ? "/.." : "..", NULL);
  const char* rest = path[common] == '/' ? path + common + 1 : "";
  if (*rest)
    len += concat(out + len, len < cap ? cap - len : 0, len ? "/" : "", rest, NULL);
  else if (len == 0)
    len = concat(out, cap, ".", NULL);
  return len < cap ? out : NULL;
}

const char* shimctl_location_free(const struct shimctl_roots* roots,
                                  const char* path,
                                  char* out,
                                  size_t cap) {
  int root = shimctl_root_of(roots, path);
  if (root < 0 || cap == 0 || !roots->cwd || !roots->path[SHIMCTL_ROOT_BUILD] ||
      !under(roots->cwd, roots->path[SHIMCTL_ROOT_BUILD]))
    return NULL;
  if (root == SHIMCTL_ROOT_BUILD)
    return in_build_tree(roots->cwd, path, out, cap);
  size_t len = steps_up(roots, out, cap);
  const char* rest = path + strlen(roots->path[root]);
  len += concat(out + len,
                len < cap ? cap - len : 0,
                SHIMCTL_ROOTS_VIEW "/",
                shimctl_root_view_name((enum shimctl_root)root),
                rest,
                NULL);
  return len < cap ? out : NULL;
}

int shimctl_names_a_root(const struct shimctl_roots* roots, const char* arg) {
  for (int r = 0; r < SHIMCTL_ROOT_COUNT; r++)
    if (roots->path[r] && strstr(arg, roots->path[r]))
      return r;
  return -1;
}

size_t shimctl_packages_dir_len(const char* path) {
  static const char* const names[] = { "/site-packages", "/dist-packages", NULL };
  size_t found = 0;
  for (int i = 0; names[i]; i++) {
    size_t name_len = strlen(names[i]);
    for (const char* at = strstr(path, names[i]); at; at = strstr(at + 1, names[i])) {
      size_t end = (size_t)(at - path) + name_len;
      if ((path[end] == '/' || path[end] == '\0') && end > found)
        found = end;
    }
  }
  return found;
}

/* ARG asks for debug information (not -g0), coverage or a profile: the object then names its
 * compile's directory or files by where they are. */
static bool location_bound(const char* arg) {
  static const char* const prefixes[] = {
    "-fprofile", "-fcoverage",           "--coverage", "-ftest-coverage", "-fdebug-",
    "-ffile-",   "-fmacro-prefix-map",   "-gsplit",    "-save-temps",     "--save-temps",
    "-lineinfo", "--generate-line-info", "--debug",    "--device-debug",  "-G",
    NULL
  };
  if (arg[0] != '-')
    return false;
  if (arg[1] == 'g' && strcmp(arg, "-g0") != 0 && !starts_with(arg, "-gpu") &&
      !starts_with(arg, "-gencode") && !starts_with(arg, "-gno-"))
    return true;
  for (int i = 0; prefixes[i]; i++)
    if (starts_with(arg, prefixes[i]))
      return true;
  return false;
}

const char* shimctl_location_bound_argument(int argc, char** argv) {
  for (int i = 1; i < argc; i++)
    if (location_bound(argv[i]))
      return argv[i];
  return NULL;
}

int shimctl_split_response_file(char* text, size_t len, char** args, int max) {
  int count = 0;
  char* in = text;
  char* end = text + len;
  while (in < end) {
    while (in < end && (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r'))
      in++;
    if (in >= end || *in == '\0')
      break;
    if (count >= max)
      return -1;
    char* out = in;
    args[count++] = out;
    char quote = 0;
    for (; in < end && *in; in++) {
      if (quote) {
        if (*in == quote)
          quote = 0;
        else if (*in == '\\' && quote == '"' && in + 1 < end && (in[1] == '"' || in[1] == '\\'))
          *out++ = *++in;
        else
          *out++ = *in;
      } else if (*in == '\'' || *in == '"') {
        quote = *in;
      } else if (*in == '\\' && in + 1 < end) {
        *out++ = *++in;
      } else if (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r') {
        break;
      } else {
        *out++ = *in;
      }
    }
    if (quote)
      return -1;
    char* next = in < end ? in + 1 : in;
    *out = '\0';
    in = next;
  }
  return count;
}
