#include "text.h"

#include <string.h>

size_t vconcat(char* out, size_t cap, const char* first, va_list ap) {
  size_t len = 0;
  for (const char* s = first; s; s = va_arg(ap, const char*)) {
    size_t n = strlen(s);
    if (len < cap)
      memcpy(out + len, s, len + n < cap ? n : cap - len);
    len += n;
  }
  out[len < cap ? len : cap - 1] = '\0';
  return len;
}

size_t concat(char* out, size_t cap, const char* first, ...) {
  va_list ap;
  va_start(ap, first);
  size_t len = vconcat(out, cap, first, ap);
  va_end(ap);
  return len;
}

const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool starts_with(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ends_with(const char* s, const char* suffix) {
  size_t len = strlen(s), suffix_len = strlen(suffix);
  return len >= suffix_len && memcmp(s + len - suffix_len, suffix, suffix_len) == 0;
}
