/* The shim config's reader (the format: shim/formats.h). Pure: parses a buffer in place. */
#include "formats.h"
#include "text.h"

struct parser {
  struct shimctl_config* config;
  const char* path;
  char* problem;
  size_t problem_cap;
};

static const char* malformed(const struct parser* p,
                             unsigned line,
                             const char* what,
                             const char* detail) {
  char num[24];
  concat(
    p->problem, p->problem_cap, p->path, ":", shimctl_decimal(line, num), ": ", what, detail, NULL);
  return p->problem;
}

/* Splits "A B" in place into two non-empty fields without '/' (names of files in D). */
static bool split_names(char* rest, const char** a, const char** b) {
  char* space = strchr(rest, ' ');
  if (!space)
    return false;
  *space = '\0';
  *a = rest;
  *b = space + 1;
  if (**a && **b && !strchr(*b, ' ') && !strchr(*a, '/') && !strchr(*b, '/'))
    return true;
  *space = ' '; /* the problem quotes the whole line */
  return false;
}

/* The kind named NAME; SHIMCTL_DIRECTIVE_KINDS when none is. */
static enum shimctl_directive_kind kind_named(const char* name) {
  int kind = 0;
  while (kind < SHIMCTL_DIRECTIVE_KINDS &&
         strcmp(name, shimctl_directive_name((enum shimctl_directive_kind)kind)) != 0)
    kind++;
  return (enum shimctl_directive_kind)kind;
}

/* Parses one directive line (already NUL-terminated); returns NULL or a problem. */
static const char* parse_line(const struct parser* p, char* line, unsigned lineno) {
  struct shimctl_config* config = p->config;
  char* space = strchr(line, ' ');
  if (!space || !space[1])
    return malformed(p, lineno, "directive without value: ", line);
  *space = '\0';
  char* rest = space + 1;
  struct shimctl_directive d = { kind_named(line), { NULL } };
  switch (d.kind) {
    case SHIMCTL_STATE:
    case SHIMCTL_CACHE:
    case SHIMCTL_IDENTITY_HELPER:
    case SHIMCTL_SECRETS:
    case SHIMCTL_PIECES_HELPER:
      if (rest[0] != '/')
        return malformed(p, lineno, "path must be absolute: ", rest);
      *(d.kind == SHIMCTL_STATE             ? &config->state_dir
        : d.kind == SHIMCTL_CACHE           ? &config->cache_path
        : d.kind == SHIMCTL_IDENTITY_HELPER ? &config->identity_helper
        : d.kind == SHIMCTL_PIECES_HELPER   ? &config->pieces_helper
                                            : &config->secrets_path) = rest;
      return NULL;
    case SHIMCTL_SCCACHE_SERVER: {
      char* space2 = strchr(rest, ' ');
      if (space2)
        *space2 = '\0';
      if (!space2 || (strcmp(rest, SHIMCTL_SCCACHE_UNIX) && strcmp(rest, SHIMCTL_SCCACHE_TCP)) ||
          strlen(space2 + 1) != SHIMCTL_SCCACHE_KEY_HEX ||
          strspn(space2 + 1, "0123456789abcdef") != SHIMCTL_SCCACHE_KEY_HEX) {
        if (space2)
          *space2 = ' ';
        return malformed(p, lineno, "expected unix|tcp and 16 hex digits: ", rest);
      }
      config->sccache_server = (struct shimctl_sccache_server){ rest, space2 + 1 };
      return NULL;
    }
    case SHIMCTL_STORE: {
      char* space2 = strchr(rest, ' ');
      if (space2)
        *space2 = '\0';
      if (!space2 || !space2[1] || strchr(space2 + 1, ' ') ||
          strlen(space2 + 1) >= sizeof((struct shimctl_store_health*)0)->address ||
          (strcmp(rest, SHIMCTL_STORE_PROBE_REDIS) && strcmp(rest, SHIMCTL_STORE_PROBE_HTTP) &&
           strcmp(rest, SHIMCTL_STORE_PROBE_TCP) &&
           strcmp(rest, SHIMCTL_STORE_PROBE_REDIS_CLUSTER))) {
        if (space2)
          *space2 = ' ';
        return malformed(p, lineno, "expected redis|redis-cluster|http|tcp and HOST:PORT: ", rest);
      }
      config->store = (struct shimctl_store){ rest, space2 + 1 };
      return NULL;
    }
    case SHIMCTL_CACHE_KIND:
      if (strcmp(rest, SHIMCTL_CACHE_KIND_CCACHE) && strcmp(rest, SHIMCTL_CACHE_KIND_SCCACHE))
        return malformed(p, lineno, "unknown cache tool: ", rest);
      config->cache_kind = rest;
      return NULL;
    case SHIMCTL_SETENV:
    case SHIMCTL_APPENDENV: {
      char* eq = strchr(rest, '=');
      if (!eq || eq == rest)
        return malformed(p, lineno, "expected NAME=VALUE: ", rest);
      d.u.env = rest;
      break;
    }
    case SHIMCTL_KEYENV:
      if (strchr(rest, '=') || strchr(rest, ' '))
        return malformed(p, lineno, "expected a variable name: ", rest);
      d.u.variable = rest;
      break;
    case SHIMCTL_TARGET_PROBE:
    case SHIMCTL_NATIVE_PROBE: {
      char* space2 = strchr(rest, ' ');
      if (!space2 || space2 == rest || space2[1] != '/' || strchr(space2 + 1, ' '))
        return malformed(p, lineno, "expected a compiler name and an absolute path: ", rest);
      *space2 = '\0';
      d.u.target_probe = (struct shimctl_target_probe){ rest, space2 + 1 };
      break;
    }
    case SHIMCTL_COMPILER:
      if (!split_names(rest, &d.u.compiler.name, &d.u.compiler.real_name))
        return malformed(p, lineno, "expected two file names: ", rest);
      break;
    case SHIMCTL_ALIAS:
      if (!split_names(rest, &d.u.alias.alias, &d.u.alias.compiler))
        return malformed(p, lineno, "expected two file names: ", rest);
      break;
    case SHIMCTL_DIRECTIVE_KINDS:
      return malformed(p, lineno, "unknown directive: ", line);
  }
  if (config->count == SHIMCTL_MAX_DIRECTIVES)
    return malformed(p, lineno, "too many directives", "");
  config->list[config->count++] = d;
  return NULL;
}

