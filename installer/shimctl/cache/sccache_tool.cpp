#include <chrono>
#include <climits>
#include <fmt/ranges.h> // fmt::join (fmt >= 10)
#include <nlohmann/json.hpp>
#include <shim/formats.h>
#include <shimctl/cache/max_size.hpp>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/util/text.hpp>
#include <thread>
#include <unistd.h>

namespace shimctl::cache {

using util::fail;

namespace {

// sccache writes no per-call log: its server's statistics before and after the compile.
class StatisticsDeltaWitness final : public HitWitness {
public:
  StatisticsDeltaWitness(const Tool& tool, core::CacheSettings settings, util::RunOptions options)
    : tool_(tool)
    , settings_(std::move(settings))
    , options_(std::move(options))
    , before_(tool_.read_stats(settings_, options_)) {}
  void watch(util::RunOptions& /*compile*/) override {}
  HitVerdict verdict() override {
    auto after = tool_.read_stats(settings_, options_);
    if (before_ && after && after->hits() > before_->hits())
      return { HitVerdict::Kind::hit, "sccache statistics delta", "" };
    std::string reasons;
    if (before_ && after)
      for (const auto& [name, count] : after->counters)
        if (name.starts_with("not_cached:") && count > before_->get(name))
          reasons += (reasons.empty() ? "" : ", ") + name.substr(11);
    return { HitVerdict::Kind::declined, "sccache statistics delta", reasons };
  }

private:
  const Tool& tool_;
  core::CacheSettings settings_;
  util::RunOptions options_;
  util::Result<CacheStats> before_;
};

// The secrets file's comment line that keeps the --remote URL in full (reconfigure reads it back).
constexpr std::string_view remote_line = "# remote=";

// A server of the round's own (its socket or port in the compile's environment, which the shim
// leaves to sccache), started here so that its own words say why a store is refused: sccache
// 0.17 will not start with a store it cannot read (a wrong credential, a bad certificate, a dead
// endpoint). Its counters after the compile; stopped when the round ends.
class SccacheRemoteRound final : public RemoteRound {
public:
  SccacheRemoteRound(const Tool& tool, core::CacheSettings settings, util::RunOptions options)
    : tool_(tool)
    , settings_(std::move(settings))
    , options_(std::move(options)) {
    options_.cwd.clear();
    // As the shim does (formats.h): a start that failed quickly is tried once more.
    auto start = std::chrono::steady_clock::now();
    refused_ = start_server();
    if (!refused_.empty() && std::chrono::steady_clock::now() - start <
                               std::chrono::milliseconds(SHIMCTL_SCCACHE_QUICK_FAILURE_MS)) {
      std::this_thread::sleep_for(
        std::chrono::milliseconds(shimctl_sccache_retry_pause_ms(::getpid())));
      refused_ = start_server();
    }
    started_ = refused_.empty();
  }
  ~SccacheRemoteRound() override {
    if (started_)
      (void)util::run({ settings_.path, "--stop-server" }, options_);
  }
  std::string refusal() const override {
    return refused_;
  }
  RemoteOutcome outcome() override {
    if (!refused_.empty())
      return { .refused = refused_ };
    auto stats = tool_.read_stats(settings_, options_);
    if (!stats)
      return { .refused = stats.error().message };
    return { .hits = stats->get("cache_hits"),
             .read_errors = stats->get("cache_read_errors") + stats->get("cache_timeouts"),
             .write_errors = stats->get("cache_write_errors"),
             .refused = {} };
  }

private:
  // `sccache --start-server`: "" when it started, else what it said (redacted).
  std::string start_server() const {
    auto r = util::run({ settings_.path, "--start-server" }, options_);
    if (!r)
      return r.error().message;
    if (r->ok())
      return {};
    auto said = r->err.empty() ? r->out : r->err;
    said.erase(0, said.find_first_not_of("\n "));
    return util::redact_credentials(util::first_line(said, 240));
  }

