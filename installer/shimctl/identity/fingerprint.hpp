// The toolchain fingerprint: SHA-256 over the contents of every file that
// decides a compile's output (compilers, linkers, bundlers, device libraries,
// version files): the layout's identity patterns, plus what the toolchain's
// own `-###` job lists show it runs and reads (identity/job_inputs.hpp).
#pragma once

#include <functional>
#include <shimctl/core/context.hpp>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/identity/job_inputs.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::identity {

using core::Fingerprint;
using core::IdentityInput;

// Files matched by the identity patterns, relative to the prefix, with every
// wrapped compiler replaced by its .real, the REPORTED inputs (named the same
// way: relative, or absolute outside the prefix), and the shared libraries
// all their executables load (absolute when outside the prefix). WRAPPED
// lists the paths of the wrapped compilers (relative).
[[nodiscard]] std::vector<std::string> identity_files(
  const std::string& prefix,
  const std::vector<std::string>& patterns,
  const std::vector<std::string>& wrapped,
  const std::vector<std::string>& reported = {});

struct ToolchainFiles {
  std::vector<std::string> files; // the fingerprint's inputs (identity_files)
  JobInputs reported;             // what the job lists showed, per compiler
};

// identity_files with the job-list inputs of every HIP-capable compiler
// LAYOUT lists that exists in PREFIX, wrapped or not: the fingerprint does
// not depend on which compilers are wrapped. Never runs a compile through a
// shim (identity/job_inputs.hpp).
[[nodiscard]] util::Result<ToolchainFiles> toolchain_files(const std::string& prefix,
                                                           const core::Layout& layout,
                                                           const std::vector<std::string>& wrapped);

// An input's path on disk: PREFIX/PATH, or PATH itself when absolute.
[[nodiscard]] std::string input_path(const std::string& prefix, const std::string& path);

// Hashes the files, reporting to METER as "fingerprinting". With BEFORE_INSTALL,
// a ".real" name that does not exist yet is read from the original (the same
// bytes it will hold).
[[nodiscard]] util::Result<Fingerprint> compute_fingerprint(const std::string& prefix,
                                                            const std::vector<std::string>& files,
                                                            bool before_install,
                                                            const core::Meter& meter = {});

// Whether fingerprint_files says "fingerprinting N toolchain files" on CONTEXT's progress
// (install, adopt) or not (fingerprint, cache-key: their output is the key).
enum class Announce { yes, no };

// Hashes FILES with CONTEXT's meter (compute_fingerprint).
[[nodiscard]] util::Result<Fingerprint> fingerprint_files(const core::Context& context,
                                                          const std::string& prefix,
                                                          const std::vector<std::string>& files,
                                                          bool before_install,
                                                          Announce announce);

// The fingerprint of LAYOUT's toolchain in PREFIX: toolchain_files, then
// fingerprint_files (what install, adopt, fingerprint and refresh compute).
[[nodiscard]] util::Result<Fingerprint> fingerprint_toolchain(
  const core::Context& context,
  const std::string& prefix,
  const core::Layout& layout,
  const std::vector<std::string>& wrapped,
  bool before_install,
  Announce announce);

// SHA-256 over the (path, sha256) pairs sorted by path; a wrapped compiler's
// ".real" path counts under the compiler's own name.
[[nodiscard]] std::string combine_inputs(const std::vector<IdentityInput>& inputs);

} // namespace shimctl::identity
