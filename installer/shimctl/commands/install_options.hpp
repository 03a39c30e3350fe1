// What `shimctl install` is asked (InstallOptions) and what it did
// (InstallResult): shared by a new installation (install.hpp) and by an
// installed prefix's update (installed.hpp, adopt.hpp, reconfigure.hpp).
#pragma once

#include <optional>
#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/session.hpp>
#include <shimctl/verify/verify_report.hpp>
#include <string>
#include <vector>

namespace shimctl::commands {

struct InstallOptions {
  std::string prefix;
  std::optional<std::string> layout;
  std::vector<std::string> compilers;
  std::optional<std::string> cache_kind; // --cache (ccache when not given)
  std::optional<std::string> cache_tool; // explicit path
  std::optional<std::string> cache_dir;
  std::optional<std::string> max_size;
  std::optional<std::string> remote;
  bool remote_read_only = false;
  std::optional<std::string> shared_cache; // --shared-cache DIR (with --group)
  std::optional<std::string> shared_group; // --group NAME
  std::vector<std::string> base_dirs;      // --base-dir DIR, repeated, in order
  bool allow_world_writable = false;
  bool divert = false; // --divert: dpkg-divert packaged compilers to their .real
  bool dry_run = false;
  bool keep_on_failure = false;
  bool verify = true;
  verify::VerifyOptions verify_options;
  core::SessionOptions session;
};

struct InstallResult {
  enum class Action {
    installed,
    unchanged,
    planned,
    readopted,
    reconfigured
  } action = Action::installed;
  core::Manifest manifest;
  std::vector<std::string> plan;      // one line per step (per changed setting when reconfigured)
  std::vector<std::string> notes;     // what discovery skipped
  bool plan_changes_settings = false; // a dry run on an installed prefix: PLAN lists settings
  std::optional<verify::VerifyReport> report;
};

// Refuses a bad option before any work (nothing read in the prefix, no
// session, no compile): exit 2 and one line naming the option and what to do.
// --max-size and --remote in the forms the cache tool reads (cache/max_size.hpp,
// cache/remote_url.hpp; the tool: --cache/--cache-tool, else the installed
// prefix's, else ccache), --cache-dir and --shared-cache a directory or one
// that can be created, --base-dir as canonical_base_dirs takes it,
// --offload-arch (other than the default) a GPU target the prefix's clang
// knows: asked once, `clang -x hip --offload-arch=ARCH
// --cuda-device-only -nogpulib -nogpuinc -### -c /dev/null` (the driver checks
// the target ID and compiles nothing: 40 ms with clang-21, 90 ms with
// clang-15). commands::install runs it first, for a new installation and for an
// installed prefix's update (re-adoption, reconfiguration) alike.
[[nodiscard]] util::Status check_install_options(const core::Context& context,
                                                 const InstallOptions& options);

// --cache-dir as an absolute path (relative ones are taken from the working
// directory: the shim runs in every directory).
[[nodiscard]] util::Result<std::optional<std::string>> absolute_cache_dir(
  const std::optional<std::string>& dir);

// --base-dir DIR..., as the shim takes them (SHIMCTL_BASE_DIRS, shim/path_roots.h): at most
// SHIMCTL_BASE_DIRS_MAX existing directories, each named once by an absolute path without ':'
// or '..'; spelled without '.' components or repeated and trailing '/' (symbolic links are
// kept: the user's path is the one the compiles name). A usage error naming the option.
[[nodiscard]] util::Result<std::vector<std::string>> canonical_base_dirs(
  const std::vector<std::string>& dirs);

} // namespace shimctl::commands
