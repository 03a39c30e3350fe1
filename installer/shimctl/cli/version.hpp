// `shimctl --version`.
#pragma once

#include <shimctl/core/context.hpp>
#include <string>

namespace shimctl::cli {

// The X of the "@(#)shimctl-shim X" string embedded in SHIM_BINARY ("" if
// the file is missing or has no such string). Reads the file; never runs it.
[[nodiscard]] std::string shim_version(const std::string& shim_binary);

// Three lines (without the final newline):
//   shimctl 0.1.0
//   shim: shimctl-shim 0.1.0 (/usr/libexec/shimctl/shimctl-shim)
//   cache: ccache 4.7.5 (/usr/bin/ccache)       or "cache: ccache not found (...)"
[[nodiscard]] std::string version_text(const core::Context& context);

} // namespace shimctl::cli
