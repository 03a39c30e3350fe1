/* Whether the compile the shim waits on is being compiled right now by another process: the
 * sccache server's compiler for it. Asked only when the team store went out while a compile
 * waited on sccache (store_watch), never on the hot path. A compile whose compiler runs has passed
 * the store's read: its output comes, and the wait on the store's write ends with it; a compile
 * with none is stuck on the store (or still preprocessing): running it uncached loses little.
 * Giving up on a compile that was compiling would run it twice (measured: an in-flight compile
 * took 2x an uncached one when the store died during it). */
#define _GNU_SOURCE
#include "shim.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The start time of process PID (clock ticks since boot, /proc/PID/stat field 22); 0: unknown. */
static unsigned long long start_ticks(const char* pid) {
  char path[64], text[1024];
  size_t len;
  if (concat(path, sizeof path, "/proc/", pid, "/stat", NULL) >= sizeof path ||
      !read_small_file(path, text, sizeof text - 1, &len, false))
    return 0;
  text[len] = '\0';
  const char* field = strrchr(text, ')'); /* the command name may hold spaces and parentheses */
  for (int n = 2; field && n < 22; n++) /* field 2 ends at ')': fields 3.. follow one space each */
    field = strchr(field + 1, ' ');
  return field ? strtoull(field + 1, NULL, 10) : 0;
}

/* ARGS (LEN bytes of NUL-separated arguments) name OUTPUT after -o, as "-o OUTPUT" or "-oOUTPUT".
 */
static bool names_output(const char* args, size_t len, const char* output) {
  bool after_o = false;
  for (const char* arg = args; arg < args + len; arg += strlen(arg) + 1) {
    if ((after_o && strcmp(arg, output) == 0) ||
        (arg[0] == '-' && arg[1] == 'o' && strcmp(arg + 2, output) == 0))
      return true;
    after_o = strcmp(arg, "-o") == 0;
  }
  return false;
}

/* Process PID (a /proc entry) is this user's, runs in CWD, and names OUTPUT after -o. */
static bool compiles_output(const char* pid, const char* cwd, const char* output) {
  static char args[65536];
  char path[64], dir[PATH_MAX];
  struct stat st;
  if (concat(path, sizeof path, "/proc/", pid, NULL) >= sizeof path || stat(path, &st) != 0 ||
      st.st_uid != getuid())
    return false;
  concat(path, sizeof path, "/proc/", pid, "/cwd", NULL);
  ssize_t n = readlink(path, dir, sizeof dir - 1);
  if (n < 0 || (size_t)n != strlen(cwd) || memcmp(dir, cwd, (size_t)n) != 0)
    return false;
  size_t len;
  concat(path, sizeof path, "/proc/", pid, "/cmdline", NULL);
  if (!read_small_file(path, args, sizeof args - 1, &len, false))
    return false;
  args[len] = '\0';
  return names_output(args, len, output);
}

bool output_in_making(const char* output, pid_t client) {
  char cwd[PATH_MAX], digits[24];
  if (!output || !getcwd(cwd, sizeof cwd))
    return false;
  const char* client_pid = shimctl_decimal((unsigned long long)client, digits);
  unsigned long long client_start = start_ticks(client_pid);
  DIR* proc = opendir("/proc");
  if (!client_start || !proc) {
    if (proc)
      closedir(proc);
    return false;
  }
  bool found = false;
  for (struct dirent* e; !found && (e = readdir(proc));) {
    /* The shim and its callers name the output too, and started before its client (a tick is
     * 10 ms: a compiler the client asked for starts ticks later, after the lookup). */
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || strcmp(e->d_name, client_pid) == 0)
      continue;
    found = start_ticks(e->d_name) > client_start && compiles_output(e->d_name, cwd, output);
  }
  closedir(proc);
  return found;
}
