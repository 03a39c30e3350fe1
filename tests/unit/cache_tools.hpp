// The cache tools' names as the CLI gives them to core (core::Context::cache_tools).
#pragma once

#include <shimctl/cache/tool.hpp>
#include <string>
#include <vector>

inline std::vector<std::string> known_cache_tools() {
  std::vector<std::string> names;
  for (auto name : shimctl::cache::tool_names())
    names.emplace_back(name);
  return names;
}
