// A locked working session on one prefix: the state directory, the lock, the
// recovery of an interrupted transaction, and the manifest if installed.
#pragma once

#include <chrono>
#include <optional>
#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/lock.hpp>
#include <string>

namespace shimctl::core {

struct SessionOptions {
  std::optional<std::chrono::milliseconds> wait; // --wait
  bool create_state = false;                     // install creates PREFIX/.shimctl
  // status: a prefix whose lock this user may not take (another user's install) is
  // read as it is, without the lock and without recovery.
  bool read_only = false;
};

struct Session {
  std::string prefix; // canonical
  util::Dir dir;
  std::optional<util::FileLock> lock;
  std::optional<Manifest> manifest;
  std::string shim_bytes;
  std::string recovered;      // what recovery did, or ""
  bool state_created = false; // this session made PREFIX/.shimctl
  bool read_only = false;     // SessionOptions::read_only, and this user may not take the lock
};

// Opens PREFIX, takes its lock, finishes any interrupted transaction and
// loads the manifest. Without CREATE_STATE, a prefix with no state directory
// yields a session without lock or manifest (nothing to lock or recover).
[[nodiscard]] util::Result<Session> open_session(const Context& context,
                                                 const std::string& prefix,
                                                 const SessionOptions& options);

// open_session for a command that needs an installed prefix: one without a
// manifest is refused, "P is not installed; run 'shimctl install P' first" (exit 4).
[[nodiscard]] util::Result<Session> open_installed_session(const Context& context,
                                                           const std::string& prefix,
                                                           const SessionOptions& options);

// Reads the shim binary that install uses.
[[nodiscard]] util::Result<std::string> read_shim_binary(const Context& context);

// Removes PREFIX/.shimctl and the files shimctl and its shims keep there
// (best effort: a directory holding anything else stays).
void remove_state_dir(const util::Dir& prefix_dir);

// Loads PREFIX/.shimctl/manifest.json if present.
[[nodiscard]] util::Result<std::optional<Manifest>> load_manifest(
  const util::Dir& prefix_dir,
  const std::string& prefix,
  const std::vector<std::string>& cache_tools);

} // namespace shimctl::core
