#include <algorithm>
#include <fmt/ranges.h> // fmt::join (fmt >= 10)
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/cli/render.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/util/counter_file.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cli {

std::string verify_table(const verify::VerifyReport& report) {
  std::size_t subject_width = 7, name_width = 5;
  for (const auto& c : report.checks) {
    subject_width = std::max(subject_width, c.subject.size());
    name_width = std::max(name_width, c.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<10}  {}\n",
                                "subject",
                                subject_width,
                                "check",
                                name_width,
                                "result",
                                "detail");
  // A detail may quote a tool's words, which may quote a remote's URL.
  for (const auto& c : report.checks)
    out += fmt::format("{:<{}}  {:<{}}  {:<10}  {}\n",
                       c.subject,
                       subject_width,
                       c.name,
                       name_width,
                       verify::to_string(c.outcome),
                       util::redact_credentials(c.detail));
  out += report.ok() ? "verify: all checks passed\n" : "verify: FAILED\n";
  return out;
}

nlohmann::json verify_json(const verify::VerifyReport& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : report.checks)
    checks.push_back({ { "subject", c.subject },
                       { "check", c.name },
                       { "result", verify::to_string(c.outcome) },
                       { "detail", util::redact_credentials(c.detail) } });
  return { { "ok", report.ok() }, { "checks", checks } };
}

namespace {

// The tool's hits and misses less the pieces' and host halves' (each a compile the tool counts
// too): those of whole objects. Not below 0: the tool's counters may have been zeroed since.
std::pair<std::uint64_t, std::uint64_t> whole_object_counts(const cache::CacheStats& stats,
                                                            const pieces::PieceCounts& counts) {
  auto less = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; };
  return { less(stats.hits(), pieces::tool_hits_of(counts)),
           less(stats.misses(), pieces::tool_misses_of(counts)) };
}

// The identity snapshot as the shim sees it, in one line.
std::string snapshot_text(const commands::StatusReport& r) {
  const auto& s = r.snapshot;
  const auto& m = *r.manifest;
  if (!s.present)
    return fmt::format("no snapshot: each compile re-hashes the toolchain until 'shimctl refresh "
                       "{}' (or a compile by a user who may write {}/.shimctl) writes it",
                       r.prefix,
                       r.prefix);
  if (!s.stale_inputs.empty())
    return fmt::format("snapshot stale ({} of its inputs changed, e.g. {}): the next compile "
                       "re-hashes; run 'shimctl refresh {}'",
                       s.stale_inputs.size(),
                       s.stale_inputs.front(),
                       r.prefix);
  if (s.fingerprint != m.fingerprint.sha256)
    return fmt::format("snapshot current: compiles keyed by {} (the toolchain as it is now, not as "
                       "installed)",
                       s.fingerprint.substr(0, 16));
  return fmt::format("snapshot current: compiles keyed by {} without re-hashing",
                     s.fingerprint.substr(0, 16));
}

// "ccache 4.14.2 (12 entries), ccache 4.7.5 (3 entries)": who wrote the cache's entries.
std::string writers_text(const commands::CacheWriters& w) {
  if (w.entries == 0)
    return "no entries yet";
  std::string out;
  for (const auto& [version, count] : w.versions)
    out += fmt::format("{}ccache {} ({} entries)", out.empty() ? "" : ", ", version, count);
  if (w.unknown)
    out += fmt::format("{}{} without a ccache header", out.empty() ? "" : ", ", w.unknown);
  if (w.read < w.entries)
    out += fmt::format(" (a sample of {} of {} entries)", w.read, w.entries);
  return out;
}

// The team store's health for this user: "store:" and, once one was seen, "last failure:".
std::string store_text(const commands::StatusReport& r) {
  if (!r.store)
    return "";
  if (!r.store_health)
    return fmt::format("store:       {} {}: not asked yet by this user's compiles\n",
                       r.store->probe,
                       r.store->address);
  std::string out = fmt::format("store:       {} {}: {}\n",
                                r.store->probe,
                                r.store->address,
                                cache::store_state_words(*r.store_health, r.now));
  if (auto failure = cache::store_failure_words(*r.store_health, r.now); !failure.empty())
    out += fmt::format("last failure: {}\n", failure);
  return out;
}

