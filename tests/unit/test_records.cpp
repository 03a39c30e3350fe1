// Compile records (records/): the depfile's inputs, a record's file format, the store that keeps
// them per output and bounded, the size limits ccache and sccache read, and the remembered hashes.
#include "temp_dir.hpp"

#include <chrono>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/records/compile_record.hpp>
#include <shimctl/records/file_hashes.hpp>
#include <shimctl/records/miss_recorder.hpp>
#include <shimctl/records/record_store.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <thread>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace {

namespace fs = std::filesystem;

using Inputs = std::vector<std::string>;

records::CompileRecord sample_record() {
  records::CompileRecord r;
  r.time_ns = 1'700'000'000'123'456'789;
  r.tool = "ccache";
  r.prefix = "/opt/rocm";
  r.cwd = "/home/a/proj/build";
  r.output = "/home/a/proj/build/foo.o";
  r.source = "/home/a/proj/src/foo.cpp";
  r.args = { "-O2", "-DFOO=1", "-c", "../src/foo.cpp", "-o", "foo.o" };
  r.identity = "0123456789abcdef0123456789abcdef";
  r.target_key = ";HCC_AMDGPU_TARGET=gfx90a";
  r.env = { { "HIP_PLATFORM", "amd" }, { "ROCM_PATH", "/opt/rocm" } };
  r.store = "in";
  r.inputs = { { "../src/foo.cpp", "3f2a000011112222" },
               { "../include/foo.h", "91bc333344445555" } };
  r.inputs_from = "depfile";
  r.cache_dir = "/home/a/.cache/ccache";
  r.max_size = "5G";
  return r;
}

void check_not_a_record(const util::Result<records::CompileRecord>& parsed,
                        const std::string& message) {
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message == message);
  CHECK(parsed.error().code == util::ExitCode::usage);
}

std::string garbage_message(const std::string& where) {
  return fmt::format("{} is not a compile record (cut short or garbage): remove it, the next miss "
                     "writes a new one",
                     where);
}

std::string wrong_type_message(const std::string& where) {
  return fmt::format("{} is not a compile record (a field of the wrong type): remove it, the next "
                     "miss writes a new one",
                     where);
}

// A record of OUTPUT at TIME (ns).
records::CompileRecord record_at(const std::string& output, std::int64_t time) {
  auto r = sample_record();
  r.output = output;
  r.time_ns = time;
  return r;
}

void set_mtime(const std::string& path, std::chrono::system_clock::time_point when) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
  struct timespec times[2] = { { ns / 1'000'000'000, ns % 1'000'000'000 },
                               { ns / 1'000'000'000, ns % 1'000'000'000 } };
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string sha16(const std::string& text) {
  return util::sha256_hex(text).substr(0, 16);
}

} // namespace

TEST_SUITE_BEGIN("records::depfile_inputs");

TEST_CASE("depfile_inputs: one rule, continuations, each input once") {
  CHECK(records::depfile_inputs("foo.o: ../src/foo.cpp ../include/foo.h\n") ==
        Inputs{ "../src/foo.cpp", "../include/foo.h" });
  CHECK(records::depfile_inputs("foo.o: ../src/foo.cpp \\\n  ../include/foo.h \\\n  /usr/include/"
                                "stdio.h\n") ==
        Inputs{ "../src/foo.cpp", "../include/foo.h", "/usr/include/stdio.h" });
  SUBCASE("a continuation without a space before it") {
    CHECK(records::depfile_inputs("foo.o: a.cpp\\\n b.h\n") == Inputs{ "a.cpp", "b.h" });
  }
  SUBCASE("no newline at the end") {
    CHECK(records::depfile_inputs("foo.o: a.cpp b.h") == Inputs{ "a.cpp", "b.h" });
  }
  SUBCASE("tabs") {
    CHECK(records::depfile_inputs("foo.o:\ta.cpp\tb.h\n") == Inputs{ "a.cpp", "b.h" });
  }
  SUBCASE("empty") {
    CHECK(records::depfile_inputs("").empty());
    CHECK(records::depfile_inputs("foo.o:\n").empty());
  }
}

