// The commands clang prints, read back: a `-###` job line (` "prog" "arg" ...`: every argument
// quoted, a backslash escaping ", \ and $) and a line of clang-linker-wrapper's --dry-run or
// --verbose (` "prog" arg arg`: the program quoted, the arguments bare, one space apart). Read by
// identity (what a toolchain really runs) and pieces (the plan a compile is split by).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shimctl::util {

using CommandArgs = std::vector<std::string>;

// LINE's arguments, the program first; empty when LINE is not such a line (a banner, a message,
// an unterminated quote).
[[nodiscard]] CommandArgs split_job_line(std::string_view line);
[[nodiscard]] CommandArgs split_wrapper_line(std::string_view line);

// Every job line / wrapper line of TEXT, in order; the other lines skipped.
[[nodiscard]] std::vector<CommandArgs> job_lines(std::string_view text);
[[nodiscard]] std::vector<CommandArgs> wrapper_lines(std::string_view text);

} // namespace shimctl::util
