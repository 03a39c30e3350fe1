#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <shim/formats.h>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cache/cache_backend.hpp>
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

void ToolCounts::add(const ToolCounts& other) {
  calls += other.calls;
  hits += other.hits;
  misses += other.misses;
  for (const auto& [name, count] : other.uncacheable)
    uncacheable[name] += count;
}

ToolCounts BuildStats::total() const {
  ToolCounts sum;
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

namespace {

// The shim's name of the reason an older shim wrote into ccache's stats log by ccache's
// counter name (shimctl_not_sent_stats_log_name).
std::string reason_of_stats_log_name(const std::string& counter) {
  for (int r = 0; r < SHIMCTL_NOT_SENT_REASONS; ++r) {
    const char* name = shimctl_not_sent_stats_log_name(static_cast<shimctl_not_sent>(r));
    if (name && counter == name)
      return shimctl_not_sent_name(static_cast<shimctl_not_sent>(r));
  }
  return counter;
}

} // namespace

ToolCounts parse_stats_log(const std::string& text,
                           std::map<std::string, std::uint64_t>& not_sent) {
  ToolCounts counts;
  std::istringstream in(text);
  std::string line;
  bool shim_record = false; // the line after an older shim's header is its reason
  // Lines, not records: with parallel compiles, records from several ccache processes may
  // interleave line by line; each counter line still belongs to exactly one call. A shim's
  // record is one write(2), its two lines adjacent.
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_NOT_SENT) {
      shim_record = true;
    } else if (line.starts_with("#")) {
      shim_record = false;
      ++counts.calls;
    } else if (shim_record) {
      shim_record = false;
      if (!line.empty())
        ++not_sent[reason_of_stats_log_name(line)];
    } else if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") {
      ++counts.hits;
    } else if (line == "cache_miss") {
      ++counts.misses;
    } else if (!line.empty() && line.find("storage") == std::string::npos &&
               !line.ends_with("_cache_miss")) {
      ++counts.uncacheable[line];
    }
  }
  return counts;
}

ShimRecords parse_measure_log(const std::string& text) {
  ShimRecords records;
  std::istringstream in(text);
  std::string line;
  enum class Next { none, not_sent, sccache } next = Next::none;
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_NOT_SENT) {
      next = Next::not_sent;
      continue;
    }
    if (line == SHIMCTL_MEASURE_SCCACHE) {
      next = Next::sccache;
      continue;
    }
    if (next == Next::not_sent && !line.empty() && !line.starts_with("#")) {
      ++records.not_sent[line];
    } else if (next == Next::sccache) {
      // SCOPE SCCACHE ENTRY: the binary has no space (a config field); ENTRY is the rest.
      auto first = line.find(' ');
      auto second = first == std::string::npos ? first : line.find(' ', first + 1);
      if (second != std::string::npos) {
        std::string scope = line.substr(0, first);
        std::string sccache = line.substr(first + 1, second - first - 1);
        std::string entry = line.substr(second + 1);
        if ((entry.starts_with("SCCACHE_SERVER_UDS=") ||
             entry.starts_with("SCCACHE_SERVER_PORT=")) &&
            (scope == SHIMCTL_MEASURE_OWN_SERVER || scope == SHIMCTL_MEASURE_SHARED_SERVER)) {
          auto& servers = records.sccache_servers;
          auto it = std::find_if(servers.begin(), servers.end(), [&](const SccacheServer& s) {
            return s.sccache == sccache && s.entry == entry;
          });
          if (it == servers.end())
            it = servers.insert(servers.end(),
                                { sccache, entry, scope == SHIMCTL_MEASURE_OWN_SERVER, 0 });
          ++it->calls;
        }
      }
    }
    next = Next::none;
  }
  return records;
}

