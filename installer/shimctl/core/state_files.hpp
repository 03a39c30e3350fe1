// The names of shimctl's files in a prefix: PREFIX/.shimctl/{manifest.json,
// journal.json,lock,events.log,secrets,identity} and the shim config beside each shim.
#pragma once

#include <shim/formats.h>
#include <string>
#include <string_view>

namespace shimctl::core {

inline constexpr std::string_view state_dir_name = ".shimctl";
inline constexpr std::string_view manifest_file = "manifest.json";
inline constexpr std::string_view journal_file = "journal.json";
inline constexpr std::string_view lock_file = "lock";
inline constexpr std::string_view events_file = "events.log";
inline constexpr std::string_view secrets_file = SHIMCTL_SECRETS_NAME; // a remote's credential
inline constexpr std::string_view shim_config_file = SHIMCTL_CONFIG_NAME;
inline constexpr std::string_view identity_snapshot_file = SHIMCTL_IDENTITY_NAME; // a cache

// PREFIX-relative path of the shim config in DIR ("" = the prefix itself).
[[nodiscard]] inline std::string shim_config_path(const std::string& dir) {
  return dir.empty() ? std::string(shim_config_file) : dir + "/" + std::string(shim_config_file);
}

} // namespace shimctl::core
