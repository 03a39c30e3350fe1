#include <cstdlib>
#include <filesystem>
#include <shimctl/records/miss_reason.hpp>
#include <shimctl/records/record_lookup.hpp>
#include <unistd.h>

namespace shimctl::records {

namespace fs = std::filesystem;
using util::ExitCode;
using util::fail;

namespace {

// PATH as the compile named it (the working directory as PWD says, lexically) and as the
// kernel resolves it: either may be the record's.
std::vector<std::string> spellings(const std::string& path) {
  std::vector<std::string> out;
  const char* pwd = std::getenv("PWD");
  std::error_code ec;
  fs::path base = pwd && *pwd == '/' ? fs::path(pwd) : fs::current_path(ec);
  fs::path lexical =
    (fs::path(path).is_absolute() ? fs::path(path) : base / path).lexically_normal();
  out.push_back(lexical.string());
  auto real = fs::weakly_canonical(lexical, ec);
  if (!ec && real != lexical)
    out.push_back(real.string());
  return out;
}

std::string no_record(const std::string& what, const std::string& dir) {
  return fmt::format("no record: {} was never compiled through a shim as this user, or it hit "
                     "every time (records are written on a miss, in {}; SHIMCTL_RECORDS=0 turns "
                     "them off)",
                     what,
                     dir.empty() ? "the user's cache home" : dir);
}

} // namespace

util::Result<StoredRecord> last_miss_of_object(const std::string& dir, const std::string& object) {
  if (!dir.empty())
    for (const auto& spelled : spellings(object)) {
      TRY_ASSIGN(auto records, records_of_output(dir, spelled));
      if (!records.empty())
        return records.front();
    }
  return std::unexpected(util::Error{ no_record(object, dir), ExitCode::usage });
}

util::Result<StoredRecord> last_miss_of_source(const std::string& dir, const std::string& source) {
  auto names = spellings(source);
  if (!dir.empty()) {
    TRY_ASSIGN(auto newest, newest_records(dir));
    for (auto& r : newest) // newest first
      if (std::ranges::find(names, r.record.source) != names.end())
        return r;
  }
  return std::unexpected(util::Error{ no_record(source, dir), ExitCode::usage });
}

std::optional<StoredRecord> earlier_record(const std::string& dir, const StoredRecord& miss) {
  auto same = records_of_output(dir, miss.record.output);
  std::vector<StoredRecord> same_output = same ? *same : std::vector<StoredRecord>{};
  if (auto found = predecessor(miss, same_output, {}, Against::earlier))
    return found;
  return predecessor(miss, {}, all_records(dir), Against::earlier);
}

std::optional<StoredRecord> archive_record(const std::vector<StoredRecord>& archive,
                                           const StoredRecord& miss) {
  std::vector<StoredRecord> same_output;
  for (const auto& r : archive)
    if (r.record.output == miss.record.output)
      same_output.push_back(r);
  if (auto found = predecessor(miss, same_output, {}, Against::archive))
    return found;
  return predecessor(miss, {}, archive, Against::archive);
}

} // namespace shimctl::records
