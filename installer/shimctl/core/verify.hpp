// Verification of an installation: the files are intact, the cache tool runs,
// and real compiles through the shim work and hit the cache on repeat.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/util/dir.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

enum class Outcome { pass, fail, warn, not_cached };

struct Check {
  std::string subject; // a compiler path, or "toolchain", "cache"
  std::string name;    // what was checked
  Outcome outcome = Outcome::pass;
  std::string detail;
};

struct VerifyReport {
  std::vector<Check> checks;
  [[nodiscard]] bool ok() const;
  [[nodiscard]] std::string first_failure() const;
};

struct VerifyOptions {
  std::string offload_arch = "gfx90a";
  std::string cuda_arch = "sm_90";
  bool compile = true;
};

[[nodiscard]] util::Result<VerifyReport> verify(const Context& context,
                                                const util::Dir& prefix_dir,
                                                const Manifest& manifest,
                                                const VerifyOptions& options);

// `shimctl verify PREFIX`: opens a session on PREFIX (its lock, recovery,
// manifest) like every other command, then verifies; not installed is an
// error (ExitCode::not_installed).
[[nodiscard]] util::Result<VerifyReport> verify(const Context& context,
                                                const std::string& prefix,
                                                const SessionOptions& session,
                                                const VerifyOptions& options);

// Files whose content differs from the manifest's fingerprint inputs.
[[nodiscard]] std::vector<std::string> changed_identity_inputs(const Manifest& manifest);

[[nodiscard]] std::string to_string(Outcome outcome);

} // namespace shimctl::core
