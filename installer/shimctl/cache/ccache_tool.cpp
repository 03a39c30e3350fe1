#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <shimctl/cache/cache_budget.hpp>
#include <shimctl/cache/ccache_tool.hpp>
#include <shimctl/cache/max_size.hpp>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/core/test_hooks.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>
#include <strings.h>

namespace shimctl::cache {

using util::fail;

namespace {

constexpr std::string_view read_only_attribute = "|read-only";

std::string shared_storage(const core::CacheSettings& settings) {
  return settings.shared_group && settings.dir ? "file:" + *settings.dir + "|umask=002" : "";
}

// The repeat compile's debug log (CCACHE_LOGFILE) tells whether it hit.
class CcacheLogWitness final : public HitWitness {
public:
  explicit CcacheLogWitness(std::string log)
    : log_(std::move(log)) {}
  void watch(util::RunOptions& compile) override {
    compile.env["CCACHE_LOGFILE"] = log_;
  }
  HitVerdict verdict() override {
    auto outcome = ccache_log_outcome(util::read_text_file(log_));
    return { outcome.hit ? HitVerdict::Kind::hit : HitVerdict::Kind::miss,
             "ccache's log",
             outcome.why };
  }

private:
  std::string log_;
};

// ccache's counters in the round's own cache directory.
class CcacheRemoteRound final : public RemoteRound {
public:
  CcacheRemoteRound(const Tool& tool, core::CacheSettings settings, util::RunOptions options)
    : tool_(tool)
    , settings_(std::move(settings))
    , options_(std::move(options)) {
    options_.cwd.clear();
  }
  RemoteOutcome outcome() override {
    auto stats = tool_.read_stats(settings_, options_);
    if (!stats)
      return { .refused = stats.error().message };
    return { .hits = stats->get("remote_storage_read_hit"),
             .read_errors =
               stats->get("remote_storage_error") + stats->get("remote_storage_timeout"),
             .write_errors = 0, // ccache counts a refused write as remote_storage_error too
             .refused = {} };
  }

private:
  const Tool& tool_;
  core::CacheSettings settings_;
  util::RunOptions options_;
};

class Ccache final : public Tool {
public:
  std::string_view name() const override {
    return "ccache";
  }

  void add_shim_environment(const core::CacheSettings& settings,
                            const std::string& /*fingerprint*/,
                            const std::vector<std::string>& /*identity_files*/,
                            ShimEnvironment& env) const override {
    auto& d = env.defaults;
    // A shared cache (--shared-cache DIR --group G) is ccache's file storage,
    // not its cache_dir: ccache treats a storage it cannot write as a miss and
    // compiles, where an unwritable cache_dir would fail every non-member's
    // build. Each user keeps only statistics in their own cache_dir.
    if (settings.dir && !settings.shared_group)
      d.push_back("CCACHE_DIR=" + *settings.dir);
    // With a limit, shimctl keeps it over the whole cache: ccache's own cleanup, which goes by
    // its 16 parts, gets a multiple of it (cache_budget.hpp).
    if (auto budget =
          settings.max_size ? budget_of(*settings.max_size, settings.path) : std::nullopt) {
      d.push_back("CCACHE_MAXSIZE=" + budget->tool_limit);
      d.push_back(std::string(budget_variable) + "=" + budget_value(*budget));
    } else if (settings.max_size) {
      d.push_back("CCACHE_MAXSIZE=" + *settings.max_size);
    }
    d.push_back("CCACHE_DEPEND=1");
    d.push_back("CCACHE_SLOPPINESS=locale,time_macros,include_file_ctime,include_file_mtime");
    // Identity: the shim sets CCACHE_COMPILERCHECK=string:shimctl-<fingerprint>
    // from the identity snapshot, whose stat guard notices any change to an
    // input and has this shimctl re-hash it (identity/identity_snapshot.hpp).
    if (!core::test_hooks::shim_identity_off())
      env.identity_helper = util::self_executable();
    for (auto& entry : core::test_hooks::shim_extra_environment())
      d.push_back(entry);
    d.push_back("CCACHE_INODECACHE=1");
    // A remote with a credential is in the secrets file only (secrets.hpp): here,
    // what a user who cannot read that file uses, the shared cache if any.
    if (auto storage =
          ccache_remote_storage(settings, settings.remote_secret ? std::nullopt : settings.remote))
      d.push_back("CCACHE_REMOTE_STORAGE=" + *storage);
    if (settings.shared_group) {
      d.push_back("CCACHE_UMASK=002");
      d.push_back("CCACHE_REMOTE_ONLY=1");
    }
  }

