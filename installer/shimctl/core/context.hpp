// What every command needs from its surroundings: where shimctl's own files
// are, and where progress lines and warnings go.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::core {

// Counted progress of a long step (fingerprinting, verification compiles,
// exporting and importing a cache archive): the one shape every step reports in.
struct Tick {
  std::string_view what; // "fingerprinting", "verifying"
  std::string_view unit; // what DONE counts: "files", "compilers"
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  std::uint64_t bytes = 0;       // 0: not measured
  std::uint64_t total_bytes = 0; // 0: unknown
};

// Where a step sends its Ticks (Context::meter; the CLI draws them on a terminal).
using Meter = std::function<void(const Tick&)>;

struct Context {
  std::string shim_binary; // the shim to install
  std::string layouts_dir; // manifests/layouts
  std::string version;     // shimctl's version
  // The cache tools' names (cache::tool_names(), filled by the CLI: core knows no
  // tool): a manifest's cache.kind must be one of them.
  std::vector<std::string> cache_tools;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
  // Something the user should know although the command succeeds (a snapshot
  // not written, a toolchain that changed meanwhile). The CLI prints it on
  // stderr in every mode and lists it under "warnings" in --json output.
  std::function<void(const std::string&)> warn = [](const std::string&) {};
  Meter meter = [](const Tick&) {}; // the CLI draws it on a terminal
};

// Finds the shim and the layout files relative to the running executable
// (build tree, or an installed/relocated tree); SHIMCTL_SHIM and
// SHIMCTL_DATA_DIR override.
[[nodiscard]] Context locate_context();

} // namespace shimctl::core
