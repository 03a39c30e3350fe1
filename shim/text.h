/* Small string helpers of the shim (no allocation, no system calls). */
#ifndef SHIMCTL_SHIM_TEXT_H
#define SHIMCTL_SHIM_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Concatenates the NULL-terminated string list into out, truncating; like snprintf it returns
 * the untruncated length, so a result >= cap means "did not fit". */
size_t vconcat(char* out, size_t cap, const char* first, va_list ap);
size_t concat(char* out, size_t cap, const char* first, ...);

const char* base_name(const char* path);
bool starts_with(const char* s, const char* prefix);
bool ends_with(const char* s, const char* suffix);

#endif
