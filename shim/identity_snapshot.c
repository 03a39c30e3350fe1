/* The identity snapshot's reader (the format: shim/formats.h). Pure: reads a buffer in place. */
#include "formats.h"
#include "text.h"

bool shimctl_is_fingerprint(const char* s) {
  for (int i = 0; i < SHIMCTL_FINGERPRINT_HEX; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return s[SHIMCTL_FINGERPRINT_HEX] == '\0' || s[SHIMCTL_FINGERPRINT_HEX] == '\n';
}

/* The next line, NUL-terminated in place; NULL at the end. */
static char* next_line(struct shimctl_snapshot_reader* reader) {
  if (reader->next >= reader->end)
    return NULL;
  char* line = reader->next;
  char* newline = memchr(line, '\n', (size_t)(reader->end - line));
  *newline = '\0'; /* there is one: the text ends with '\n' */
  reader->next = newline + 1;
  return line;
}

bool shimctl_snapshot_begin(struct shimctl_snapshot_reader* reader,
                            char* text,
                            size_t len,
                            const char** fingerprint) {
  if (len == 0 || text[len - 1] != '\n')
    return false; /* every line ends with a newline: a truncated snapshot is stale */
  reader->next = text;
  reader->end = text + len;
  const char* header = next_line(reader);
  char* line = next_line(reader);
  if (!header || strcmp(header, SHIMCTL_IDENTITY_HEADER) != 0 || !line ||
      !starts_with(line, SHIMCTL_IDENTITY_FINGERPRINT) ||
      !shimctl_is_fingerprint(line + sizeof SHIMCTL_IDENTITY_FINGERPRINT - 1))
    return false;
  *fingerprint = line + sizeof SHIMCTL_IDENTITY_FINGERPRINT - 1;
  return true;
}

/* Reads a decimal number followed by one space. */
static bool parse_number(char** cursor, unsigned long long* out) {
  char* p = *cursor;
  unsigned long long value = 0;
  if (*p < '0' || *p > '9')
    return false;
  while (*p >= '0' && *p <= '9')
    value = value * 10 + (unsigned long long)(*p++ - '0');
  if (*p != ' ')
    return false;
  *cursor = p + 1;
  *out = value;
  return true;
}

enum shimctl_snapshot_line shimctl_snapshot_next(struct shimctl_snapshot_reader* reader,
                                                 const char** dir,
                                                 struct shimctl_snapshot_input* input) {
  char* line = next_line(reader);
  if (!line)
    return SHIMCTL_SNAPSHOT_END;
  if (starts_with(line, SHIMCTL_IDENTITY_DIR)) {
    *dir = line + sizeof SHIMCTL_IDENTITY_DIR - 1;
    return SHIMCTL_SNAPSHOT_DIR;
  }
  if (!parse_number(&line, &input->inode) || !parse_number(&line, &input->size) ||
      !parse_number(&line, &input->mtime_ns) || !parse_number(&line, &input->ctime_ns) || !*line)
    return SHIMCTL_SNAPSHOT_BAD;
  input->name = line;
  return SHIMCTL_SNAPSHOT_INPUT;
}