  std::vector<std::string> secret_environment(const core::CacheSettings& settings,
                                              const std::string& remote_url) const override {
    return { "CCACHE_REMOTE_STORAGE=" + *ccache_remote_storage(settings, remote_url) };
  }

  std::optional<std::string> remote_url_of(const core::CacheSettings& settings,
                                           const std::vector<std::string>& lines) const override {
    auto value = secret_value(lines, "CCACHE_REMOTE_STORAGE");
    if (!value)
      return std::nullopt;
    std::string url;
    auto shared = shared_storage(settings);
    for (auto storage : util::words_of(*value)) {
      if (storage == shared)
        continue;
      if (settings.remote_read_only && storage.ends_with(read_only_attribute))
        storage.remove_suffix(read_only_attribute.size());
      url += url.empty() ? "" : " ";
      url += storage;
    }
    return url.empty() ? std::nullopt : std::optional(url);
  }

  util::Status check_remote(const core::CacheSettings& /*settings*/) const override {
    return {};
  }

  util::Status check_remote_url(const core::CacheSettings& settings,
                                std::string_view url) const override {
    return check_ccache_remote_url(url, settings);
  }

  util::Status check_max_size(std::string_view value) const override {
    return check_ccache_max_size(value);
  }
  // shimctl keeps an install's limit over the whole cache (cache_budget.hpp), checked after each
  // miss: a build holds when the limit has room for it and one compile's entries besides.
  std::uint64_t limit_holding(std::uint64_t bytes, std::uint64_t files) const override {
    return bytes + bytes / std::max<std::uint64_t>(files, 1) * 2 + bytes / 20;
  }

  util::Result<CacheStats> read_stats(const core::CacheSettings& settings,
                                      const util::RunOptions& options) const override {
    CacheStats stats;
    TRY_ASSIGN(auto r, util::run({ settings.path, "--print-stats" }, options));
    if (!r.ok())
      return fail("{} --print-stats failed: {}", settings.path, util::first_line(r.err));
    std::istringstream in(r.out);
    std::string name;
    std::uint64_t value = 0;
    while (in >> name >> value)
      stats.counters[name] = value;
    stats.hit_count = stats.get("direct_cache_hit") + stats.get("preprocessed_cache_hit");
    stats.miss_count = stats.get("cache_miss");
    return stats;
  }

  std::string cache_location(const core::CacheSettings& settings,
                             const util::RunOptions& options) const override {
    auto it = options.env.find("CCACHE_DIR"); // ccache's own first rule: no run needed
    if (it != options.env.end() && it->second && !it->second->empty())
      return *it->second;
    if (const char* dir = std::getenv("CCACHE_DIR"); dir && *dir && it == options.env.end())
      return dir;
    auto r = util::run({ settings.path, "--get-config", "cache_dir" }, options);
    if (r && r->ok())
      return util::first_line(r->out);
    return "?";
  }

  void leave_statistics_alone(util::RunOptions& options) const override {
    // Evidence per invocation comes from ccache's debug log: ccache >= 4.10 writes no stats
    // log when stats are off.
    options.env["CCACHE_NOSTATS"] = "1";
  }

  std::unique_ptr<HitWitness> hit_witness(const core::CacheSettings& /*settings*/,
                                          const util::RunOptions& /*options*/,
                                          const std::string& scratch) const override {
    return std::make_unique<CcacheLogWitness>(scratch + "/ccache.log");
  }

