// The record of a miss named by its object or its source (`shimctl explain`), and the record
// to compare it with: this machine's earlier one, or CI's from an archive.
#pragma once

#include <optional>
#include <shimctl/records/record_store.hpp>
#include <string>
#include <vector>

namespace shimctl::records {

// The last miss that wrote OBJECT (as the user names it: relative to the working directory);
// "no record: ..." (exit 2) when none.
[[nodiscard]] util::Result<StoredRecord> last_miss_of_object(const std::string& dir,
                                                             const std::string& object);

// The last miss that compiled SOURCE.
[[nodiscard]] util::Result<StoredRecord> last_miss_of_source(const std::string& dir,
                                                             const std::string& source);

// The record before MISS here (its output's earlier one, else another place's).
[[nodiscard]] std::optional<StoredRecord> earlier_record(const std::string& dir,
                                                         const StoredRecord& miss);

// CI's record of MISS's output among ARCHIVE's.
[[nodiscard]] std::optional<StoredRecord> archive_record(const std::vector<StoredRecord>& archive,
                                                         const StoredRecord& miss);

} // namespace shimctl::records
