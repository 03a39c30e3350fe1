#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <shim/formats.h>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/process.hpp>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shimctl::build {

using util::ExitCode;
using util::fail;
using namespace std::string_view_literals;

cache::BuildCounts BuildStats::total() const {
  cache::BuildCounts sum;
  for (const auto& [name, counts] : tools)
    sum.add(counts);
  return sum;
}

std::string BuildStats::tool() const {
  std::string names;
  for (const auto& [name, counts] : tools)
    names += (names.empty() ? "" : "+") + name;
  return names.empty() ? "none" : names;
}

double BuildStats::hit_rate() const {
  auto sum = total();
  return sum.compiles() ? static_cast<double>(sum.hits) / static_cast<double>(sum.compiles()) : 0.0;
}

std::map<std::string, std::uint64_t> not_sent_in_measure_log(const std::string& text) {
  std::map<std::string, std::uint64_t> not_sent;
  std::istringstream in(text);
  std::string line;
  bool record = false; // the line after the shim's header is its reason
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_NOT_SENT) {
      record = true;
      continue;
    }
    if (std::exchange(record, false) && !line.empty() && !line.starts_with("#"))
      ++not_sent[line];
  }
  return not_sent;
}

std::vector<std::string> miss_records_in_measure_log(const std::string& text) {
  std::vector<std::string> paths;
  std::istringstream in(text);
  std::string line;
  bool record = false; // the line after the header is the record's path
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_MISS_RECORD) {
      record = true;
      continue;
    }
    if (std::exchange(record, false) && !line.empty() && line[0] == '/')
      paths.push_back(line);
  }
  return paths;
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

// A private file (mkstemp, 0600) removed with this object.
class PrivateLog {
public:
  static util::Result<PrivateLog> create(const std::string& what) {
    const char* tmpdir = std::getenv("TMPDIR");
    PrivateLog log;
    log.path_ = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/shimctl-measure.XXXXXX";
    int fd = ::mkstemp(log.path_.data());
    if (fd < 0)
      return fail("cannot create {} in {}: {}", what, log.path_, util::errno_text(errno));
    ::close(fd);
    log.owned_ = true;
    return log;
  }
  PrivateLog() = default;
  PrivateLog(PrivateLog&& other) noexcept
    : path_(std::move(other.path_))
    , owned_(other.owned_) {
    other.owned_ = false;
  }
  PrivateLog& operator=(PrivateLog&&) = delete;
  PrivateLog(const PrivateLog&) = delete;
  PrivateLog& operator=(const PrivateLog&) = delete;
  ~PrivateLog() {
    if (owned_)
      (void)::unlink(path_.c_str());
  }
  [[nodiscard]] const std::string& path() const {
    return path_;
  }
  [[nodiscard]] util::Result<std::string> read() const {
    auto [dir_path, name] = util::split_relative(path_);
    TRY_ASSIGN(auto dir, util::Dir::open(dir_path.empty() ? "/" : dir_path));
    return dir.read_file(name, 1ULL << 30);
  }

private:
  std::string path_;
  bool owned_ = false;
};

} // namespace

util::Result<BuildStats> measure_build(const std::vector<std::string>& argv, BuildStdout out) {
  if (argv.empty())
    return fail(ExitCode::usage, "measure: no build command; use 'shimctl measure -- make -j8'");
  TRY_ASSIGN(auto shim_log, PrivateLog::create("the shim's log"));
  // Each cache tool's watch, before the build (a server the user chose: its counts before).
  std::vector<std::pair<const cache::Tool*, std::unique_ptr<cache::BuildWatch>>> watches;
  std::vector<std::string> added{ SHIMCTL_MEASURE_LOG "=" + shim_log.path() };
  for (auto name : cache::tool_names()) {
    const cache::Tool* tool = cache::tool_named(name);
    TRY_ASSIGN(auto watch, tool->watch_build());
    for (auto& entry : watch->environment())
      added.push_back(std::move(entry));
    watches.emplace_back(tool, std::move(watch));
  }

  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    bool replaced = std::ranges::any_of(added, [&](const std::string& a) {
      return entry.starts_with(std::string_view(a).substr(0, a.find('=') + 1));
    });
    if (!replaced)
      env_storage.emplace_back(*e);
  }
  env_storage.insert(env_storage.end(), added.begin(), added.end());
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
  auto started_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  {
    SignalsIgnored ignored; // Ctrl-C reaches the build; we stay to report and clean up
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
      return fail(ExitCode::usage, "cannot run {}: {}", argv[0], util::errno_text(rc));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    stats.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  TRY_ASSIGN(auto shim_text, shim_log.read());
  stats.not_sent = not_sent_in_measure_log(shim_text);
  stats.miss_records = miss_records_in_measure_log(shim_text);
  stats.pieces = pieces::counts_in_measure_log(shim_text);
  stats.device_links = links::link_counts_in_measure_log(shim_text);
  auto dirs = cache_dirs_in_measure_log(shim_text);
  if (!stats.device_links.empty())
    if (auto store = cache::link_store_place(nullptr); !store.dir.empty())
      dirs.insert(store.dir);
  for (const auto& dir : dirs) {
    auto need = build_need(dir, started_ns);
    need.measured = static_cast<long long>(std::time(nullptr));
    if (stats.exit_code == 0 && need.files > 0)
      keep_build_need(need);
    stats.needs.push_back(std::move(need));
  }
  for (auto& [tool, watch] : watches) {
    auto counts = watch->counts(shim_text, stats.not_sent, stats.warnings);
    if (!counts)
      continue;
    if (tool->counts_pieces()) { // the pieces' and host halves' compiles are not the build's
      auto pieces = pieces::counts_in_measure_log(shim_text, tool->name());
      auto less = [](std::uint64_t& count, std::uint64_t by) { count -= std::min(count, by); };
      less(counts->hits, pieces::tool_hits_of(pieces));
      less(counts->misses, pieces::tool_misses_of(pieces));
      less(counts->calls, pieces::tool_hits_of(pieces) + pieces::tool_misses_of(pieces));
    }
    stats.tools[std::string(tool->name())] = *counts;
  }
  if (const char* disabled = std::getenv("SHIMCTL_DISABLE"); disabled && disabled == "1"sv)
    stats.warnings.push_back("SHIMCTL_DISABLE=1 is set: the shims ran every call without the "
                             "cache (and record none of them)");
  return stats;
}

} // namespace shimctl::build
