// Discovery: which files in a prefix are the compilers to wrap, and which
// symlinks in the prefix are aliases of them.
#pragma once

#include <optional>
#include <shimctl/core/layout.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::core {

inline constexpr std::string_view real_suffix = ".real";

struct Alias {
  std::string path;   // relative to the prefix
  std::string target; // the symlink's target as stored
};

struct WrapTarget {
  std::string path; // the regular file to wrap, relative to the prefix (symlinks resolved)
  CompilerSpec spec;
  std::vector<Alias> aliases; // symlinks anywhere in the prefix that resolve to `path`

  [[nodiscard]] std::string dir() const;
  [[nodiscard]] std::string name() const;
  [[nodiscard]] std::string real_name() const {
    return name() + std::string(real_suffix);
  }
  [[nodiscard]] std::string real_path() const {
    return path + std::string(real_suffix);
  }
};

struct Toolchain {
  std::string prefix; // canonical absolute path
  Layout layout;
  std::vector<WrapTarget> targets;
  std::vector<std::string> notes; // what discovery skipped, and why
};

struct DiscoveryOptions {
  std::optional<std::string> layout_name; // force a layout
  std::vector<std::string> compilers;     // keep only these names (basenames); empty: all
};

// Canonicalises PREFIX and checks that it is a directory.
[[nodiscard]] util::Result<std::string> canonical_prefix(const std::string& prefix);

[[nodiscard]] util::Result<Toolchain> discover(const std::string& prefix,
                                               const std::vector<Layout>& layouts,
                                               const DiscoveryOptions& options);

// Resolves RELATIVE (which may run through symlinks) to a path relative to
// PREFIX; nullopt when it does not exist or leaves the prefix.
[[nodiscard]] std::optional<std::string> resolve_within(const std::string& prefix,
                                                        const std::string& relative);

// All symlinks below PREFIX (not following symlinked directories).
[[nodiscard]] std::vector<Alias> list_symlinks(const std::string& prefix);

} // namespace shimctl::core
