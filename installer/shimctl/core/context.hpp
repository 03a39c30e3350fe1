// What every command needs from its surroundings: where shimctl's own files
// are, and where progress lines go.
#pragma once

#include <functional>
#include <string>

namespace shimctl::core {

struct Context {
  std::string shim_binary;  // the shim to install
  std::string layouts_dir;  // manifests/layouts
  std::string version;      // shimctl's version
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

// Finds the shim and the layout files relative to the running executable
// (build tree, or an installed/relocated tree); SHIMCTL_SHIM and
// SHIMCTL_DATA_DIR override.
[[nodiscard]] Context locate_context();

}  // namespace shimctl::core
