#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/core/test_hooks.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

namespace {

std::string join(const std::vector<std::string>& items, char separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty())
      out += separator;
    out += item;
  }
  return out;
}

} // namespace

util::Result<core::CacheSettings> find_cache_tool(const std::string& kind,
                                                  const std::optional<std::string>& path) {
  if (kind != "ccache" && kind != "sccache")
    return fail(ExitCode::usage, "--cache: unknown cache tool '{}'; use ccache or sccache", kind);
  std::string found = path ? *path : util::find_in_path(kind);
  if (found.empty())
    return fail(ExitCode::usage,
                "{} not found in PATH; install it (apt-get install {}) or pass --cache-tool PATH",
                kind,
                kind);
  TRY_ASSIGN(auto absolute, util::real_path(found));
  auto version = util::run({ absolute, "--version" });
  if (!version || !version->ok())
    return fail(ExitCode::usage,
                "{} does not run ({}); reinstall it",
                absolute,
                version ? util::first_line(version->err) : version.error().message);
  core::CacheSettings settings;
  settings.kind = kind;
  settings.path = absolute;
  // "ccache version 4.7.5" / "sccache 0.4.0-pre.6"
  auto line = util::first_line(version->out);
  settings.version = line.substr(line.rfind(' ') + 1);
  return settings;
}

ShimEnvironment shim_environment(const core::CacheSettings& settings,
                                 const std::string& fingerprint,
                                 const std::vector<std::string>& identity_files) {
  ShimEnvironment env;
  auto& d = env.defaults;
  if (settings.kind == "ccache") {
    // A shared cache (--shared-cache DIR --group G) is ccache's file storage,
    // not its cache_dir: ccache treats a storage it cannot write as a miss and
    // compiles, where an unwritable cache_dir would fail every non-member's
    // build. Each user keeps only statistics in their own cache_dir.
    if (settings.dir && !settings.shared_group)
      d.push_back("CCACHE_DIR=" + *settings.dir);
    if (settings.max_size)
      d.push_back("CCACHE_MAXSIZE=" + *settings.max_size);
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
  } else {
    if (settings.dir)
      d.push_back("SCCACHE_DIR=" + *settings.dir);
    if (settings.max_size)
      d.push_back("SCCACHE_CACHE_SIZE=" + *settings.max_size);
    if (settings.remote && !settings.remote_secret && settings.remote->starts_with("redis://"))
      d.push_back("SCCACHE_REDIS=" + *settings.remote);
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
      env.appends.push_back("SCCACHE_EXTRAFILES=" + join(identity_files, ':'));
  }
  // An empty SCCACHE_* (or CCACHE_*) value is not "unset": sccache fails
  // every compile on an empty SCCACHE_REDIS or SCCACHE_EXTRAFILES.
  std::erase_if(d, [](const std::string& e) { return e.back() == '='; });
  std::erase_if(env.appends, [](const std::string& e) { return e.back() == '='; });
  return env;
}

namespace {

// The user set CCACHE_NO<X> for a CCACHE_<X> default (or the reverse): the shim's rule, formats.h.
bool negated_form_set(const std::string& name) {
  char other[256];
  auto len = shimctl_negated_env_name(other, sizeof other, name.c_str());
  return len && std::getenv(std::string(other, len - 1).c_str());
}

} // namespace

std::map<std::string, std::optional<std::string>> tool_environment(const ShimEnvironment& env) {
  std::map<std::string, std::optional<std::string>> out;
  for (const auto& entry : env.defaults) {
    auto eq = entry.find('=');
    auto name = entry.substr(0, eq);
    if (!std::getenv(name.c_str()) && !negated_form_set(name))
      out[name] = entry.substr(eq + 1);
  }
  // The secrets file's lines win over the defaults, as in the shim; the caller's own win over both.
  for (const auto& entry : env.secrets) {
    auto eq = entry.find('=');
    if (!std::getenv(entry.substr(0, eq).c_str()))
      out[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  // sccache: the calling user's own server, where the shim would find it.
  if (!env.sccache_key.empty() && !std::getenv("SCCACHE_SERVER_UDS") &&
      !std::getenv("SCCACHE_SERVER_PORT")) {
    auto server = own_sccache_server(env.sccache_transport, env.sccache_key);
    if (auto eq = server.find('='); eq != std::string::npos)
      out[server.substr(0, eq)] = server.substr(eq + 1);
  }
  // ccache >= 4.13 would read a ccache.conf in this directory or a parent: shimctl's own
  // ccache calls read none, as the shim's do (shim/main.c, pin_directory_config).
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec).string();
  if (!ec && cwd.starts_with("/") && cwd.find(':') == std::string::npos) {
    const char* ceilings = std::getenv("CCACHE_CEILING_DIRS");
    out["CCACHE_CEILING_DIRS"] = ceilings && *ceilings ? std::string(ceilings) + ":" + cwd : cwd;
  }
  return out;
}

std::uint64_t CacheStats::get(const std::string& name) const {
  auto it = counters.find(name);
  return it == counters.end() ? 0 : it->second;
}

std::uint64_t CacheStats::hits() const {
  return get("direct_cache_hit") + get("preprocessed_cache_hit") + get("cache_hits");
}

std::uint64_t CacheStats::misses() const {
  return get("cache_miss") + get("cache_misses");
}

util::Result<CacheStats> read_stats(const core::CacheSettings& settings,
                                    const util::RunOptions& options) {
  CacheStats stats;
  if (settings.kind == "ccache") {
    TRY_ASSIGN(auto r, util::run({ settings.path, "--print-stats" }, options));
    if (!r.ok())
      return fail("{} --print-stats failed: {}", settings.path, util::first_line(r.err));
    std::istringstream in(r.out);
    std::string name;
    std::uint64_t value = 0;
    while (in >> name >> value)
      stats.counters[name] = value;
    return stats;
  }
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
                  value_of("SCCACHE_SERVER_PORT").value_or("4226"));
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
  stats.counters["cache_hits"] =
    sum(s.value("cache_hits", nlohmann::json::object()).value("counts", nlohmann::json::object()));
  stats.counters["cache_misses"] = sum(
    s.value("cache_misses", nlohmann::json::object()).value("counts", nlohmann::json::object()));
  stats.counters["compile_requests"] = s.value("compile_requests", 0ULL);
  stats.counters["requests_not_cacheable"] = s.value("requests_not_cacheable", 0ULL);
  // sccache 0.4: why calls were not cached ({"-x": 2, "unknown source language": 1}).
  for (auto name :
       { "requests_unsupported_compiler", "non_cacheable_compilations", "compile_fails" })
    stats.counters[name] = s.value(name, 0ULL);
  if (auto reasons = s.find("not_cached"); reasons != s.end() && reasons->is_object())
    for (const auto& [reason, count] : reasons->items())
      if (count.is_number_unsigned())
        stats.counters["not_cached:" + reason] = count.get<std::uint64_t>();
  return stats;
}

std::string cache_location(const core::CacheSettings& settings, const util::RunOptions& options) {
  if (settings.kind == "ccache") {
    auto r = util::run({ settings.path, "--get-config", "cache_dir" }, options);
    if (r && r->ok())
      return util::first_line(r->out);
    return "?";
  }
  auto it = options.env.find("SCCACHE_DIR");
  if (it != options.env.end() && it->second)
    return *it->second;
  const char* dir = std::getenv("SCCACHE_DIR");
  const char* home = std::getenv("HOME");
  return dir ? dir : fmt::format("{}/.cache/sccache", home ? home : "~");
}

} // namespace shimctl::cache
