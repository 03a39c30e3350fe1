/* sccache's server, made sure of before the shim execs sccache.
 *
 * sccache's client starts a server when none answers on its port and fails the compile when that
 * server does not report for duty within its own timeout (10 s: a loaded machine, a server that
 * cannot start, several clients of a cold `make -j` racing to start it; mozilla/sccache #317,
 * #340). A compile must never fail because of the cache layer, so for sccache the shim checks
 * the port first (one connect to 127.0.0.1, three system calls); when nothing answers it starts
 * the server itself with `sccache --start-server` in the cache tool's environment, one shim at a
 * time (a lock in the state dir; the others wait, then find it running). When that fails too the
 * compile runs uncached. */
#define _GNU_SOURCE
#include "shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define SCCACHE_DEFAULT_PORT 4226

/* Something accepts connections on 127.0.0.1:PORT. */
static bool port_answers(unsigned port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return false;
  struct sockaddr_in addr = { 0 };
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool answers = connect(fd, (const struct sockaddr*)&addr, sizeof addr) == 0;
  close(fd);
  return answers;
}

/* The port sccache uses with ENV: SCCACHE_SERVER_PORT, else its default; 0 when it talks over a
 * unix socket (SCCACHE_SERVER_UDS, sccache >= 0.9), which the shim leaves to sccache. */
static unsigned server_port(char* const env[]) {
  unsigned port = SCCACHE_DEFAULT_PORT;
  for (size_t i = 0; env[i]; i++) {
    if (starts_with(env[i], "SCCACHE_SERVER_UDS="))
      return 0;
    if (starts_with(env[i], "SCCACHE_SERVER_PORT=")) {
      char* end;
      unsigned long value = strtoul(env[i] + sizeof "SCCACHE_SERVER_PORT=" - 1, &end, 10);
      if (*end == '\0' && value > 0 && value < 65536)
        port = (unsigned)value;
    }
  }
  return port;
}

/* Runs ARGS with ENV, its streams on /dev/null (nothing it leaves running can hold a pipe of
 * ours), and waits for it: its exit status does not matter (see below). */
static void run_quietly(char* const args[], char* const env[]) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open_file("/dev/null", O_RDWR, 0);
    if (null >= 0 && dup2(null, 0) == 0 && dup2(null, 1) == 1 && dup2(null, 2) == 2)
      execve(args[0], args, env);
    _exit(127);
  }
  while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
    continue;
}

bool sccache_server_ready(const char* sccache, char* const env[]) {
  unsigned port = server_port(env);
  if (port == 0 || port_answers(port))
    return true;
  char lock_path[PATH_MAX];
  int lock = -1;
  if (shim.config.state_dir &&
      concat(lock_path, sizeof lock_path, shim.config.state_dir, "/sccache-server.lock", NULL) <
        sizeof lock_path) {
    /* Read-only is enough for flock, so any user can wait on the file root created. */
    lock = open_file(lock_path, O_RDONLY | O_CREAT, 0644);
    if (lock >= 0 && flock(lock, LOCK_EX) != 0) {
      close(lock);
      lock = -1;
    }
  }
  bool ready = lock >= 0 && port_answers(port); /* started while this shim waited */
  if (!ready) {
    char* args[] = { (char*)sccache, "--start-server", NULL };
    if (shim.trace)
      say("no sccache server on port ",
          shimctl_decimal(port, (char[24]){ 0 }),
          ": starting one",
          NULL);
    run_quietly(args, env); /* it fails when another client's server won the race: fine */
    ready = port_answers(port);
  }
  if (lock >= 0)
    close(lock);
  return ready;
}
