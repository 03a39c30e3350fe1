// Verification of ccache's remote storage (--remote URL): a compile in a
// fresh, empty local cache must be served from the remote; an unreachable
// remote is a warning (compiles still succeed from the local cache or the
// compiler), not a failure.
#pragma once

#include <shimctl/core/manifest.hpp>
#include <shimctl/verify/verify_report.hpp>
#include <vector>

namespace shimctl::verify {

void verify_remote(const core::Manifest& manifest,
                   const VerifyOptions& options,
                   std::vector<Check>& out);

} // namespace shimctl::verify