  const Tool& tool_;
  core::CacheSettings settings_;
  util::RunOptions options_;
  std::string refused_;
  bool started_ = false;
};

// What tells sccache to store to URL: the store's variables, and where sccache has tiers
// (remote_url.hpp) the chain that keeps its local disk cache in front of the store. The chain
// goes wherever the store's variables go (a user who cannot read the secrets file gets neither).
std::vector<std::string> store_lines(const core::CacheSettings& settings, std::string_view url) {
  auto lines = sccache_store_environment(url, settings.remote_read_only);
  if (auto chain = sccache_tier_chain(url, settings.version); !lines.empty() && !chain.empty())
    lines.push_back(std::move(chain));
  return lines;
}

class Sccache final : public Tool {
public:
  std::string_view name() const override {
    return "sccache";
  }

  void add_shim_environment(const core::CacheSettings& settings,
                            const std::string& fingerprint,
                            const std::vector<std::string>& identity_files,
                            ShimEnvironment& env) const override {
    auto& d = env.defaults;
    if (settings.dir)
      d.push_back("SCCACHE_DIR=" + *settings.dir);
    if (settings.max_size)
      d.push_back("SCCACHE_CACHE_SIZE=" + *settings.max_size);
    // A remote with a credential is in the secrets file only (secrets.hpp).
    if (settings.remote && !settings.remote_secret)
      for (auto& line : store_lines(settings, *settings.remote))
        d.push_back(std::move(line));
    // The server reads its cache settings when it starts and runs the
    // compiles as the user who started it: one server per user and cache
    // configuration, which the shim finds or starts (sccache_server.hpp).
    env.sccache_transport = sccache_transport(settings);
    env.sccache_key = sccache_server_key(settings);
    // sccache keys on the compiler binary it runs (the shim) and its version
    // output; the buster carries the toolchain's identity into every key, and
    // SCCACHE_EXTRAFILES (hashed by content on every compile, 0.4 too) the
    // current contents of its inputs.
    d.push_back("SCCACHE_C_CUSTOM_CACHE_BUSTER=shimctl-" + fingerprint.substr(0, 32));
    if (!identity_files.empty())
      env.appends.push_back(fmt::format("SCCACHE_EXTRAFILES={}", fmt::join(identity_files, ":")));
  }

  std::vector<std::string> secret_environment(const core::CacheSettings& settings,
                                              const std::string& remote_url) const override {
    auto lines = store_lines(settings, remote_url);
    lines.insert(lines.begin(), std::string(remote_line) + remote_url); // the shim skips '#' lines
    return lines;
  }

  std::optional<std::string> remote_url_of(const core::CacheSettings& /*settings*/,
                                           const std::vector<std::string>& lines) const override {
    if (auto url = secret_value(lines, remote_line.substr(0, remote_line.size() - 1)))
      return url;
    return secret_value(lines, "SCCACHE_REDIS"); // written by shimctl before issue 24
  }

  util::Status check_remote(const core::CacheSettings& settings) const override {
    return settings.remote ? check_sccache_remote_url(*settings.remote, settings) : util::Status{};
  }

  util::Status check_remote_url(const core::CacheSettings& settings,
                                std::string_view url) const override {
    return check_sccache_remote_url(url, settings);
  }

  util::Status check_max_size(std::string_view value) const override {
    return check_sccache_max_size(value);
  }
  // One LRU over the whole local cache, trimmed as it grows: a build that fits keeps its entries
  // (a tenth more for what sccache keeps beside them).
  std::uint64_t limit_holding(std::uint64_t bytes, std::uint64_t /*files*/) const override {
    return bytes + bytes / 10;
  }