TEST_CASE("depfile_inputs: escaped spaces, hashes and dollars are part of a name") {
  CHECK(records::depfile_inputs("foo.o: my\\ dir/a\\ b.h c.h\n") ==
        Inputs{ "my dir/a b.h", "c.h" });
  CHECK(records::depfile_inputs("foo.o: x\\#1.h $$HOME.h\n") == Inputs{ "x#1.h", "$HOME.h" });
  SUBCASE("an escaped space in the target") {
    CHECK(records::depfile_inputs("my\\ foo.o: a.cpp\n") == Inputs{ "a.cpp" });
  }
}

TEST_CASE("depfile_inputs: several rules (-MP's phony ones), duplicates named once") {
  std::string text = "foo.o: a.cpp b.h \\\n c.h\n"
                     "b.h:\n"
                     "c.h:\n"
                     "bar.o: a.cpp d.h b.h\n";
  CHECK(records::depfile_inputs(text) == Inputs{ "a.cpp", "b.h", "c.h", "d.h" });
  CHECK(records::depfile_inputs("foo.o: a.cpp b.h a.cpp b.h\n") == Inputs{ "a.cpp", "b.h" });
  SUBCASE("the targets are never inputs") {
    CHECK(records::depfile_inputs("foo.o foo.d: a.cpp\n") == Inputs{ "a.cpp" });
  }
}

