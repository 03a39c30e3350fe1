#include "temp_dir.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <memory>
#include <shimctl/records/archive_records.hpp>
#include <string>
#include <utility>
#include <vector>

using shimctl::records::CompileRecord;
using shimctl::records::is_archived_record;
using shimctl::records::record_json;
using shimctl::records::records_in_archive;
using shimctl::records::records_to_export;
using shimctl::records::write_record;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace {

// A zstd tar at PATH holding ENTRIES (name, data) in order, as `shimctl cache export` writes one.
void write_archive(const std::string& path,
                   const std::vector<std::pair<std::string, std::string>>& entries) {
  std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(),
                                                            &archive_write_free);
  REQUIRE(archive_write_add_filter_zstd(a.get()) == ARCHIVE_OK);
  REQUIRE(archive_write_set_format_pax_restricted(a.get()) == ARCHIVE_OK);
  REQUIRE(archive_write_open_filename(a.get(), path.c_str()) == ARCHIVE_OK);
  for (const auto& [name, data] : entries) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(),
                                                                    &archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
    REQUIRE(archive_write_header(a.get(), e.get()) == ARCHIVE_OK);
    REQUIRE(archive_write_data(a.get(), data.data(), data.size()) ==
            static_cast<la_ssize_t>(data.size()));
  }
  REQUIRE(archive_write_close(a.get()) == ARCHIVE_OK);
}

CompileRecord record(std::int64_t time_ns, const std::string& output, const std::string& prefix) {
  CompileRecord r;
  r.time_ns = time_ns;
  r.tool = "ccache";
  r.prefix = prefix;
  r.cwd = "/build";
  r.output = output;
  r.source = "/src/a.hip";
  r.args = { "-c", "/src/a.hip", "-O3", "-o", output };
  r.store = "none";
  r.inputs_from = "source";
  return r;
}

const std::string header = R"({"format": 1})";

} // namespace

TEST_SUITE_BEGIN("records::archive_records");

TEST_CASE("an archive's records are read back newest first, each named by its entry") {
  auto dir = make_temp_dir();
  auto file = dir + "/ci.tar.zst";
  write_archive(file,
                { { "shimctl-cache.json", header },
                  { "ab/cdR", "a cache entry" },
                  { "shimctl-records/1.json", record_json(record(100, "/build/a.o", "/opt/r")) },
                  { "shimctl-records/2.json", record_json(record(300, "/build/b.o", "/opt/r")) },
                  { "shimctl-records/3.json", record_json(record(200, "/build/c.o", "/opt/r")) },
                  { "shimctl-cache.sha256", "" } });
  auto records = records_in_archive(file);
  REQUIRE(records);
  REQUIRE(records->size() == 3);
  CHECK((*records)[0].record.output == "/build/b.o");
  CHECK((*records)[0].path == file + ":shimctl-records/2.json");
  CHECK((*records)[1].record.output == "/build/c.o");
  CHECK((*records)[2].record.output == "/build/a.o");
  CHECK((*records)[2].record.args == record(100, "/build/a.o", "/opt/r").args);
}

TEST_CASE("an archive that cannot be read, or carries no records, is an error of one line") {
  auto dir = make_temp_dir();
  SUBCASE("no records: an archive from before records") {
    auto file = dir + "/old.tar.zst";
    write_archive(file,
                  { { "shimctl-cache.json", header },
                    { "ab/cdR", "a cache entry" },
                    { "shimctl-cache.sha256", "" } });
    auto records = records_in_archive(file);
    REQUIRE_FALSE(records);
    CHECK(records.error().code == shimctl::util::ExitCode::usage);
    CHECK(records.error().message ==
          file + " carries no compile records (exported before shimctl kept records, or nothing "
                 "missed there): export it again with this shimctl");
  }
  SUBCASE("missing") {
    auto records = records_in_archive(dir + "/none.tar.zst");
    REQUIRE_FALSE(records);
    CHECK(records.error().code == shimctl::util::ExitCode::usage);
    CHECK(records.error().message.starts_with("cannot read " + dir + "/none.tar.zst: "));
    CHECK(records.error().message.ends_with(": name a file made by 'shimctl cache export'"));
    CHECK(records.error().message.find('\n') == std::string::npos);
  }
  SUBCASE("not an archive") {
    write_text(dir + "/notes.txt", "hello\n");
    auto records = records_in_archive(dir + "/notes.txt");
    REQUIRE_FALSE(records);
    CHECK(records.error().code == shimctl::util::ExitCode::usage);
    CHECK(records.error().message.starts_with("cannot read " + dir + "/notes.txt: "));
    CHECK(records.error().message.ends_with(": name a file made by 'shimctl cache export'"));
  }
  SUBCASE("another tar") {
    auto file = dir + "/other.tar.zst";
    write_archive(file, { { "README", "hi" } });
    auto records = records_in_archive(file);
    REQUIRE_FALSE(records);
    CHECK(records.error().message ==
          "cannot read " + file +
            ": not a shimctl cache archive (its first entry is not shimctl-cache.json): name a "
            "file made by 'shimctl cache export'");
  }
  SUBCASE("a garbage record among good ones") {
    auto file = dir + "/bad.tar.zst";
    write_archive(file,
                  { { "shimctl-cache.json", header },
                    { "shimctl-records/1.json", record_json(record(100, "/b/a.o", "/opt/r")) },
                    { "shimctl-records/2.json", "{\"format\": \"shimctl-compile-rec" },
                    { "shimctl-cache.sha256", "" } });
    auto records = records_in_archive(file);
    REQUIRE_FALSE(records);
    CHECK(records.error().code == shimctl::util::ExitCode::usage);
    CHECK(records.error().message ==
          file + ":shimctl-records/2.json is not a compile record (cut short or garbage): remove "
                 "it, the next miss writes a new one");
  }
}

TEST_CASE("record entries are named shimctl-records/<digits>.json") {
  CHECK(is_archived_record("shimctl-records/1.json"));
  CHECK(is_archived_record("shimctl-records/1234567890.json"));
  CHECK_FALSE(is_archived_record("shimctl-records/.json"));
  CHECK_FALSE(is_archived_record("shimctl-records/1.json.tmp"));
  CHECK_FALSE(is_archived_record("shimctl-records/a/1.json"));
  CHECK_FALSE(is_archived_record("shimctl-records/../1.json"));
  CHECK_FALSE(is_archived_record("shimctl-recordsX/1.json"));
  CHECK_FALSE(is_archived_record("shimctl-records"));
  CHECK_FALSE(is_archived_record("ab/1.json"));
}

TEST_CASE("an export carries the newest record of each output of its prefix, bytes unchanged") {
  auto dir = make_temp_dir() + "/records";
  REQUIRE(write_record(dir, record(100, "/b/a.o", "/opt/r")));
  REQUIRE(write_record(dir, record(200, "/b/a.o", "/opt/r")));
  auto newest_b = write_record(dir, record(150, "/b/b.o", "/opt/r"));
  REQUIRE(newest_b);
  REQUIRE(write_record(dir, record(400, "/b/c.o", "/opt/other")));
  auto files = records_to_export(dir, "/opt/r");
  REQUIRE(files.size() == 2);
  CHECK(files[0].text == record_json(record(200, "/b/a.o", "/opt/r")));
  CHECK(files[1].path == *newest_b);
  CHECK(files[1].text == shimctl::test::read_text(*newest_b));
  CHECK(records_to_export(dir, "/opt/none").empty());
  CHECK(records_to_export("", "/opt/r").empty());
}