ToolCounts sccache_counts(const cache::CacheStats& after, const cache::CacheStats* before) {
  auto get = [&](const std::string& name) {
    std::uint64_t now = after.get(name), then = before ? before->get(name) : 0;
    return now > then ? now - then : 0;
  };
  ToolCounts counts;
  counts.calls = get("compile_requests");
  counts.hits = get("cache_hits");
  counts.misses = get("cache_misses");
  // Calls sccache did not cache, by its own names. requests_not_cacheable is broken down by
  // reason in not_cached:<reason> (0.4 and later); what no reason covers keeps the total's name.
  // (non_cacheable_compilations are among the misses: not listed again.)
  std::uint64_t by_reason = 0;
  for (const auto& [name, count] : after.counters)
    if (name.starts_with("not_cached:") && get(name)) {
      counts.uncacheable[name] = get(name);
      by_reason += get(name);
    }
  if (get("requests_not_cacheable") > by_reason)
    counts.uncacheable["requests_not_cacheable"] = get("requests_not_cacheable") - by_reason;
  for (const char* name : { "requests_unsupported_compiler", "compile_fails" })
    if (get(name))
      counts.uncacheable[name] = get(name);
  return counts;
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

// The environment for an sccache client talking to the server ENTRY names, and no other.
util::RunOptions server_options(const std::string& entry) {
  util::RunOptions options;
  options.env["SCCACHE_SERVER_UDS"] = std::nullopt;
  options.env["SCCACHE_SERVER_PORT"] = std::nullopt;
  auto eq = entry.find('=');
  options.env[entry.substr(0, eq)] = entry.substr(eq + 1);
  return options;
}

core::CacheSettings sccache_settings(const std::string& path) {
  core::CacheSettings settings;
  settings.kind = SHIMCTL_CACHE_KIND_SCCACHE;
  settings.path = path;
  return settings;
}

// The server the user chose in measure's own environment ("SCCACHE_SERVER_UDS=..." first, as
// sccache and the shim read them), "" when none.
std::string users_server() {
  for (const char* name : { "SCCACHE_SERVER_UDS", "SCCACHE_SERVER_PORT" })
    if (const char* value = std::getenv(name); value && *value)
      return std::string(name) + "=" + value;
  return {};
}

// The user's own server's statistics before the build: empty counters when it is not running
// (a server started later counts only from then), nullopt when they cannot be read.
std::optional<cache::CacheStats> baseline_of(const std::string& entry) {
  auto sccache = util::find_in_path(SHIMCTL_CACHE_KIND_SCCACHE);
  auto stats =
    cache::read_stats(sccache_settings(sccache.empty() ? SHIMCTL_CACHE_KIND_SCCACHE : sccache),
                      server_options(entry));
  if (!stats)
    return std::nullopt;
  return *stats;
}

// Removes what the shim made in its private directory for a server of the build's own: the
// socket and the lock beside it (sccache-<instance>.sock/.lock). A port's lock stays (sccache
// 0.4: measure does not know its instance).
void remove_server_files(const std::string& entry) {
  constexpr std::string_view uds = "SCCACHE_SERVER_UDS=";
  if (!entry.starts_with(uds))
    return;
  std::string socket = entry.substr(uds.size());
  auto slash = socket.rfind('/');
  std::string name = slash == std::string::npos ? socket : socket.substr(slash + 1);
  if (!name.starts_with("sccache-") || !name.ends_with(".sock") ||
      name.size() != sizeof "sccache-" - 1 + SHIMCTL_SCCACHE_KEY_HEX + sizeof ".sock" - 1)
    return;
  (void)::unlink(socket.c_str());
  (void)::unlink((socket.substr(0, socket.size() - 5) + ".lock").c_str());
}

// sccache's counts for the build, from each server the shim's records name.
ToolCounts read_sccache_servers(const std::vector<SccacheServer>& servers,
                                const std::string& users_entry,
                                const std::optional<cache::CacheStats>& baseline,
                                std::vector<std::string>& warnings) {
  ToolCounts total;
  for (const auto& server : servers) {
    auto options = server_options(server.entry);
    auto settings = sccache_settings(server.sccache);
    auto stats = cache::read_stats(settings, options);
    if (!stats) {
      warnings.push_back(fmt::format("sccache's statistics at {} could not be read ({}): its "
                                     "{} call(s) are not counted",
                                     server.entry,
                                     stats.error().message,
                                     server.calls));
    } else if (stats->counters.empty()) {
      warnings.push_back(fmt::format("the sccache server at {} had stopped before its statistics "
                                     "could be read: its {} call(s) are not counted",
                                     server.entry,
                                     server.calls));
    } else if (server.own) {
      total.add(sccache_counts(*stats, nullptr));
    } else if (server.entry == users_entry && baseline) {
      total.add(sccache_counts(*stats, &*baseline));
      warnings.push_back(fmt::format(
        "sccache's counts are those of the server you chose ({}), before the build and after: "
        "other clients' compiles in that time are counted too; unset it for the build's alone",
        server.entry));
    } else {
      total.add(sccache_counts(*stats, nullptr));
      warnings.push_back(fmt::format(
        "sccache's counts are the totals of the server at {} since it started (its statistics "
        "before the build could not be read): not the build's alone",
        server.entry));
    }
    if (server.own) { // it served this build only
      (void)util::run({ server.sccache, "--stop-server" }, options);
      remove_server_files(server.entry);
    }
  }
  return total;
}

} // namespace

