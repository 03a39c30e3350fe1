// Verification of an installation: the files are intact, the cache tool runs,
// and real compiles through the shim work and hit the cache on repeat.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/verify/verify_report.hpp>
#include <string>
#include <vector>

namespace shimctl::verify {

[[nodiscard]] util::Result<VerifyReport> verify(const core::Context& context,
                                                const util::Dir& prefix_dir,
                                                const core::Manifest& manifest,
                                                const VerifyOptions& options);

// `shimctl verify PREFIX`: opens a session on PREFIX (its lock, recovery,
// manifest) like every other command, then verifies; not installed is an
// error (ExitCode::not_installed).
[[nodiscard]] util::Result<VerifyReport> verify(const core::Context& context,
                                                const std::string& prefix,
                                                const core::SessionOptions& session,
                                                const VerifyOptions& options);

// Files whose content differs from the manifest's fingerprint inputs.
[[nodiscard]] std::vector<std::string> changed_identity_inputs(const core::Manifest& manifest);

} // namespace shimctl::verify