nlohmann::json store_json(const commands::StatusReport& r) {
  if (!r.store)
    return nullptr;
  nlohmann::json j{ { "probe", r.store->probe }, { "address", r.store->address } };
  const auto* h = r.store_health ? &*r.store_health : nullptr;
  j["state"] = !h ? "unknown" : h->out && r.now < h->until ? "out" : h->out ? "due" : "healthy";
  j["checked"] = h ? nlohmann::json(h->checked) : nlohmann::json(nullptr);
  j["out_until"] = h && h->out ? nlohmann::json(h->until) : nlohmann::json(nullptr);
  j["cooldown_seconds"] = h && h->out ? nlohmann::json(h->cooldown) : nlohmann::json(nullptr);
  j["last_failure"] =
    h && h->failed
      ? nlohmann::json{ { "at", h->failed }, { "what", util::redact_credentials(h->failure) } }
      : nlohmann::json(nullptr);
  return j;
}

// What the cache's bytes are: "whole objects", or with stored pieces "whole objects 4.1 MB,
// GPU-target pieces 8.2 MB" where the tool names its files (else "... and GPU-target pieces").
std::string cache_bytes_kinds(const commands::StatusReport& r) {
  // Stored pieces only with -fgpu-rdc or SHIMCTL_PIECES_STORE=1: else the entries are whole
  // objects.
  bool stored_pieces =
    pieces::count_of(r.pieces, pieces::piece_hit) + pieces::count_of(r.pieces, pieces::piece_miss) >
    0;
  if (!stored_pieces)
    return "whole objects";
  if (!r.piece_bytes)
    return "whole objects and GPU-target pieces";
  return fmt::format("whole objects {}, GPU-target pieces {}",
                     util::size_text(r.cache_bytes - r.piece_bytes->bytes),
                     util::size_text(r.piece_bytes->bytes));
}

} // namespace

// "budget:      12.3 MB of 5.0 GB (whole objects 4.1 MB, GPU-target pieces 8.2 MB); device
// links ..."
std::string budget_text(const commands::StatusReport& r) {
  if (r.cache_location.empty() || !r.cache_location.starts_with("/"))
    return {};
  std::string out = fmt::format("budget:      {} of {}{} ({})",
                                util::size_text(r.cache_bytes),
                                util::size_text(r.cache_max),
                                r.max_is_default ? ", the tool's default" : "",
                                cache_bytes_kinds(r));
  if (const auto& links = r.device_links; r.links_apply && !links.dir.empty())
    out += fmt::format("; device links {} of {}, a cap of their own",
                       util::size_text(links.bytes),
                       util::size_text(links.max_bytes));
  return out + "\n";
}