  util::Result<CacheStats> read_stats(const core::CacheSettings& settings,
                                      const util::RunOptions& options) const override {
    CacheStats stats;
    // Asking a server that is not running would start one (sccache's client
    // does), unmarked and outliving the prefix: a server not running has counted
    // nothing. A port another user listens on gets no request at all.
    auto value_of = [&](const char* name) -> std::optional<std::string> {
      if (auto it = options.env.find(name); it != options.env.end())
        return it->second;
      const char* v = std::getenv(name);
      return v ? std::optional<std::string>(v) : std::nullopt;
    };
    switch (sccache_server_state(value_of("SCCACHE_SERVER_UDS"), value_of("SCCACHE_SERVER_PORT"))) {
      case ServerState::not_running:
        return stats;
      case ServerState::another_users:
        return fail("another user listens on this user's sccache port {}: no statistics asked for",
                    value_of("SCCACHE_SERVER_PORT").value_or(SHIMCTL_SCCACHE_DEFAULT_PORT_TEXT));
      case ServerState::running:
        break;
    }
    TRY_ASSIGN(auto r,
               util::run({ settings.path, "--show-stats", "--stats-format", "json" }, options));
    if (!r.ok())
      return fail("{} --show-stats failed: {}", settings.path, util::first_line(r.err));
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("stats"))
      return fail("{} --show-stats printed no statistics", settings.path);
    auto sum = [](const nlohmann::json& counts) {
      std::uint64_t total = 0;
      if (counts.is_object())
        for (const auto& [k, v] : counts.items())
          if (v.is_number_unsigned())
            total += v.get<std::uint64_t>();
      return total;
    };
    const auto& s = j.at("stats");
    stats.counters["cache_hits"] = sum(
      s.value("cache_hits", nlohmann::json::object()).value("counts", nlohmann::json::object()));
    stats.counters["cache_misses"] = sum(
      s.value("cache_misses", nlohmann::json::object()).value("counts", nlohmann::json::object()));
    stats.counters["compile_requests"] = s.value("compile_requests", 0ULL);
    stats.counters["requests_not_cacheable"] = s.value("requests_not_cacheable", 0ULL);
    for (auto name : { "cache_read_errors", "cache_write_errors", "cache_timeouts" })
      stats.counters[name] = s.value(name, 0ULL);
    // sccache 0.4: why calls were not cached ({"-x": 2, "unknown source language": 1}).
    for (auto name :
         { "requests_unsupported_compiler", "non_cacheable_compilations", "compile_fails" })
      stats.counters[name] = s.value(name, 0ULL);
    if (auto reasons = s.find("not_cached"); reasons != s.end() && reasons->is_object())
      for (const auto& [reason, count] : reasons->items())
        if (count.is_number_unsigned())
          stats.counters["not_cached:" + reason] = count.get<std::uint64_t>();
    stats.hit_count = stats.get("cache_hits");
    stats.miss_count = stats.get("cache_misses");
    return stats;
  }

  std::string cache_location(const core::CacheSettings& /*settings*/,
                             const util::RunOptions& options) const override {
    auto it = options.env.find("SCCACHE_DIR");
    if (it != options.env.end() && it->second)
      return *it->second;
    if (const char* dir = std::getenv("SCCACHE_DIR"))
      return dir;
    auto dir = sccache_default_dir();
    return dir.empty() ? "~/.cache/sccache" : dir;
  }

  void leave_statistics_alone(util::RunOptions& /*options*/) const override {
    // sccache has no such switch: its statistics are the only evidence of a hit.
  }

  std::unique_ptr<HitWitness> hit_witness(const core::CacheSettings& settings,
                                          const util::RunOptions& options,
                                          const std::string& /*scratch*/) const override {
    return std::make_unique<StatisticsDeltaWitness>(*this, settings, options);
  }