  bool archives() const override {
    return true;
  }
  bool group_shared_cache() const override {
    return true;
  }
  util::Result<std::unique_ptr<RemoteRound>> remote_round(
    const core::CacheSettings& settings,
    util::RunOptions& compile,
    const std::string& scratch) const override {
    compile.env["CCACHE_DIR"] = scratch;
    return std::unique_ptr<RemoteRound>(
      std::make_unique<CcacheRemoteRound>(*this, settings, compile));
  }
  bool entries_are_files() const override {
    return true;
  }
  std::size_t stop_started(const std::string& /*state_dir*/,
                           const core::CacheSettings& /*settings*/) const override {
    return 0; // ccache runs in the compile's own process: nothing outlives it
  }
  util::Result<std::unique_ptr<BuildWatch>> watch_build() const override {
    return ccache_build_watch();
  }
  bool counts_pieces() const override {
    return false;
  }

  std::string tiers(const core::CacheSettings& settings) const override {
    if (!settings.remote)
      return {};
    return "local cache, then the store: a hit from the store is kept locally";
  }

  void piece_environment(util::EnvChanges& env) const override {
    env["CCACHE_DISABLE"] = std::nullopt;  // ccache's, for the compiler it runs (the shim)
    env["CCACHE_STATSLOG"] = std::nullopt; // measure's: pieces are recorded apart
  }
  std::vector<std::string> piece_depend_args(const std::string& depfile) const override {
    // In depend mode (every install's CCACHE_DEPEND=1, unless the user's setting wins) ccache
    // reads the headers from the depfile instead of preprocessing before a miss.
    return { "-MD", "-MF", depfile };
  }
  std::string key_apart(std::string_view key, util::EnvChanges& env) const override {
    const char* check = std::getenv("CCACHE_COMPILERCHECK");
    if (!check || !std::string_view(check).starts_with("string:"))
      return "ccache's compiler check is not shimctl's string";
    env["CCACHE_COMPILERCHECK"] = std::string(check).append(key);
    return {};
  }
  std::string compiler_key() const override {
    const char* check = std::getenv("CCACHE_COMPILERCHECK");
    return check ? check : "";
  }
  unsigned file_umask() const override {
    const char* umask = std::getenv("CCACHE_UMASK");
    return umask && *umask ? static_cast<unsigned>(std::strtoul(umask, nullptr, 8) & 0777) : 022;
  }
  bool environment_reads_only() const override {
    const char* value = std::getenv("CCACHE_READONLY");
    if (!value)
      return false;
    constexpr std::array<const char*, 4> false_values = { "0", "false", "disable", "no" };
    return std::ranges::none_of(false_values,
                                [value](const char* no) { return ::strcasecmp(value, no) == 0; });
  }
  bool caches_host_half() const override {
    return true;
  }
  bool runs_a_jobserver() const override {
    return false;
  }
  bool server_start_waits_on_store() const override {
    return false;
  }
  bool cleans_by_parts() const override {
    return true;
  }
  std::string limit_in_environment() const override {
    const char* value = std::getenv("CCACHE_MAXSIZE");
    return value ? value : "";
  }
  std::uint64_t cache_bytes_of(const CacheStats& stats) const override {
    return stats.get("cache_size_kibibyte") * 1024;
  }
  util::Status evict_older_than(const core::CacheSettings& settings,
                                const std::string& dir,
                                std::int64_t seconds) const override {
    util::RunOptions options;
    options.env["CCACHE_DIR"] = dir;
    TRY_ASSIGN(
      auto r,
      util::run({ settings.path, "--evict-older-than", fmt::format("{}s", seconds) }, options));
    if (!r.ok())
      return fail("{} --evict-older-than failed: {}", settings.path, util::first_line(r.err));
    return {};
  }
  bool logs_entries(util::EnvChanges& env, const std::string& log_file) const override {
    env["CCACHE_LOGFILE"] = log_file;
    return true;
  }
  LoggedEntries logged_entries(const std::string& log_file) const override {
    auto log = util::read_text_file(log_file);
    if (const char* own = std::getenv("CCACHE_LOGFILE"); own && *own && !log.empty())
      if (FILE* file = std::fopen(own, "a")) {
        std::fwrite(log.data(), 1, log.size(), file);
        std::fclose(file);
      }
    return ccache_logged_entries(log);
  }
};

} // namespace

const Tool& ccache_tool() {
  static const Ccache tool;
  return tool;
}

std::optional<std::string> ccache_remote_storage(const core::CacheSettings& settings,
                                                 const std::optional<std::string>& remote) {
  std::string out = shared_storage(settings);
  if (remote)
    for (auto storage : util::words_of(*remote)) {
      out += out.empty() ? "" : " ";
      const auto* kind = store_kind_of(store::scheme_of(storage));
      out += kind ? kind->ccache_form(storage, settings.version) : std::string(storage);
      if (settings.remote_read_only && !names_read_only(storage))
        out += read_only_attribute;
    }
  return out.empty() ? std::nullopt : std::optional(out);
}

CcacheLogOutcome ccache_log_outcome(const std::string& log) {
  // Every ccache 4.x logs this line when it hands out a stored result (direct, preprocessed or
  // remote); "Result: X" lines follow only where statistics are on (4.7), so they name a miss.
  if (log.find("Succeeded getting cached result") != std::string::npos)
    return { true, "" };
  if (log.empty())
    return { false, "ccache wrote no log (was ccache run at all?)" };
  std::vector<std::string> reasons;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    auto text = line.substr(line.find("] ") == std::string::npos ? 0 : line.find("] ") + 2);
    bool telling = text.starts_with("Result: ") || text.starts_with("Disabling ") ||
                   text.starts_with("Failed ") || text.find("not cacheable") != std::string::npos ||
                   text.find("unsupported") != std::string::npos ||
                   text.find("Unsupported") != std::string::npos;
    if (telling && std::find(reasons.begin(), reasons.end(), text) == reasons.end())
      reasons.push_back(text);
  }
  if (reasons.empty())
    return { false, "ccache's log shows no stored result was used (a miss)" };
  std::string why;
  for (const auto& r : reasons)
    why += (why.empty() ? "" : "; ") + r;
  return { false, why.size() > 300 ? why.substr(0, 300) + "..." : why };
}