std::string status_text(const commands::StatusReport& r) {
  if (!r.installed)
    return fmt::format("{}: not installed (no shimctl manifest)\n", r.prefix);
  const auto& m = *r.manifest;
  std::string out = fmt::format("prefix:      {}\n", r.prefix);
  out += fmt::format(
    "installed:   {} by shimctl {} (layout {})\n", m.created, m.shimctl_version, m.layout);
  out += fmt::format("cache tool:  {} {} ({})\n", m.cache.kind, m.cache.version, m.cache.path);
  out += fmt::format("cache dir:   {}\n", r.cache_location);
  if (m.cache.remote)
    out += fmt::format("remote:      {}{}{}\n",
                       util::redact_credentials(*m.cache.remote),
                       m.cache.remote_read_only ? " (read-only)" : "",
                       r.secrets ? " (" + cache::credential_text(*r.secrets, m.cache) + ")" : "");
  if (auto tiers = cache::tool_of(m.cache).tiers(m.cache); !tiers.empty())
    out += fmt::format("tiers:       {}\n", tiers);
  out += store_text(r);
  if (r.stats && r.pieces.empty())
    out += fmt::format("statistics:  {} hits, {} misses\n", r.stats->hits(), r.stats->misses());
  if (r.stats && !r.pieces.empty()) {
    auto whole = whole_object_counts(*r.stats, r.pieces);
    out +=
      fmt::format("statistics:  {} hits, {} misses (whole objects)\n", whole.first, whole.second);
    out += fmt::format("pieces:      {} hits, {} compiled (one per GPU target); {} objects "
                       "built from pieces\n",
                       pieces::count_of(r.pieces, pieces::piece_hit),
                       pieces::count_of(r.pieces, pieces::piece_miss),
                       pieces::count_of(r.pieces, pieces::split_compile));
  }
  if (auto derived = pieces::count_of(r.pieces, pieces::derived); derived) {
    auto hit = pieces::count_of(r.pieces, pieces::lookup_hit);
    out += fmt::format("derived:     {} objects from an earlier target set's ({} targets compiled; "
                       "{} of {} lookups hit)\n",
                       derived,
                       pieces::count_of(r.pieces, pieces::target_compiled),
                       hit,
                       hit + pieces::count_of(r.pieces, pieces::lookup_miss));
  }
  out += budget_text(r);
  if (const auto& links = r.device_links;
      !r.links_apply && (!links.counts.empty() || links.entries))
    out += fmt::format("device links: none here (HIP -fgpu-rdc links; the store {} is your HIP "
                       "prefixes')\n",
                       links.dir);
  else if (!links.counts.empty() || links.entries)
    out += fmt::format("device links: {} hits, {} linked, {} uncached (one per GPU target); store "
                       "{}{}{}: {} entries, {} of {}{}\n",
                       util::count_in(links.counts, links::link_hit),
                       util::count_in(links.counts, links::link_miss),
                       util::count_in(links.counts, links::link_uncached),
                       links.dir,
                       links.shared ? " (shared cache's group)" : "",
                       links.read_only ? " (read-only)" : "",
                       links.entries,
                       util::size_text(links.bytes),
                       util::size_text(links.max_bytes),
                       links.shared ? "" : "; yours: every HIP prefix you build with shares it");
  if (r.writers)
    out += "written by:  " + writers_text(*r.writers) + "\n";
  out += fmt::format(
    "fingerprint: {} ({} inputs){}\n",
    m.fingerprint.sha256.substr(0, 16),
    m.fingerprint.inputs.size(),
    r.changed.empty() ? "" : fmt::format(", {} changed since install", r.changed.size()));
  out += "identity:    " + snapshot_text(r) + "\n";
  out += "compilers:\n";
  for (const auto& c : r.compilers)
    out += fmt::format("  {:<40} {} ({} aliases)\n", c.path, c.state, c.aliases);
  if (!m.cache.base_dirs.empty()) {
    std::vector<std::string> dirs;
    for (std::size_t i = 0; i < m.cache.base_dirs.size(); ++i)
      dirs.push_back(fmt::format("{} (b{})", m.cache.base_dirs[i], i));
    out += fmt::format("base dirs:   {}\n", fmt::join(dirs, ", "));
  }
  if (r.roots)
    out += fmt::format("roots:       build {}{}{}{} (your last compile with paths made relative)\n",
                       r.roots->build,
                       r.roots->source.empty() ? "" : ", source " + r.roots->source,
                       r.roots->packages.empty() ? "" : ", packages " + r.roots->packages,
                       r.roots->base_dirs.empty()
                         ? ""
                         : fmt::format(", base dirs {}", fmt::join(r.roots->base_dirs, " ")));
  if (!r.events.empty())
    out += "events:      " + r.events + "\n";
  return out;
}

