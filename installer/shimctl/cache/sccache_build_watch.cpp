// sccache's watch of one build (build_watch.hpp). Under measure the shim starts fresh sccache
// servers named after the measure log (same settings and store: hits are real hits) and records
// each call it hands to sccache with the server it used; after the build each server's
// statistics are read (Tool::read_stats) and a server of the build's own is stopped. A server
// the user chose (SCCACHE_SERVER_UDS/PORT in measure's environment) is left running: its
// statistics are read before the build and after it, the difference reported with a warning.
#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <shim/formats.h>
#include <shimctl/cache/build_watch.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <shimctl/util/process.hpp>
#include <sstream>
#include <unistd.h>

namespace shimctl::cache {

namespace {

// The environment for an sccache client talking to the server ENTRY names, and no other.
util::RunOptions server_options(const std::string& entry) {
  util::RunOptions options;
  options.env["SCCACHE_SERVER_UDS"] = std::nullopt;
  options.env["SCCACHE_SERVER_PORT"] = std::nullopt;
  auto eq = entry.find('=');
  options.env[entry.substr(0, eq)] = entry.substr(eq + 1);
  return options;
}

core::CacheSettings settings_for(const std::string& path) {
  core::CacheSettings settings;
  settings.kind = sccache_tool().name();
  settings.path = path;
  return settings;
}

util::Result<CacheStats> server_stats(const std::string& sccache, const std::string& entry) {
  return sccache_tool().read_stats(settings_for(sccache), server_options(entry));
}

// The server the user chose in measure's own environment ("SCCACHE_SERVER_UDS=..." first, as
// sccache and the shim read them), "" when none.
std::string users_server() {
  for (const char* name : { "SCCACHE_SERVER_UDS", "SCCACHE_SERVER_PORT" })
    if (const char* value = std::getenv(name); value && *value)
      return std::string(name) + "=" + value;
  return {};
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

class SccacheBuildWatch final : public BuildWatch {
public:
  SccacheBuildWatch() {
    // The user's own server's statistics before the build: empty counters when it is not
    // running (a server started later counts only from then), nullopt when unreadable.
    users_entry_ = users_server();
    if (users_entry_.empty())
      return;
    auto sccache = util::find_in_path(std::string(sccache_tool().name()));
    if (auto stats = server_stats(sccache.empty() ? std::string(sccache_tool().name()) : sccache,
                                  users_entry_))
      baseline_ = *stats;
  }

  std::optional<BuildCounts> counts(const std::string& shim_log,
                                    std::map<std::string, std::uint64_t>& /*not_sent*/,
                                    std::vector<std::string>& warnings) override {
    auto servers = sccache_servers_in_measure_log(shim_log);
    if (servers.empty())
      return std::nullopt;
    BuildCounts total;
    for (const auto& server : servers)
      total.add(counts_of(server, warnings));
    return total;
  }

private:
  BuildCounts counts_of(const SccacheServer& server, std::vector<std::string>& warnings) const {
    BuildCounts counts;
    auto stats = server_stats(server.sccache, server.entry);
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
      counts = sccache_build_counts(*stats, nullptr);
    } else if (server.entry == users_entry_ && baseline_) {
      counts = sccache_build_counts(*stats, &*baseline_);
      warnings.push_back(fmt::format(
        "sccache's counts are those of the server you chose ({}), before the build and after: "
        "other clients' compiles in that time are counted too; unset it for the build's alone",
        server.entry));
    } else {
      counts = sccache_build_counts(*stats, nullptr);
      warnings.push_back(fmt::format(
        "sccache's counts are the totals of the server at {} since it started (its statistics "
        "before the build could not be read): not the build's alone",
        server.entry));
    }
    if (server.own) { // it served this build only
      (void)util::run({ server.sccache, "--stop-server" }, server_options(server.entry));
      remove_server_files(server.entry);
    }
    return counts;
  }

  std::string users_entry_;
  std::optional<CacheStats> baseline_;
};

} // namespace

std::vector<SccacheServer> sccache_servers_in_measure_log(const std::string& text) {
  std::vector<SccacheServer> servers;
  std::istringstream in(text);
  std::string line;
  bool record = false; // the line after the shim's sccache header is its record
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_SCCACHE) {
      record = true;
      continue;
    }
    if (!std::exchange(record, false))
      continue;
    // SCOPE SCCACHE ENTRY: the binary has no space (a config field); ENTRY is the rest.
    auto first = line.find(' ');
    auto second = first == std::string::npos ? first : line.find(' ', first + 1);
    if (second == std::string::npos)
      continue;
    std::string scope = line.substr(0, first);
    std::string sccache = line.substr(first + 1, second - first - 1);
    std::string entry = line.substr(second + 1);
    if ((!entry.starts_with("SCCACHE_SERVER_UDS=") && !entry.starts_with("SCCACHE_SERVER_PORT=")) ||
        (scope != SHIMCTL_MEASURE_OWN_SERVER && scope != SHIMCTL_MEASURE_SHARED_SERVER))
      continue;
    auto it = std::ranges::find_if(
      servers, [&](const SccacheServer& s) { return s.sccache == sccache && s.entry == entry; });
    if (it == servers.end())
      it =
        servers.insert(servers.end(), { sccache, entry, scope == SHIMCTL_MEASURE_OWN_SERVER, 0 });
    ++it->calls;
  }
  return servers;
}

BuildCounts sccache_build_counts(const CacheStats& after, const CacheStats* before) {
  auto get = [&](const std::string& name) {
    std::uint64_t now = after.get(name), then = before ? before->get(name) : 0;
    return now > then ? now - then : 0;
  };
  BuildCounts counts;
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

util::Result<std::unique_ptr<BuildWatch>> sccache_build_watch() {
  return std::unique_ptr<BuildWatch>(std::make_unique<SccacheBuildWatch>());
}

} // namespace shimctl::cache
