// The table of cache tools (declared in tool.hpp): apart from tool.cpp so that the
// implementations, which include tool.hpp, are included by this file alone.
#include <array>
#include <shimctl/cache/ccache_tool.hpp>
#include <shimctl/cache/sccache_tool.hpp>
#include <shimctl/cache/tool.hpp>

namespace shimctl::cache {

namespace {

// Every tool, the default first. A new tool is one line here and one file.
const std::array<const Tool*, 2>& tools() {
  static const std::array<const Tool*, 2> table{ &ccache_tool(), &sccache_tool() };
  return table;
}

} // namespace

std::vector<std::string_view> tool_names() {
  std::vector<std::string_view> names;
  for (const auto* tool : tools())
    names.push_back(tool->name());
  return names;
}

const Tool& default_tool() {
  return *tools().front();
}

const Tool* tool_named(std::string_view name) {
  for (const auto* tool : tools())
    if (tool->name() == name)
      return tool;
  return nullptr;
}

const Tool& tool_of(const core::CacheSettings& settings) {
  const Tool* tool = tool_named(settings.kind);
  return tool ? *tool : default_tool();
}

const Tool* tool_launched_by(std::string_view program) {
  auto name = program.substr(program.rfind('/') + 1);
  // The longest name that starts the file name wins (no tool's name starts another's today).
  const Tool* found = nullptr;
  for (const auto* tool : tools())
    if (name.starts_with(tool->name()) && (!found || tool->name().size() > found->name().size()))
      found = tool;
  return found;
}

} // namespace shimctl::cache
