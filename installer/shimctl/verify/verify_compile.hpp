// Verification by real compiles through the shim: a cold compile, a repeat
// from a fresh directory that must hit the cache, and a reference compile of
// the original for comparison.
#pragma once

#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/verify/verify_report.hpp>
#include <string>
#include <vector>

namespace shimctl::verify {

void verify_compiles(const core::Context& context,
                     const core::Manifest& manifest,
                     const core::WrappedCompiler& c,
                     const VerifyOptions& options,
                     std::vector<Check>& out);

// A one-line summary of the shim's events.log ("" when there are none).
[[nodiscard]] std::string read_events(const util::Dir& prefix_dir);

} // namespace shimctl::verify
