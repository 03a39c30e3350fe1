// Behavioural probes of clang-family names: the `-### -c` job list shows the
// driver mode, config file, resource dir and target a name leads to.
#pragma once

#include <map>
#include <shimctl/core/discovery.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::identity {

// An executable's path as clang reports it once wrapped (its .real), and its original path.
struct Rename {
  std::string real_exe;
  std::string original_exe;
};

// The job list of PREFIX/INVOKED for `-### -c probe.cpp -o probe.o`, run in a
// scratch directory, with the scratch path and each RENAMES' real_exe (the
// executable clang reports for itself) normalised so that runs before and after
// wrapping compare.
[[nodiscard]] util::Result<std::string> job_list(const std::string& prefix,
                                                 const std::string& invoked,
                                                 const std::vector<Rename>& renames);

// Job lists of a target and each of its aliases, before wrapping.
[[nodiscard]] util::Result<std::map<std::string, std::string>> record_job_lists(
  const std::string& prefix,
  const core::WrapTarget& target);

} // namespace shimctl::identity
