// The shim's helper, `shimctl identity-check PREFIX`: re-hashes a prefix whose
// identity snapshot is stale and writes a new one (or the user's own).
#pragma once

#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/util/error.hpp>
#include <string>

namespace shimctl::identity {

struct IdentityCheck {
  SnapshotResult snapshot;
  std::string user_snapshot; // the user's snapshot written instead (identity/user_snapshot.hpp)
  std::string user_why_not;  // why neither was written
};

// `shimctl identity-check PREFIX`, run by the shim when the snapshot is stale:
// the installed prefix's snapshot_identity. Never waits for a shimctl
// command (a compile must not wait for an install) and changes nothing but
// the snapshot; where it may not write the prefix's, it writes the user's.
[[nodiscard]] util::Result<IdentityCheck> check_identity(
  const std::string& prefix,
  const std::vector<std::string>& cache_tools);

} // namespace shimctl::identity
