// The compile records a CI cache archive carries (`shimctl cache export` puts the exporting
// user's records of the prefix's compiles into it; `explain --against` and `measure --against`
// read them back). The archive's layout is cache/cache_archive.hpp's; the records' part of it is
// named here because cache/ is a floor above records/.
#pragma once

#include <shimctl/records/record_store.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::records {

// The archive's directory of records: shimctl-records/<n>.json, each a record file's bytes.
inline constexpr std::string_view archived_records_dir = "shimctl-records";

// Whether PATH (an archive entry's) names a record: shimctl-records/<digits>.json.
[[nodiscard]] bool is_archived_record(std::string_view path);

// A record as an export writes it: its file's bytes, unchanged.
struct RecordFile {
  std::string path; // the record's file under DIR
  std::string text;
};

// What `shimctl cache export` of PREFIX carries: the newest record of each output under DIR whose
// compile ran through PREFIX (canonical), newest first; records that vanished or cannot be read
// are left out.
[[nodiscard]] std::vector<RecordFile> records_to_export(const std::string& dir,
                                                        const std::string& prefix);

// The records in ARCHIVE (a `shimctl cache export` file), newest first; an error (exit 2) when it
// cannot be read or carries none (an archive from before records: export it again), or when one of
// them is not a record.
[[nodiscard]] util::Result<std::vector<StoredRecord>> records_in_archive(
  const std::string& archive);

} // namespace shimctl::records
