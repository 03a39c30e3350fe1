// A team store's health as the shim keeps it for each user (shim/formats.h, "A team store's
// health"): the store line a shim config gets for a remote, and the user's memo that status and
// verify show.
#pragma once

#include <optional>
#include <shim/formats.h>
#include <string>

namespace shimctl::cache {

// How the shim asks the store whether it answers: SHIMCTL_STORE_PROBE_* and HOST:PORT.
struct StoreProbe {
  std::string probe;
  std::string address;
};

// The probe of REMOTE's first store (a URL with |attributes; ccache's list: its first word that
// is no directory), or nullopt when it has none (a unix socket, S3 without an endpoint).
[[nodiscard]] std::optional<StoreProbe> store_probe(const std::optional<std::string>& remote);

// This user's memo of PROBE's store (the shim's, in the user's private runtime directory), or
// nullopt when no compile of this user has asked the store yet.
[[nodiscard]] std::optional<shimctl_store_health> read_store_health(const StoreProbe& probe);

// HEALTH in words at NOW (unix seconds): "healthy (asked 3 s ago)", "out until 05:12:03 UTC
// (cool-down 30 s)"; and its last failure, "" when none was seen.
[[nodiscard]] std::string store_state_words(const shimctl_store_health& health,
                                            unsigned long long now);
[[nodiscard]] std::string store_failure_words(const shimctl_store_health& health,
                                              unsigned long long now);

} // namespace shimctl::cache
