// The compile records a CI cache archive carries (`shimctl cache export` puts the exporting
// user's records of the prefix's compiles into it; `explain --against` and `measure --against`
// read them back).
#pragma once

#include <shimctl/records/record_store.hpp>
#include <string>
#include <vector>

namespace shimctl::records {

// The records in ARCHIVE (a `shimctl cache export` file), newest first; an error (exit 2) when it
// cannot be read or carries none (an archive from before records: export it again).
[[nodiscard]] util::Result<std::vector<StoredRecord>> records_in_archive(
  const std::string& archive);

} // namespace shimctl::records