  bool archives() const override {
    return false;
  }
  bool group_shared_cache() const override {
    return false;
  }
  util::Result<std::unique_ptr<RemoteRound>> remote_round(
    const core::CacheSettings& settings,
    util::RunOptions& compile,
    const std::string& scratch) const override {
    compile.env["SCCACHE_DIR"] = scratch + "/local";
    if (sccache_transport(settings) == SHIMCTL_SCCACHE_UNIX) {
      compile.env["SCCACHE_SERVER_UDS"] = scratch + "/server.sock";
    } else {
      TRY_ASSIGN(auto port, util::free_tcp_port());
      compile.env["SCCACHE_SERVER_PORT"] = std::to_string(port);
    }
    return std::unique_ptr<RemoteRound>(
      std::make_unique<SccacheRemoteRound>(*this, settings, compile));
  }
  bool entries_are_files() const override {
    return false;
  }
  std::size_t stop_started(const std::string& state_dir,
                           const core::CacheSettings& settings) const override {
    return stop_sccache_servers(state_dir, settings.path);
  }
  util::Result<std::unique_ptr<BuildWatch>> watch_build() const override {
    return sccache_build_watch();
  }
  bool counts_pieces() const override {
    return true;
  }

  std::string tiers(const core::CacheSettings& settings) const override {
    if (!settings.remote)
      return {};
    if (sccache_has_tiers(settings.version))
      return "local disk cache, then the store (SCCACHE_MULTILEVEL_CHAIN): a hit from the store "
             "is kept on disk";
    return fmt::format("the store only: sccache {} has no local tier in front of a store "
                       "(SCCACHE_MULTILEVEL_CHAIN came with 0.15)",
                       settings.version);
  }

  void piece_environment(util::EnvChanges& /*env*/) const override {}
  std::vector<std::string> piece_depend_args(const std::string& /*depfile*/) const override {
    return {}; // sccache has no depend mode: it preprocesses before every miss
  }
  std::string key_apart(std::string_view key, util::EnvChanges& env) const override {
    const char* buster = std::getenv("SCCACHE_C_CUSTOM_CACHE_BUSTER");
    env["SCCACHE_C_CUSTOM_CACHE_BUSTER"] = std::string(buster ? buster : "").append(key);
    return {};
  }
  std::string compiler_key() const override {
    const char* buster = std::getenv("SCCACHE_C_CUSTOM_CACHE_BUSTER");
    return buster ? buster : "";
  }
  unsigned file_umask() const override {
    return 022;
  }
  bool environment_reads_only() const override {
    const char* mode = std::getenv("SCCACHE_LOCAL_RW_MODE");
    return mode && std::string_view(mode) == "READ_ONLY"; // sccache's own test: READ_ONLY exactly
  }
  bool caches_host_half() const override {
    // sccache 0.17 caches no compile with -Xclang -fcuda-include-gpubinary ("Can't handle
    // UnknownFlag arguments with -Xclang"): a host half would compile every time.
    return false;
  }
  bool runs_a_jobserver() const override {
    return true;
  }
  bool server_start_waits_on_store() const override {
    return true;
  }
  bool cleans_by_parts() const override {
    return false;
  }
  std::string limit_in_environment() const override {
    const char* value = std::getenv("SCCACHE_CACHE_SIZE");
    return value ? value : "";
  }
  std::uint64_t cache_bytes_of(const CacheStats& stats) const override {
    return stats.get("cache_size");
  }
  util::Status evict_older_than(const core::CacheSettings& /*settings*/,
                                const std::string& /*dir*/,
                                std::int64_t /*seconds*/) const override {
    return fail("sccache evicts by its own least-recently-used order");
  }
  bool logs_entries(util::EnvChanges& /*env*/, const std::string& /*log_file*/) const override {
    return false;
  }
  LoggedEntries logged_entries(const std::string& /*log_file*/) const override {
    return {};
  }
};

} // namespace

std::string sccache_default_dir() {
  char home[PATH_MAX];
  size_t len =
    shimctl_user_cache_home(home, sizeof home, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  return len && len < sizeof home ? std::string(home, len) + "/sccache" : std::string();
}

const Tool& sccache_tool() {
  static const Sccache tool;
  return tool;
}

} // namespace shimctl::cache