namespace {

// The files of the "<VERB> KEY <WHERE> local storage (PATH)" lines of ccache's LOG.
std::vector<std::string> ccache_files_logged(std::string_view log,
                                             std::string_view verb,
                                             std::string_view local) {
  std::vector<std::string> files;
  for (auto at = log.find(verb); at != std::string_view::npos; at = log.find(verb, at + 1)) {
    auto line = log.substr(at, log.find('\n', at) - at);
    auto open = line.find(local);
    if (open == std::string_view::npos || !line.ends_with(')'))
      continue;
    std::filesystem::path path(
      line.substr(open + local.size(), line.size() - open - local.size() - 1));
    if (!path.is_absolute() || std::ranges::find(files, path.string()) != files.end())
      continue;
    files.push_back(path.string());
    std::string stem = path.filename().string();
    if (stem.ends_with('R'))
      stem.pop_back();
    else if (stem.ends_with('M'))
      continue; // 4.7's manifest: no raw files
    std::error_code error;
    for (std::filesystem::directory_iterator it(path.parent_path(), error), end;
         !error && it != end;
         it.increment(error)) {
      std::string name = it->path().filename().string();
      if (name.size() > stem.size() + 1 && name.starts_with(stem) && name.ends_with('W') &&
          std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size()),
                      name.end() - 1,
                      [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
        files.push_back(it->path().string());
    }
  }
  return files;
}

} // namespace

LoggedEntries ccache_logged_entries(std::string_view log) {
  return { ccache_files_logged(log, "] Retrieved ", " from local storage ("),
           ccache_files_logged(log, "] Stored ", " in local storage (") };
}

} // namespace shimctl::cache
