// `shimctl status`: what is wrapped where, the cache tool, where the cache
// lives and its hit/miss counts, and anything that needs attention.
#pragma once

#include <optional>
#include <shimctl/core/cache_backend.hpp>
#include <shimctl/core/context.hpp>
#include <shimctl/core/identity_snapshot.hpp>
#include <shimctl/core/session.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

struct CompilerStatus {
  std::string path;
  std::string state; // "wrapped", "shim replaced (package upgrade?)", "original missing"
  std::size_t aliases = 0;
};

struct StatusReport {
  std::string prefix;
  bool installed = false;
  std::optional<Manifest> manifest;
  std::vector<CompilerStatus> compilers;
  std::string cache_location;
  std::optional<CacheStats> stats;
  std::string events;               // one-line summary of shim events
  std::vector<std::string> changed; // identity inputs changed since install
  SnapshotState snapshot;           // what the shim keys compiles by
  std::string recovered;
};

[[nodiscard]] util::Result<StatusReport> status(const Context& context,
                                                const std::string& prefix,
                                                const SessionOptions& session);

} // namespace shimctl::core
