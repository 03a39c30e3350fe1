#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/util/dir.hpp>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shimctl::build {

using util::ExitCode;
using util::fail;

BuildStats parse_stats_log(const std::string& text) {
  BuildStats stats;
  std::istringstream in(text);
  std::string line;
  // Lines, not records: with parallel compiles, records from several ccache processes may
  // interleave line by line; each counter line still belongs to exactly one call.
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      ++stats.calls;
    } else if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") {
      ++stats.hits;
    } else if (line == "cache_miss") {
      ++stats.misses;
    } else if (!line.empty() && line.find("storage") == std::string::npos &&
               !line.ends_with("_cache_miss")) {
      ++stats.uncacheable[line];
    }
  }
  return stats;
}

namespace {

class SignalsIgnored {
public:
  SignalsIgnored() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGINT, &ignore, &int_);
    ::sigaction(SIGQUIT, &ignore, &quit_);
  }
  ~SignalsIgnored() {
    ::sigaction(SIGINT, &int_, nullptr);
    ::sigaction(SIGQUIT, &quit_, nullptr);
  }
  SignalsIgnored(const SignalsIgnored&) = delete;
  SignalsIgnored& operator=(const SignalsIgnored&) = delete;

private:
  struct sigaction int_ {};
  struct sigaction quit_ {};
};

} // namespace

util::Result<BuildStats> measure_build(const std::vector<std::string>& argv, BuildStdout out) {
  if (argv.empty())
    return fail(ExitCode::usage, "measure: no build command; use 'shimctl measure -- make -j8'");
  const char* tmpdir = std::getenv("TMPDIR");
  std::string log = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/shimctl-measure.XXXXXX";
  int fd = ::mkstemp(log.data());
  if (fd < 0)
    return fail("cannot create a statistics log in {}: {}", log, util::errno_text(errno));
  ::close(fd);
  auto [log_dir_path, log_name] = util::split_relative(log);
  TRY_ASSIGN(auto log_dir, util::Dir::open(log_dir_path.empty() ? "/" : log_dir_path));

  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("CCACHE_STATSLOG="))
      env_storage.emplace_back(*e);
  env_storage.push_back("CCACHE_STATSLOG=" + log);
  std::vector<char*> envp;
  for (auto& e : env_storage)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& a : args)
    argp.push_back(a.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out == BuildStdout::to_stderr)
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  BuildStats stats;
  {
    SignalsIgnored ignored; // Ctrl-C reaches the build; we stay to report and clean up
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      (void)log_dir.remove(log_name);
      return fail(ExitCode::usage, "cannot run {}: {}", argv[0], util::errno_text(rc));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    stats.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  auto text = log_dir.read_file(log_name, 1ULL << 30);
  (void)log_dir.remove(log_name);
  if (!text)
    return std::unexpected(text.error());
  auto counted = parse_stats_log(*text);
  counted.exit_code = stats.exit_code;
  return counted;
}

} // namespace shimctl::build
