// CI cache archives (`shimctl cache export|import`): the local ccache cache of
// an installed prefix as a zstd-compressed tar (libarchive).
//
// Archive layout, in this order:
//   shimctl-cache.json      header: toolchain fingerprint and cache key, cache tool and
//                           version, entry count and bytes, record count (ArchiveHeader)
//   <h>/<h>/<key>{M,R,...}  the cache entries that travel (core::travels)
//   shimctl-device-links/…  the device links' store's entries and verdicts
//                           (link_store_archive.hpp)
//   shimctl-records/<n>.json  the exporting user's compile records of the prefix's compiles,
//                           the newest of each output, each its file's bytes
//                           (records/archive_records.hpp; `explain --against` reads them,
//                           import checks them and leaves them out of the cache; archives
//                           from before records have none and no "records" in the header)
//   shimctl-cache.sha256    trailer: "<sha256>  <path>" per entry. zstd frames carry no
//                           checksum by default, so this is what catches flipped bytes;
//                           a missing trailer means a truncated archive.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/util/error.hpp>
#include <string>

struct archive;

namespace shimctl::cache {

inline constexpr std::string_view archive_header_name = "shimctl-cache.json";
inline constexpr std::string_view archive_trailer_name = "shimctl-cache.sha256";
inline constexpr int archive_format_version = 1;

struct ArchiveHeader {
  int format = archive_format_version;
  std::string fingerprint; // the manifest's toolchain fingerprint (SHA-256)
  std::string cache_key;   // `shimctl cache-key`
  std::string cache_tool;  // ccache
  std::string cache_version;
  std::string shimctl_version;
  std::string created;
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0; // compile records carried (shimctl-records/); 0 in older archives
};

[[nodiscard]] nlohmann::json to_json(const ArchiveHeader& header);
[[nodiscard]] util::Result<ArchiveHeader> parse_archive_header(const std::string& text);

struct CacheArchiveOptions {
  std::string file;
  std::string prefix;
  bool force = false; // import: accept another toolchain's archive
  core::SessionOptions session;
  core::Meter meter; // "exporting"/"importing" files, with bytes
};

struct CacheArchiveResult {
  ArchiveHeader header; // the archive's header
  std::string cache_dir;
  std::string installed_key;  // the prefix's cache key
  std::uint64_t imported = 0; // import: entries moved into the cache
  std::uint64_t kept = 0;     // import: entries already in the cache (left as they were)
  bool mismatch_forced = false;
};

[[nodiscard]] util::Result<CacheArchiveResult> export_cache(const core::Context& context,
                                                            const CacheArchiveOptions& options);
[[nodiscard]] util::Result<CacheArchiveResult> import_cache(const core::Context& context,
                                                            const CacheArchiveOptions& options);

// ---- shared by export and import -----------------------------------------------------------

struct ArchiveFree {
  void operator()(archive* a) const;
};
struct ArchiveWriteFree {
  void operator()(archive* a) const;
};
using ReadArchive = std::unique_ptr<archive, ArchiveFree>;
using WriteArchive = std::unique_ptr<archive, ArchiveWriteFree>;

// The installed prefix's cache: its directory and the header fields that name the toolchain.
struct CacheTarget {
  core::Session session; // holds the prefix lock while the archive is read or written
  std::string cache_dir;
  ArchiveHeader identity;
  LinkStorePlace link_store; // the install's device links' store
};
[[nodiscard]] util::Result<CacheTarget> cache_target(const core::Context& context,
                                                     const CacheArchiveOptions& options);

// libarchive's last error text for A.
[[nodiscard]] std::string archive_error(archive* a);

} // namespace shimctl::cache