util::Result<BuildStats> measure_build(const std::vector<std::string>& argv, BuildStdout out) {
  if (argv.empty())
    return fail(ExitCode::usage, "measure: no build command; use 'shimctl measure -- make -j8'");
  TRY_ASSIGN(auto stats_log, PrivateLog::create("a statistics log"));
  TRY_ASSIGN(auto shim_log, PrivateLog::create("the shim's log"));
  auto users_entry = users_server();
  std::optional<cache::CacheStats> baseline;
  if (!users_entry.empty())
    baseline = baseline_of(users_entry);

  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("CCACHE_STATSLOG=") && !entry.starts_with(SHIMCTL_MEASURE_LOG "="))
      env_storage.emplace_back(*e);
  }
  env_storage.push_back("CCACHE_STATSLOG=" + stats_log.path());
  env_storage.push_back(SHIMCTL_MEASURE_LOG "=" + shim_log.path());
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
    if (rc != 0)
      return fail(ExitCode::usage, "cannot run {}: {}", argv[0], util::errno_text(rc));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    stats.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  TRY_ASSIGN(auto ccache_text, stats_log.read());
  TRY_ASSIGN(auto shim_text, shim_log.read());
  auto records = parse_measure_log(shim_text);
  stats.not_sent = records.not_sent;
  stats.pieces = pieces::counts_in_measure_log(shim_text);
  auto ccache = parse_stats_log(ccache_text, stats.not_sent);
  if (ccache.calls)
    stats.tools[SHIMCTL_CACHE_KIND_CCACHE] = ccache;
  if (!records.sccache_servers.empty()) {
    auto sccache =
      read_sccache_servers(records.sccache_servers, users_entry, baseline, stats.warnings);
    // sccache counts the pieces' and host halves' compiles too (ccache's are kept out of its
    // stats log).
    auto pieces = pieces::counts_in_measure_log(shim_text, SHIMCTL_CACHE_KIND_SCCACHE);
    auto less = [](std::uint64_t& count, std::uint64_t by) { count -= std::min(count, by); };
    less(sccache.hits, pieces::tool_hits_of(pieces));
    less(sccache.misses, pieces::tool_misses_of(pieces));
    less(sccache.calls, pieces::tool_hits_of(pieces) + pieces::tool_misses_of(pieces));
    stats.tools[SHIMCTL_CACHE_KIND_SCCACHE] = sccache;
  }
  if (const char* disabled = std::getenv("SHIMCTL_DISABLE"); disabled && disabled == "1"sv)
    stats.warnings.push_back("SHIMCTL_DISABLE=1 is set: the shims ran every call without the "
                             "cache (and record none of them)");
  return stats;
}

} // namespace shimctl::build
