/* The identity snapshot: STATE_DIR/identity.
 *   shimctl-identity 1
 *   fingerprint <64 lowercase hex digits>
 *   dir <absolute directory>
 *   <inode> <size> <mtime ns> <ctime ns> <file name>      (files of the last dir line)
 * Every line ends with '\n': a snapshot without a final newline was cut short. */
#ifndef SHIMCTL_FORMATS_IDENTITY_SNAPSHOT_H
#define SHIMCTL_FORMATS_IDENTITY_SNAPSHOT_H

#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_IDENTITY_NAME "identity"
#define SHIMCTL_IDENTITY_HEADER "shimctl-identity 1"
#define SHIMCTL_IDENTITY_MAX (256 * 1024)
#define SHIMCTL_IDENTITY_FINGERPRINT "fingerprint " /* the second line's start */
#define SHIMCTL_IDENTITY_DIR "dir "                 /* a directory line's start */
#define SHIMCTL_FINGERPRINT_HEX 64

struct shimctl_snapshot_input {
  unsigned long long inode, size, mtime_ns, ctime_ns;
  const char* name; /* in the directory of the last dir line */
};

/* The first two lines for FINGERPRINT. */
static inline size_t shimctl_render_snapshot_start(char* out, size_t cap, const char* fingerprint) {
  size_t len = shimctl_put(out, cap, 0, SHIMCTL_IDENTITY_HEADER "\n" SHIMCTL_IDENTITY_FINGERPRINT);
  return shimctl_put(out, cap, shimctl_put(out, cap, len, fingerprint), "\n");
}

static inline size_t shimctl_render_snapshot_dir(char* out, size_t cap, const char* dir) {
  return shimctl_put(
    out, cap, shimctl_put(out, cap, shimctl_put(out, cap, 0, SHIMCTL_IDENTITY_DIR), dir), "\n");
}

static inline size_t shimctl_render_snapshot_input(char* out,
                                                   size_t cap,
                                                   const struct shimctl_snapshot_input* in) {
  const unsigned long long numbers[] = { in->inode, in->size, in->mtime_ns, in->ctime_ns };
  size_t len = 0;
  for (int i = 0; i < 4; i++) {
    char digits[24];
    len =
      shimctl_put(out, cap, shimctl_put(out, cap, len, shimctl_decimal(numbers[i], digits)), " ");
  }
  return shimctl_put(out, cap, shimctl_put(out, cap, len, in->name), "\n");
}

/* S starts with SHIMCTL_FINGERPRINT_HEX lowercase hex digits and ends there or at a newline. */
bool shimctl_is_fingerprint(const char* s);

/* Reads a snapshot line by line, in place. */
struct shimctl_snapshot_reader {
  char* next; /* the next line */
  char* end;
};

/* Checks the first two lines of TEXT[0..LEN) and points *FINGERPRINT at the 64 digits (NUL-
 * terminated in place). False when it is not a whole snapshot. */
bool shimctl_snapshot_begin(struct shimctl_snapshot_reader* reader,
                            char* text,
                            size_t len,
                            const char** fingerprint);

enum shimctl_snapshot_line {
  SHIMCTL_SNAPSHOT_END,   /* no more lines */
  SHIMCTL_SNAPSHOT_DIR,   /* *DIR: the directory of the inputs that follow */
  SHIMCTL_SNAPSHOT_INPUT, /* *INPUT: one input */
  SHIMCTL_SNAPSHOT_BAD    /* a line this format does not have */
};

enum shimctl_snapshot_line shimctl_snapshot_next(struct shimctl_snapshot_reader* reader,
                                                 const char** dir,
                                                 struct shimctl_snapshot_input* input);

#ifdef __cplusplus
}
#endif

#endif
