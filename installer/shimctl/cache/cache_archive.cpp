#include <archive.h>
#include <shimctl/cache/cache_archive.hpp>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/shim_config.hpp>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

void ArchiveFree::operator()(archive* a) const {
  archive_read_free(a);
}

void ArchiveWriteFree::operator()(archive* a) const {
  archive_write_free(a);
}

std::string archive_error(archive* a) {
  const char* text = archive_error_string(a);
  return text ? text : "unknown libarchive error";
}

nlohmann::json to_json(const ArchiveHeader& h) {
  return { { "format", h.format },
           { "fingerprint", h.fingerprint },
           { "cache_key", h.cache_key },
           { "cache_tool", h.cache_tool },
           { "cache_version", h.cache_version },
           { "shimctl_version", h.shimctl_version },
           { "created", h.created },
           { "entries", h.entries },
           { "bytes", h.bytes },
           { "records", h.records } };
}

util::Result<ArchiveHeader> parse_archive_header(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(ExitCode::usage, "its {} is not JSON", archive_header_name);
  ArchiveHeader h;
  auto text_field = [&](const char* name, std::string& out) -> bool {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string())
      return false;
    out = it->get<std::string>();
    return true;
  };
  auto count_field = [&](const char* name, std::uint64_t& out) -> bool {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number_unsigned())
      return false;
    out = it->get<std::uint64_t>();
    return true;
  };
  auto format = j.find("format");
  if (format == j.end() || !format->is_number_integer())
    return fail(ExitCode::usage, "its {} has no format number", archive_header_name);
  h.format = format->get<int>();
  if (h.format != archive_format_version)
    return fail(ExitCode::usage,
                "its format {} is not {} (made by another shimctl version)",
                h.format,
                archive_format_version);
  if (!text_field("fingerprint", h.fingerprint) || !text_field("cache_key", h.cache_key) ||
      !text_field("cache_tool", h.cache_tool) || !text_field("cache_version", h.cache_version) ||
      !count_field("entries", h.entries) || !count_field("bytes", h.bytes))
    return fail(ExitCode::usage,
                "its {} lacks a field (fingerprint, cache_key, cache_tool, "
                "cache_version, entries, bytes)",
                archive_header_name);
  (void)text_field("shimctl_version", h.shimctl_version);
  (void)text_field("created", h.created);
  (void)count_field("records", h.records); // absent before records travelled
  return h;
}

util::Result<CacheTarget> cache_target(const core::Context& context,
                                       const CacheArchiveOptions& options) {
  TRY_ASSIGN(auto session, core::open_installed_session(context, options.prefix, options.session));
  CacheTarget target{ std::move(session), {}, {}, {} };
  const auto& m = *target.session.manifest;
  target.link_store = link_store_place(&m.cache);
  if (!tool_of(m.cache).archives())
    return fail(ExitCode::usage,
                "{} uses {}: cache archives hold ccache caches only",
                target.session.prefix,
                m.cache.kind);
  util::RunOptions run;
  run.env = tool_environment(shim_environment(m.cache, m.fingerprint.sha256, identity_paths(m)));
  target.cache_dir = tool_of(m.cache).cache_location(m.cache, run);
  if (target.cache_dir.empty() || target.cache_dir.front() != '/')
    return fail("cannot tell where {} keeps its cache ('{} --get-config cache_dir' failed)",
                m.cache.path,
                m.cache.path);
  auto& h = target.identity;
  h.fingerprint = m.fingerprint.sha256;
  h.cache_key = m.fingerprint.cache_key(m.layout);
  h.cache_tool = m.cache.kind;
  h.cache_version = m.cache.version;
  h.shimctl_version = context.version;
  return target;
}

} // namespace shimctl::cache
