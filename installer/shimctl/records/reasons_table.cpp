#include <algorithm>
#include <map>
#include <shimctl/records/reasons_table.hpp>
#include <shimctl/records/record_lookup.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::records {

ReasonsTable reasons_of(const std::vector<std::string>& paths,
                        const std::string& dir,
                        const std::vector<StoredRecord>* archive) {
  ReasonsTable table;
  std::map<MissReason, std::map<std::string, std::uint64_t>> subjects;
  std::map<MissReason, std::uint64_t> counts;
  std::optional<std::vector<StoredRecord>> everything; // read once, when a miss needs it
  for (const auto& path : paths) {
    auto record = parse_record(util::read_text_file(path), path);
    if (!record) {
      table.unreadable.push_back(record.error().message);
      continue;
    }
    if (record->tool_ran_it)
      continue; // not a miss: the tool's own counters name it (measure's "did not cache")
    StoredRecord miss{ path, std::move(*record) };
    std::optional<StoredRecord> before;
    if (archive) {
      before = archive_record(*archive, miss);
    } else {
      auto same = records_of_output(dir, miss.record.output);
      before = predecessor(miss, same ? *same : std::vector<StoredRecord>{}, {}, Against::earlier);
      if (!before) {
        if (!everything)
          everything = all_records(dir);
        before = predecessor(miss, {}, *everything, Against::earlier);
      }
    }
    auto e = explain_miss(miss, before, dir, archive ? Against::archive : Against::earlier);
    ++table.explained;
    ++counts[e.reason];
    if (!e.subject.empty())
      ++subjects[e.reason][e.subject];
  }
  for (const auto& [reason, count] : counts) {
    ReasonRow row{ reason, count, {} };
    for (const auto& [subject, n] : subjects[reason])
      row.top.emplace_back(subject, n);
    std::ranges::stable_sort(row.top,
                             [](const auto& a, const auto& b) { return a.second > b.second; });
    if (row.top.size() > 3)
      row.top.resize(3);
    table.rows.push_back(std::move(row));
  }
  std::ranges::stable_sort(
    table.rows, [](const ReasonRow& a, const ReasonRow& b) { return a.count > b.count; });
  return table;
}

} // namespace shimctl::records
