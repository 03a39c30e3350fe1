// `shimctl status`: what is wrapped where, the cache tool, where the cache
// lives and its hit/miss counts, and anything that needs attention.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/store_health.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_entries.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

struct CompilerStatus {
  std::string path;
  std::string state; // "wrapped", "shim replaced (package upgrade?)", "original missing"
  std::size_t aliases = 0;
};

// Which ccache versions wrote the entries of a cache directory. Every result and manifest file
// (ccache >= 4.6) starts with a header that names the ccache version that wrote it: magic
// 0xccac, format version, type, compression type and level, self-contained flag, creation
// time (8 bytes), then the version as one length byte and the text, all before the compressed
// payload. Up to LIMIT entries are read, spread evenly over the cache when it has more.
struct CacheWriters {
  std::map<std::string, std::uint64_t> versions; // "4.14.2" -> entries read that it wrote
  std::uint64_t entries = 0;                     // cache entries found
  std::uint64_t read = 0;                        // entries whose header was read
  std::uint64_t unknown = 0;                     // read, but no ccache entry header
};
[[nodiscard]] CacheWriters cache_writers(const std::string& cache_dir, std::uint64_t limit);

// The roots of this user's last compile through the prefix whose paths were made location-free
// (shim/formats/user_files.h): its build tree and the build tree's view of the others.
struct LastRoots {
  std::string build;
  std::string source;                 // "" when the compile had none
  std::string packages;               // a Python package directory, "" when none
  std::vector<std::string> base_dirs; // the install's base dirs it used (views b0, b1, ...)
};
[[nodiscard]] std::optional<LastRoots> last_roots(const std::string& prefix);

struct StatusReport {
  std::string prefix;
  bool installed = false;
  std::optional<core::Manifest> manifest;
  std::vector<CompilerStatus> compilers;
  std::string cache_location;
  cache::ShimEnvironment environment; // what the shims set for the cache tool
  // The remote's credential file as this user finds it (its lines never kept here).
  std::optional<cache::SecretsFile> secrets;
  // The team store whose health the shim keeps, and this user's memo of it (nullopt: no compile
  // of this user's has asked it yet); NOW: when it was read (unix seconds).
  std::optional<cache::StoreProbe> store;
  std::optional<shimctl_store_health> store_health;
  unsigned long long now = 0;
  std::optional<cache::CacheStats> stats;
  // Per-target pieces (counted beside the cache): the tool's STATS count each piece's compile
  // too, so whole objects are STATS less these.
  pieces::PieceCounts pieces;
  links::LinkStoreSummary device_links; // this user's store of device links
  // The prefix has a HIP compiler: device links (HIP -fgpu-rdc's) are its own. Else the store
  // status shows is the user's, which the prefix never uses.
  bool links_apply = false;
  // The budget: the bytes of the cache's entries (whole objects and GPU-target pieces share it)
  // and the limit the tool keeps them under (the install's --max-size, else the tool's default:
  // MAX_IS_DEFAULT). The device links have a cap of their own (DEVICE_LINKS.max_bytes).
  std::uint64_t cache_bytes = 0;
  std::uint64_t cache_max = 0;
  // The stored pieces' share of CACHE_BYTES (pieces/piece_entries.hpp; at most it); nullopt when
  // the cache has no list of them (no piece stored, or a tool that names no entry's files:
  // sccache).
  std::optional<pieces::PieceBytes> piece_bytes;
  bool max_is_default = false;
  std::optional<CacheWriters> writers; // ccache: the versions that wrote the local entries
  std::optional<LastRoots> roots;      // this user's last location-free compile (none: nullopt)
  std::string events;                  // one-line summary of shim events
  std::vector<std::string> changed;    // identity inputs changed since install
  identity::SnapshotState snapshot;    // what the shim keys compiles by
  std::string recovered;
};

[[nodiscard]] util::Result<StatusReport> status(const core::Context& context,
                                                const std::string& prefix,
                                                const core::SessionOptions& session);

} // namespace shimctl::commands
