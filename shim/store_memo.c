/* A team store's health memo, read and written (the format: shim/formats.h). Pure. */
#include "formats.h"
#include "text.h"

#include <stdlib.h>

/* The next space-separated word of *AT as a number; false when there is none. */
static bool next_number(const char** at, unsigned long long* value) {
  char* end;
  if (**at < '0' || **at > '9')
    return false;
  *value = strtoull(*at, &end, 10);
  if (*end != ' ')
    return false;
  *at = end + 1;
  return true;
}

bool shimctl_parse_store_health(const char* text, struct shimctl_store_health* h) {
  const char* at = text;
  size_t healthy = sizeof SHIMCTL_STORE_HEALTHY, out = sizeof SHIMCTL_STORE_OUT;
  *h = (struct shimctl_store_health){ 0 };
  if (strncmp(at, SHIMCTL_STORE_HEALTHY " ", healthy) == 0)
    at += healthy;
  else if (strncmp(at, SHIMCTL_STORE_OUT " ", out) == 0 && (h->out = true))
    at += out;
  else
    return false;
  if (!next_number(&at, &h->checked) || !next_number(&at, &h->until) ||
      !next_number(&at, &h->cooldown) || !next_number(&at, &h->failed))
    return false;
  const char* space = strchr(at, ' ');
  if (!space || space == at || (size_t)(space - at) >= sizeof h->address)
    return false;
  memcpy(h->address, at, (size_t)(space - at));
  h->address[space - at] = '\0';
  at = space + 1;
  size_t len = strcspn(at, "\n");
  if (len >= sizeof h->failure)
    len = sizeof h->failure - 1;
  memcpy(h->failure, at, len);
  h->failure[len] = '\0';
  if (strcmp(h->failure, "-") == 0)
    h->failure[0] = '\0';
  return true;
}

size_t shimctl_render_store_health(char* out, size_t cap, const struct shimctl_store_health* h) {
  char num[24];
  size_t len = shimctl_put(out, cap, 0, h->out ? SHIMCTL_STORE_OUT " " : SHIMCTL_STORE_HEALTHY " ");
  const unsigned long long numbers[] = { h->checked, h->until, h->cooldown, h->failed };
  for (int i = 0; i < 4; i++)
    len = shimctl_put(out, cap, shimctl_put(out, cap, len, shimctl_decimal(numbers[i], num)), " ");
  len = shimctl_put(out, cap, shimctl_put(out, cap, len, h->address), " ");
  len = shimctl_put(out, cap, len, h->failure[0] ? h->failure : "-");
  return shimctl_put(out, cap, len, "\n");
}
