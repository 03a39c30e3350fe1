// `shimctl measure`'s reasons table: a build's misses grouped by why they missed (miss_reason.hpp),
// with the flags or files most often behind each reason.
#pragma once

#include <cstdint>
#include <shimctl/records/miss_reason.hpp>
#include <string>
#include <vector>

namespace shimctl::records {

struct ReasonRow {
  MissReason reason = MissReason::unknown;
  std::uint64_t count = 0;
  std::vector<std::pair<std::string, std::uint64_t>> top; // at most three subjects, most first
};

struct ReasonsTable {
  std::vector<ReasonRow> rows;         // most misses first
  std::uint64_t explained = 0;         // records read
  std::vector<std::string> unreadable; // records that could not be read (one line each)
};

// The reasons of the misses whose records are at PATHS: each against the record before it here
// (DIR: records_dir()), or, with ARCHIVE, against CI's record of the same output.
[[nodiscard]] ReasonsTable reasons_of(const std::vector<std::string>& paths,
                                      const std::string& dir,
                                      const std::vector<StoredRecord>* archive);

} // namespace shimctl::records