TEST_CASE("depfile_inputs: CRLF line ends") {
  CHECK(records::depfile_inputs("foo.o: a.cpp \\\r\n  b.h\r\nb.h:\r\n") ==
        Inputs{ "a.cpp", "b.h" });
  CHECK(records::depfile_inputs("foo.o: a.cpp\r\nbar.o: c.h\r\n") == Inputs{ "a.cpp", "c.h" });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::CompileRecord");

TEST_CASE("parse_record reads back what record_json wrote") {
  auto r = sample_record();
  auto text = records::record_json(r);
  CHECK(text.ends_with("\n"));
  CHECK(text.find('\n') == text.size() - 1); // one line
  auto parsed = records::parse_record(text, "/r/1.json");
  REQUIRE(parsed);
  CHECK(parsed->time_ns == r.time_ns);
  CHECK(parsed->tool == r.tool);
  CHECK(parsed->prefix == r.prefix);
  CHECK(parsed->cwd == r.cwd);
  CHECK(parsed->output == r.output);
  CHECK(parsed->source == r.source);
  CHECK(parsed->args == r.args);
  CHECK(parsed->identity == r.identity);
  CHECK(parsed->target_key == r.target_key);
  CHECK(parsed->env == r.env);
  CHECK(parsed->store == r.store);
  CHECK(parsed->inputs == r.inputs);
  CHECK(parsed->inputs_from == r.inputs_from);
  CHECK(parsed->cache_dir == r.cache_dir);
  CHECK(parsed->max_size == r.max_size);
  SUBCASE("empty fields stay empty") {
    records::CompileRecord bare;
    bare.output = "/b/x.o";
    auto back = records::parse_record(records::record_json(bare), "/r/2.json");
    REQUIRE(back);
    CHECK(back->output == "/b/x.o");
    CHECK(back->args.empty());
    CHECK(back->inputs.empty());
    CHECK(back->identity.empty());
  }
}

TEST_CASE("parse_record: garbage and a record cut short say so, exit 2") {
  check_not_a_record(records::parse_record("", "/r/1.json"), garbage_message("/r/1.json"));
  check_not_a_record(records::parse_record("\x7f"
                                           "ELF\x01\x02",
                                           "/r/1.json"),
                     garbage_message("/r/1.json"));
  check_not_a_record(records::parse_record("[1, 2]", "/r/1.json"), garbage_message("/r/1.json"));
  check_not_a_record(records::parse_record(R"({"format": "something-else", "version": 1})", "w"),
                     garbage_message("w"));
  check_not_a_record(records::parse_record(R"({"format": "shimctl-compile-record"})", "w"),
                     garbage_message("w"));
  check_not_a_record(
    records::parse_record(R"({"format": "shimctl-compile-record", "version": "1"})", "w"),
    garbage_message("w"));
  auto text = records::record_json(sample_record());
  for (std::size_t cut : { text.size() - 2, text.size() / 2, std::size_t{ 1 } })
    check_not_a_record(records::parse_record(text.substr(0, cut), "/r/cut.json"),
                       garbage_message("/r/cut.json"));
}

TEST_CASE("parse_record: a record from a newer shimctl names both formats") {
  auto j = records::record_json(sample_record());
  auto at = j.find(R"("version":1)");
  REQUIRE(at != std::string::npos);
  j.replace(at, 11, R"("version":2)");
  check_not_a_record(records::parse_record(j, "/r/9.json"),
                     "/r/9.json is a compile record of format 2, newer than this shimctl's 1: use "
                     "the shimctl that wrote it, or remove it");
  SUBCASE("even when its other fields are not ones this shimctl knows") {
    check_not_a_record(
      records::parse_record(R"({"format": "shimctl-compile-record", "version": 2, "args": 5})",
                            "/r/9.json"),
      "/r/9.json is a compile record of format 2, newer than this shimctl's 1: use the shimctl "
      "that wrote it, or remove it");
  }
}

TEST_CASE("parse_record: a field of the wrong type, or no output") {
  std::string head = R"({"format": "shimctl-compile-record", "version": 1, "output": "/b/x.o", )";
  for (std::string field : { R"("args": "-O2"})",
                             R"("args": [1, 2]})",
                             R"("time_ns": "now"})",
                             R"("env": ["HIP_PLATFORM"]})",
                             R"("inputs": [["abc"]]})",
                             R"("inputs": [[1, 2]]})",
                             R"("inputs": 5})",
                             R"("tool": null})" }) {
    CAPTURE(field);
    check_not_a_record(records::parse_record(head + field, "/r/t.json"),
                       wrong_type_message("/r/t.json"));
  }
  check_not_a_record(
    records::parse_record(R"({"format": "shimctl-compile-record", "version": 1})", "/r/o.json"),
    "/r/o.json is not a compile record (no output): remove it");
  check_not_a_record(
    records::parse_record(R"({"format": "shimctl-compile-record", "version": 1, "output": "x.o"})",
                          "/r/o.json"),
    "/r/o.json is not a compile record (no output): remove it");
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::parse_size");

TEST_CASE("parse_size reads ccache's and sccache's sizes") {
  CHECK(records::parse_size("5G") == 5'000'000'000ULL);
  CHECK(records::parse_size("5GB") == 5'000'000'000ULL);
  CHECK(records::parse_size("500M") == 500'000'000ULL);
  CHECK(records::parse_size("64k") == 64'000ULL);
  CHECK(records::parse_size("64K") == 64'000ULL);
  CHECK(records::parse_size("2T") == 2'000'000'000'000ULL);
  CHECK(records::parse_size("1.5Gi") == 1'610'612'736ULL);
  CHECK(records::parse_size("1GiB") == 1'073'741'824ULL);
  CHECK(records::parse_size("1Mi") == 1'048'576ULL);
  CHECK(records::parse_size("10") == 10'000'000'000ULL); // ccache: no suffix is G
  CHECK(records::parse_size("0") == 0ULL);
  CHECK(records::parse_size("5G  ") == 5'000'000'000ULL);
}

TEST_CASE("parse_size: not a size") {
  for (const char* bad :
       { "", " ", "G", "abc", "-1G", "5X", "5 G", "5GG", "inf", "nan", "1e30T" }) {
    CAPTURE(bad);
    CHECK_FALSE(records::parse_size(bad));
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::RecordStore");

TEST_CASE("write_record: private files under the output's key, the last records_per_output kept") {
  auto dir = make_temp_dir() + "/records";
  std::string output = "/home/a/proj/build/foo.o";
  for (std::int64_t t = 1; t <= 5; ++t) {
    auto path = records::write_record(dir, record_at(output, t * 1000));
    REQUIRE(path);
    CHECK(*path == fmt::format("{}/{}/{}.json", dir, records::output_key(output), t * 1000));
  }
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(dir + "/" + records::output_key(output)) == 0700);
  auto kept = records::records_of_output(dir, output);
  REQUIRE(kept);
  REQUIRE(kept->size() == records::records_per_output);
  CHECK((*kept)[0].record.time_ns == 5000);
  CHECK((*kept)[1].record.time_ns == 4000);
  CHECK((*kept)[2].record.time_ns == 3000);
  for (const auto& r : *kept)
    CHECK(mode_of(r.path) == 0600);
  SUBCASE("newest by time, not by name (10000 after 9000)") {
    REQUIRE(records::write_record(dir, record_at(output, 9000)));
    REQUIRE(records::write_record(dir, record_at(output, 10000)));
    auto now = records::records_of_output(dir, output);
    REQUIRE(now);
    REQUIRE(now->size() == 3);
    CHECK(now->front().record.time_ns == 10000);
    CHECK(now->back().record.time_ns == 5000);
  }
  SUBCASE("another output keeps its own") {
    REQUIRE(records::write_record(dir, record_at("/home/a/proj/build/bar.o", 7000)));
    CHECK(records::records_of_output(dir, output)->size() == 3);
    CHECK(records::records_of_output(dir, "/home/a/proj/build/bar.o")->size() == 1);
    auto latest = records::latest_records(dir);
    REQUIRE(latest.size() == 2);
    CHECK(latest[0].record.output == "/home/a/proj/build/bar.o");
    CHECK(latest[1].record.time_ns == 5000);
    CHECK(records::all_records(dir).size() == 4);
  }
  SUBCASE("an output never compiled has no records") {
    auto none = records::records_of_output(dir, "/nowhere.o");
    REQUIRE(none);
    CHECK(none->empty());
  }
}

TEST_CASE("records_of_output: a record that cannot be read is an error naming it") {
  auto dir = make_temp_dir() + "/records";
  std::string output = "/b/x.o";
  REQUIRE(records::write_record(dir, record_at(output, 100)));
  auto bad = fmt::format("{}/{}/200.json", dir, records::output_key(output));
  write_text(bad, "{\"format\": \"shimctl-compile");
  auto read = records::records_of_output(dir, output);
  REQUIRE_FALSE(read);
  CHECK(read.error().message == garbage_message(bad));
  CHECK(read.error().code == util::ExitCode::usage);
  // the listing of every output leaves it out
  auto latest = records::latest_records(dir);
  REQUIRE(latest.size() == 1);
  CHECK(latest[0].record.time_ns == 100);
}

TEST_CASE("prune_records: by age, then the oldest until under the byte bound") {
  auto dir = make_temp_dir() + "/records";
  auto now = std::chrono::system_clock::now();
  std::vector<std::string> paths;
  const int hours_old[] = { 96, 72, 30, 10 };
  for (int i = 0; i < 4; ++i) {
    auto path = records::write_record(dir, record_at(fmt::format("/b/{}.o", i), 100 + i));
    REQUIRE(path);
    paths.push_back(*path);
    set_mtime(*path, now - std::chrono::hours(hours_old[i]));
  }
  records::save_toolchain_files(dir, "0123456789abcdef0123456789abcdef", { { "bin/clang", "aa" } });
  auto toolchain_file = dir + "/toolchains/0123456789abcdef0123456789abcdef.json";
  REQUIRE(fs::exists(toolchain_file));
  set_mtime(toolchain_file, now - std::chrono::hours(24 * 400));

  SUBCASE("nothing over the bounds: nothing goes") {
    records::prune_records(dir);
    for (const auto& p : paths)
      CHECK(fs::exists(p));
  }
  SUBCASE("by age") {
    records::prune_records(dir, records::records_max_bytes, 2); // older than 2 days go
    CHECK_FALSE(fs::exists(paths[0]));
    CHECK_FALSE(fs::exists(paths[1]));
    CHECK(fs::exists(paths[2]));
    CHECK(fs::exists(paths[3]));
    // their outputs' directories, empty now, go too
    CHECK_FALSE(fs::exists(fs::path(paths[0]).parent_path()));
    CHECK(records::all_records(dir).size() == 2);
  }
  SUBCASE("by bytes: the oldest first, until less than the bound is held") {
    auto one = fs::file_size(paths[0]);
    records::prune_records(dir, 2 * one + 1, 30);
    CHECK_FALSE(fs::exists(paths[0]));
    CHECK_FALSE(fs::exists(paths[1]));
    CHECK(fs::exists(paths[2]));
    CHECK(fs::exists(paths[3]));
  }
  SUBCASE("a bound of 0 empties it") {
    records::prune_records(dir, 0, 30);
    CHECK(records::all_records(dir).empty());
  }
  // the toolchains' file lists are not records
  CHECK(fs::exists(toolchain_file));
  CHECK(records::load_toolchain_files(dir, "0123456789abcdef0123456789abcdef") ==
        records::ToolchainFiles{ { "bin/clang", "aa" } });
}

TEST_CASE("save_toolchain_files and load_toolchain_files") {
  auto dir = make_temp_dir() + "/records";
  records::ToolchainFiles files{ { "lib/llvm/bin/ld.lld", "11" }, { "bin/hipcc", "22" } };
  records::save_toolchain_files(dir, "abcd", files);
  CHECK(records::load_toolchain_files(dir, "abcd") == files);
  CHECK(mode_of(dir + "/toolchains/abcd.json") == 0600);
  CHECK_FALSE(records::load_toolchain_files(dir, "other"));
  CHECK_FALSE(records::load_toolchain_files(dir, ""));
  SUBCASE("an identity that is not a plain name is neither written nor read") {
    records::save_toolchain_files(dir, "../escape", files);
    CHECK_FALSE(fs::exists(dir + "/escape.json"));
    CHECK_FALSE(records::load_toolchain_files(dir, "../escape"));
  }
  SUBCASE("a damaged list is no list") {
    write_text(dir + "/toolchains/abcd.json", "{\"bin/hipcc\": 5}");
    CHECK_FALSE(records::load_toolchain_files(dir, "abcd"));
    write_text(dir + "/toolchains/abcd.json", "{\"bin/hip");
    CHECK_FALSE(records::load_toolchain_files(dir, "abcd"));
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::FileHashes");

TEST_CASE("FileHashes hashes a file, and an unreadable one is \"\"") {
  auto dir = make_temp_dir();
  write_text(dir + "/a.h", "int a;\n");
  records::FileHashes hashes(dir + "/memo");
  CHECK(hashes.hash(dir + "/a.h") == sha16("int a;\n"));
  CHECK(hashes.hash(dir + "/missing.h").empty());
  SUBCASE("a file just written is not remembered (its stat data could stay the same)") {
    hashes.save();
    CHECK_FALSE(fs::exists(dir + "/memo"));
  }
}

TEST_CASE("FileHashes uses a remembered hash while the stat data match, re-hashes a changed file") {
  auto dir = make_temp_dir();
  auto file = dir + "/a.h";
  write_text(file, "int a;\n");
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  auto ns = [](const struct timespec& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  };
  // A memo line as save() writes it, with a hash that is not the file's: proof it is used.
  write_text(dir + "/memo",
             fmt::format("{} {} {} {} {} {}\n",
                         st.st_ino,
                         st.st_size,
                         ns(st.st_mtim),
                         ns(st.st_ctim),
                         "feedfacefeedface",
                         file));
  {
    records::FileHashes hashes(dir + "/memo");
    CHECK(hashes.hash(file) == "feedfacefeedface");
  }
  write_text(file, "int bb;\n"); // new size and mtime
  {
    records::FileHashes hashes(dir + "/memo");
    CHECK(hashes.hash(file) == sha16("int bb;\n"));
  }
  SUBCASE("a memo cut short or damaged is read as far as it goes") {
    write_text(dir + "/memo", "garbage\n1 2 3\n" + read_text(dir + "/memo").substr(0, 10));
    records::FileHashes hashes(dir + "/memo");
    CHECK(hashes.hash(file) == sha16("int bb;\n"));
  }
}

TEST_CASE("FileHashes: save writes what it remembered, a new instance reads it back") {
  auto dir = make_temp_dir();
  auto file = dir + "/old.h";
  write_text(file, "old\n");
  // Remembered only once the file has been still for two seconds (mtime and ctime).
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  {
    records::FileHashes hashes(dir + "/memo");
    CHECK(hashes.hash(file) == sha16("old\n"));
    hashes.save();
  }
  REQUIRE(fs::exists(dir + "/memo"));
  CHECK(mode_of(dir + "/memo") == 0600);
  auto memo = read_text(dir + "/memo");
  CHECK(memo.ends_with(" " + sha16("old\n") + " " + file + "\n"));
  {
    records::FileHashes hashes(dir + "/memo");
    CHECK(hashes.hash(file) == sha16("old\n"));
    hashes.save(); // nothing new: the memo stays as it was
  }
  CHECK(read_text(dir + "/memo") == memo);
  write_text(file, "newer\n");
  records::FileHashes hashes(dir + "/memo");
  CHECK(hashes.hash(file) == sha16("newer\n"));
}

TEST_SUITE_END();
