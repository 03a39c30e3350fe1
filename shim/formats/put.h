/* Appending text into a caller's buffer, and decimal digits: what every renderer below uses. */
#ifndef SHIMCTL_FORMATS_PUT_H
#define SHIMCTL_FORMATS_PUT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Appends S at OUT[AT] (truncating at CAP, always NUL-terminated when CAP > 0); returns AT plus
 * the length of S, so a final result >= CAP means "did not fit", as with snprintf. */
static inline size_t shimctl_put(char* out, size_t cap, size_t at, const char* s) {
  size_t n = strlen(s);
  if (at < cap) {
    size_t fit = at + n < cap ? n : cap - 1 - at;
    memcpy(out + at, s, fit);
    out[at + fit] = '\0';
  }
  return at + n;
}

/* Decimal digits of VALUE in BUF; returns their start. */
static inline const char* shimctl_decimal(unsigned long long value, char buf[24]) {
  char* p = buf + 23;
  *p = '\0';
  do
    *--p = (char)('0' + value % 10);
  while ((value /= 10) != 0);
  return p;
}

#ifdef __cplusplus
}
#endif

#endif
