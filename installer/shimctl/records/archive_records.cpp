#include <algorithm>
#include <archive.h>
#include <archive_entry.h>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/records/archive_records.hpp>
#include <shimctl/util/tar_reader.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::records {

using util::ExitCode;
using util::fail;

namespace {

// cache/cache_archive.hpp's archive_header_name: every export's first entry.
constexpr std::string_view export_first_entry = "shimctl-cache.json";
constexpr std::size_t max_archived_record = 16 << 20;

} // namespace

bool is_archived_record(std::string_view path) {
  if (!path.starts_with(archived_records_dir) || path.size() <= archived_records_dir.size() ||
      path[archived_records_dir.size()] != '/')
    return false;
  auto name = path.substr(archived_records_dir.size() + 1);
  return name.size() > 5 && name.ends_with(".json") &&
         util::all_digits(name.substr(0, name.size() - 5));
}

std::vector<RecordFile> records_to_export(const std::string& dir, const std::string& prefix) {
  std::vector<RecordFile> files;
  if (dir.empty())
    return files;
  for (const auto& stored : latest_records(dir)) {
    std::error_code ec;
    auto real = std::filesystem::weakly_canonical(stored.record.prefix, ec);
    if (stored.record.prefix != prefix && (ec || real.string() != prefix))
      continue;
    auto text = util::read_text_file(stored.path);
    if (text.empty())
      continue; // pruned since it was listed
    files.push_back({ stored.path, std::move(text) });
  }
  return files;
}

util::Result<std::vector<StoredRecord>> records_in_archive(const std::string& archive) {
  auto unreadable = [&](const std::string& why) {
    return fail(ExitCode::usage,
                "cannot read {}: {}: name a file made by 'shimctl cache export'",
                archive,
                why);
  };
  auto a = util::open_tar(archive);
  if (!a)
    return unreadable(a.error().message);
  archive_entry* entry = nullptr;
  if (archive_read_next_header(a->get(), &entry) != ARCHIVE_OK)
    return unreadable(util::tar_error(a->get()));
  const char* first = archive_entry_pathname(entry);
  if (!first || first != export_first_entry)
    return unreadable(
      fmt::format("not a shimctl cache archive (its first entry is not {})", export_first_entry));

  std::vector<StoredRecord> records;
  while (true) {
    int r = archive_read_next_header(a->get(), &entry);
    if (r == ARCHIVE_EOF)
      break;
    if (r != ARCHIVE_OK)
      return unreadable(util::tar_error(a->get()));
    const char* raw = archive_entry_pathname(entry);
    if (!raw || !is_archived_record(raw) || archive_entry_filetype(entry) != AE_IFREG)
      continue; // a cache entry: libarchive skips its data
    std::string where = fmt::format("{}:{}", archive, raw);
    auto text = util::read_tar_entry(a->get(), where, max_archived_record);
    if (!text)
      return unreadable(text.error().message);
    TRY_ASSIGN(auto record, parse_record(*text, where));
    records.push_back({ std::move(where), std::move(record) });
  }
  if (records.empty())
    return fail(ExitCode::usage,
                "{} carries no compile records (exported before shimctl kept records, or nothing "
                "missed there): export it again with this shimctl",
                archive);
  std::ranges::stable_sort(records, [](const StoredRecord& x, const StoredRecord& y) {
    return x.record.time_ns > y.record.time_ns;
  });
  return records;
}

} // namespace shimctl::records
