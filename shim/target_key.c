/* The target in the cache key (target_key.h). Variables the driver reads (HCC_AMDGPU_TARGET,
 * NVCC_APPEND_FLAGS, ...: the config's keyenv lines) and, when hipcc picks the GPU targets itself,
 * this machine's GPUs (the config's target-probe: hipcc runs rocm_agent_enumerator). Neither
 * reaches ccache or sccache on its own, so a build for another GPU would be served this one's
 * object. */
#include "target_key.h"

#include "formats.h"
#include "text.h"

#include <string.h>
#include <sys/wait.h>

bool key_append(struct target_key* key, const char* a, const char* b, const char* c) {
  size_t len = concat(key->buf + key->len, key->cap - key->len, a, b, c, NULL);
  if (key->len + len >= key->cap)
    return false;
  key->len += len;
  return true;
}

bool key_host_cpu(struct target_key* key, char* info, size_t len) {
  static const char* const fields[] = {
    "vendor_id",   "cpu family", "model",    "model name",      "stepping",
    "cache size",  "flags",      "Features", "CPU implementer", "CPU architecture",
    "CPU variant", "CPU part",   "isa",      "uarch",           NULL
  };
  if (len == 0 || !key_append(key, ";cpu=", "", ""))
    return false;
  for (char* line = info; line < info + len && *line != '\n';) { /* the first block */
    char* newline = memchr(line, '\n', (size_t)(info + len - line));
    if (!newline)
      break;
    *newline = '\0';
    char* colon = strchr(line, ':');
    if (colon) {
      char* name_end = colon;
      while (name_end > line && (name_end[-1] == ' ' || name_end[-1] == '\t'))
        name_end--;
      for (int i = 0; fields[i]; i++)
        if ((size_t)(name_end - line) == strlen(fields[i]) &&
            strncmp(line, fields[i], strlen(fields[i])) == 0 && !key_append(key, line, "|", ""))
          return false;
    }
    line = newline + 1;
  }
  return true;
}

bool key_probe_output(struct target_key* key, char* out, int status) {
  for (char* c = out; *c; c++)
    if (*c == '\n')
      *c = ',';
  char num[24];
  const char* rc =
    WIFEXITED(status) ? shimctl_decimal((unsigned)WEXITSTATUS(status), num) : "signal";
  return key_append(key, ";gpus=", out, "") && (WIFEXITED(status) && WEXITSTATUS(status) == 0
                                                  ? true
                                                  : key_append(key, ";probe-status=", rc, ""));
}
