#include <shimctl/records/archive_records.hpp>

namespace shimctl::records {

util::Result<std::vector<StoredRecord>> records_in_archive(const std::string& archive) {
  return util::fail(util::ExitCode::usage, "{} holds no compile records", archive);
}

} // namespace shimctl::records
