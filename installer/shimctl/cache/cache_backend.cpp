#include <cstdlib>
#include <filesystem>
#include <fmt/ranges.h>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <shimctl/cache/store_health.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

util::Result<core::CacheSettings> find_cache_tool(const std::string& kind,
                                                  const std::optional<std::string>& path) {
  if (!tool_named(kind))
    return fail(ExitCode::usage,
                "--cache: unknown cache tool '{}'; use {}",
                kind,
                fmt::join(tool_names(), " or "));
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
  tool_of(settings).add_shim_environment(settings, fingerprint, identity_files, env);
  env.pieces_helper = util::self_executable();
  if (auto probe = store_probe(settings.remote)) {
    env.store_probe = probe->probe;
    env.store_address = probe->address;
  }
  auto& d = env.defaults;
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
    if (entry.starts_with('#') || eq == std::string::npos || eq == 0)
      continue; // a comment (sccache's "# remote=URL"), as the shim skips it
    if (!std::getenv(entry.substr(0, eq).c_str()))
      out[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  // sccache: a chain with a disk level needs SCCACHE_DIR (it will not start without one): the
  // user's default, as the shim gives it (shim/sccache_run.c).
  if (!env.sccache_key.empty() && out.contains("SCCACHE_MULTILEVEL_CHAIN") &&
      !out.contains("SCCACHE_DIR") && !std::getenv("SCCACHE_DIR")) {
    if (auto dir = sccache_default_dir(); !dir.empty())
      out["SCCACHE_DIR"] = dir;
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

} // namespace shimctl::cache
