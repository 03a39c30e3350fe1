// Toolchain layout files (manifests/layouts/*.json): which compilers a
// toolchain has, how each must be wrapped, and what decides its output.
#pragma once

#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

// How the original keeps behaving as itself once it lives under NAME.real.
enum class NameHandling {
  sibling, // finds its siblings from its own directory (hipcc, nvcc)
  argv0,   // reads its mode from argv[0] (clang): the shim passes argv[0] unchanged
};

enum class VerifyKind { hip, c_cxx, cuda };

struct CompilerSpec {
  std::string path;   // relative to the prefix
  std::string family; // hipcc | clang | nvcc
  NameHandling name_handling = NameHandling::sibling;
  VerifyKind verify = VerifyKind::c_cxx;
};

struct Layout {
  std::string name;
  std::string description;
  int priority = 50;               // detection order: lower first (a more specific layout)
  std::vector<std::string> detect; // relative paths; any present selects the layout
  std::vector<CompilerSpec> compilers;
  std::vector<std::string> identity; // relative glob patterns of the fingerprint inputs
};

[[nodiscard]] util::Result<Layout> parse_layout(const std::string& json_text,
                                                const std::string& origin);
// All *.json layouts in DIR, sorted by file name.
[[nodiscard]] util::Result<std::vector<Layout>> load_layouts(const std::string& dir);
// The layout a manifest names, from DIR; one this shimctl does not know is a
// corrupt manifest (exit 5).
[[nodiscard]] util::Result<Layout> manifest_layout(const std::string& dir, const std::string& name);

[[nodiscard]] std::string to_string(VerifyKind kind);

} // namespace shimctl::core