const char* shimctl_parse_config(struct shimctl_config* config,
                                 char* text,
                                 size_t len,
                                 const char* path,
                                 char* problem,
                                 size_t problem_cap) {
  const struct parser p = { config, path, problem, problem_cap };
  char* end = text + len;
  unsigned lineno = 0;
  bool header_seen = false;
  config->state_dir = config->cache_path = config->identity_helper = NULL;
  config->pieces_helper = NULL;
  config->cache_kind = SHIMCTL_CACHE_KIND_CCACHE;
  config->secrets_path = NULL;
  config->sccache_server = (struct shimctl_sccache_server){ NULL, NULL };
  config->store = (struct shimctl_store){ NULL, NULL };
  config->count = 0;
  *end = '\0';
  if (memchr(text, '\0', len))
    return malformed(&p, 1, "contains a NUL byte", "");
  for (char* line = text; line < end; line++) {
    char* newline = memchr(line, '\n', (size_t)(end - line));
    if (newline)
      *newline = '\0';
    lineno++;
    if (line[0] != '\0' && line[0] != '#') {
      const char* bad = NULL;
      if (header_seen)
        bad = parse_line(&p, line, lineno);
      else if (strcmp(line, SHIMCTL_CONFIG_HEADER) == 0)
        header_seen = true;
      else
        bad = malformed(&p, lineno, "expected '" SHIMCTL_CONFIG_HEADER "', found: ", line);
      if (bad)
        return bad;
    }
    line = newline ? newline : end;
  }
  if (!header_seen)
    return malformed(&p, lineno, "no '" SHIMCTL_CONFIG_HEADER "' line", "");
  if (!config->cache_path)
    return malformed(&p, lineno, "no cache line", "");
  for (size_t i = 0; i < config->count; i++) {
    const struct shimctl_directive* d = &config->list[i];
    if (d->kind == SHIMCTL_ALIAS && !shimctl_find_compiler(config, d->u.alias.compiler))
      return malformed(&p, lineno, "alias of an unknown compiler: ", d->u.alias.compiler);
  }
  return NULL;
}

const struct shimctl_compiler* shimctl_find_compiler(const struct shimctl_config* config,
                                                     const char* name) {
  for (size_t i = 0; i < config->count; i++)
    if (config->list[i].kind == SHIMCTL_COMPILER &&
        strcmp(config->list[i].u.compiler.name, name) == 0)
      return &config->list[i].u.compiler;
  return NULL;
}

const struct shimctl_alias* shimctl_find_alias(const struct shimctl_config* config,
                                               const char* alias) {
  for (size_t i = 0; i < config->count; i++)
    if (config->list[i].kind == SHIMCTL_ALIAS && strcmp(config->list[i].u.alias.alias, alias) == 0)
      return &config->list[i].u.alias;
  return NULL;
}

const struct shimctl_target_probe* shimctl_find_probe(const struct shimctl_config* config,
                                                      enum shimctl_directive_kind kind,
                                                      const char* name) {
  const struct shimctl_target_probe* found = NULL;
  for (size_t i = 0; i < config->count; i++)
    if (config->list[i].kind == kind && strcmp(config->list[i].u.target_probe.compiler, name) == 0)
      found = &config->list[i].u.target_probe;
  return found;
}
