// A remote storage's credential (--remote redis://PASSWORD@host:6379) is never in a file others
// may read, nor in any output. The manifest and the shim configs keep the remote redacted
// (util::redact_credentials: redis://***@host:6379); the variables that carry the credential
// live only in the secrets file, PREFIX/.shimctl/secrets (shim/formats.h): one NAME=VALUE line
// each, mode 0600 (the installing user's), or 0640 with a shared cache's group. The shim applies
// its lines over the config's setenv lines of the same name; a user who cannot read it compiles
// with the config's values: the local (or shared) cache, no remote.
#pragma once

#include <optional>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shimctl::cache {

inline constexpr mode_t secrets_mode = 0600;
inline constexpr mode_t shared_secrets_mode = 0640; // with --shared-cache --group

// Sets SETTINGS' remote from --remote URL: redacted, and remote_secret when URL carried a
// credential (an s3:// URL: also install's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
// with_environment_keys). Returns URL in full when it did (the secrets file's source), else
// nullopt.
[[nodiscard]] std::optional<std::string> set_remote(core::CacheSettings& settings,
                                                    const std::optional<std::string>& url);

// The value of NAME among the secrets file's LINES (NAME=VALUE); nullopt when absent.
[[nodiscard]] std::optional<std::string> secret_value(const std::vector<std::string>& lines,
                                                      std::string_view name);

// PREFIX/.shimctl/secrets, absolute (the shim config's secrets line).
[[nodiscard]] std::string secrets_path(const std::string& prefix);

[[nodiscard]] std::string render_secrets(const std::vector<std::string>& lines);

// What the calling user can read of a prefix's secrets file.
struct SecretsFile {
  enum class State { absent, unreadable, read };
  State state = State::absent;
  std::string path;
  std::vector<std::string> lines; // read: its NAME=VALUE lines
  std::string reason;             // unreadable: why ("Permission denied")
  mode_t mode = 0;                // read, unreadable: its permission bits
};
[[nodiscard]] SecretsFile read_secrets(const std::string& prefix);

// What SECRETS means for the compiles of this user, in one line (status, verify): "credential
// in P/.shimctl/secrets (mode 0600)", or "credential in P/.shimctl/secrets not readable by this
// user (Permission denied): compiles use the local cache only", or that it is missing.
[[nodiscard]] std::string credential_text(const SecretsFile& secrets,
                                          const core::CacheSettings& settings);

// The mode and group the secrets file gets for SETTINGS: 0600 and the caller's group, or 0640
// and the shared cache's group.
struct SecretsOwner {
  mode_t mode = secrets_mode;
  gid_t gid = 0;
};
[[nodiscard]] util::Result<SecretsOwner> secrets_owner(const core::CacheSettings& settings);

} // namespace shimctl::cache
