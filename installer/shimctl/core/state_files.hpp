// The names of shimctl's files in a prefix: PREFIX/.shimctl/{manifest.json,
// journal.json,lock,events.log,secrets} and the shim config beside each shim.
#pragma once

#include <shim/formats.h>
#include <string_view>

namespace shimctl::core {

inline constexpr std::string_view state_dir_name = ".shimctl";
inline constexpr std::string_view manifest_file = "manifest.json";
inline constexpr std::string_view journal_file = "journal.json";
inline constexpr std::string_view lock_file = "lock";
inline constexpr std::string_view events_file = "events.log";
inline constexpr std::string_view secrets_file = SHIMCTL_SECRETS_NAME; // a remote's credential
inline constexpr std::string_view shim_config_file = SHIMCTL_CONFIG_NAME;

} // namespace shimctl::core