nlohmann::json status_json(const commands::StatusReport& r) {
  nlohmann::json j{ { "prefix", r.prefix }, { "installed", r.installed } };
  if (!r.installed)
    return j;
  const auto& m = *r.manifest;
  nlohmann::json compilers = nlohmann::json::array();
  for (const auto& c : r.compilers)
    compilers.push_back({ { "path", c.path }, { "state", c.state }, { "aliases", c.aliases } });
  j["compilers"] = compilers;
  j["cache"] = { { "kind", m.cache.kind },
                 { "path", m.cache.path },
                 { "version", m.cache.version },
                 { "location", r.cache_location },
                 { "environment",
                   { { "defaults", r.environment.defaults },
                     { "appends", r.environment.appends } } } };
  j["cache"]["remote"] = m.cache.remote ? nlohmann::json(util::redact_credentials(*m.cache.remote))
                                        : nlohmann::json(nullptr);
  j["cache"]["remote_read_only"] = m.cache.remote_read_only;
  j["cache"]["base_dirs"] = m.cache.base_dirs; // --base-dir: views b0, b1, ... in this order
  j["cache"]["tiers"] = m.cache.remote ? nlohmann::json(cache::tool_of(m.cache).tiers(m.cache))
                                       : nlohmann::json(nullptr);
  j["cache"]["store"] = store_json(r);
  if (!r.environment.sccache_key.empty()) // this user's own server (sccache_server.hpp)
    j["cache"]["server"] = { { "transport", r.environment.sccache_transport },
                             { "key", r.environment.sccache_key },
                             { "environment",
                               cache::own_sccache_server(r.environment.sccache_transport,
                                                         r.environment.sccache_key) } };
  if (r.secrets)
    j["cache"]["remote_credential"] = { { "path", r.secrets->path },
                                        { "readable",
                                          r.secrets->state == cache::SecretsFile::State::read },
                                        { "detail", cache::credential_text(*r.secrets, m.cache) } };
  if (r.stats) {
    auto whole = whole_object_counts(*r.stats, r.pieces);
    j["cache"]["stats"] = { { "hits", whole.first }, { "misses", whole.second } };
  }
  if (!r.pieces.empty())
    j["cache"]["pieces"] = r.pieces;
  if (const auto& links = r.device_links; !links.dir.empty())
    j["device_links"] = { { "store", links.dir },           { "counts", links.counts },
                          { "entries", links.entries },     { "bytes", links.bytes },
                          { "max_bytes", links.max_bytes }, { "shared", links.shared },
                          { "read_only", links.read_only }, { "this_prefix", r.links_apply } };
  j["cache"]["budget"] = { { "bytes", r.cache_bytes },
                           { "max_bytes", r.cache_max },
                           { "max_is_default", r.max_is_default } };
  if (r.piece_bytes)
    j["cache"]["budget"]["pieces_bytes"] = r.piece_bytes->bytes;
  if (r.writers)
    j["cache"]["writers"] = { { "versions", r.writers->versions },
                              { "entries", r.writers->entries },
                              { "read", r.writers->read },
                              { "unknown", r.writers->unknown } };
  j["fingerprint"] = m.fingerprint.sha256;
  j["changed_inputs"] = r.changed;
  j["identity_snapshot"] = { { "present", r.snapshot.present },
                             { "fingerprint", r.snapshot.fingerprint },
                             { "stale_inputs", r.snapshot.stale_inputs } };
  if (r.roots)
    j["roots"] = { { "build", r.roots->build },
                   { "source", r.roots->source },
                   { "packages", r.roots->packages },
                   { "base_dirs", r.roots->base_dirs } };
  j["events"] = r.events;
  return j;
}

nlohmann::json fingerprint_json(const identity::Fingerprint& fp, const std::string& layout) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& in : fp.inputs)
    inputs.push_back({ { "path", in.path }, { "sha256", in.sha256 }, { "size", in.size } });
  return { { "sha256", fp.sha256 }, { "cache_key", fp.cache_key(layout) }, { "inputs", inputs } };
}

} // namespace shimctl::cli
