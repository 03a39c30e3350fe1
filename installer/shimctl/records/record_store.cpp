#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <shim/formats.h>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/records/record_store.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::records {

namespace fs = std::filesystem;
using util::fail;

namespace {

constexpr std::string_view toolchains_name = "toolchains";

bool is_record_name(const std::string& name) {
  return name.ends_with(".json") && util::all_digits(name.substr(0, name.size() - 5));
}

// The record files of one output's directory, newest first (their names are times).
std::vector<fs::path> record_files(const fs::path& output_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(output_dir, ec))
    if (is_record_name(entry.path().filename().string()))
      files.push_back(entry.path());
  std::ranges::sort(files, [](const fs::path& a, const fs::path& b) {
    auto an = a.filename().string(), bn = b.filename().string();
    return an.size() != bn.size() ? an.size() > bn.size() : an > bn;
  });
  return files;
}

util::Result<StoredRecord> read_record(const fs::path& file) {
  std::string text = util::read_text_file(file.string());
  TRY_ASSIGN(auto record, parse_record(text, file.string()));
  return StoredRecord{ file.string(), std::move(record) };
}

util::Status make_private_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fail("cannot make {}: {}", dir, util::errno_text(errno));
  return {};
}

bool write_private_file(const std::string& path, std::string_view text) {
  std::string tmp = fmt::format("{}.{}.tmp", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return false;
  bool written = util::write_all(fd, text);
  written = ::close(fd) == 0 && written;
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    (void)::unlink(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace

std::string records_dir() {
  return core::user_cache_dir("records");
}

std::string output_key(const std::string& output) {
  return util::sha256_hex(output).substr(0, 24);
}

util::Result<std::string> write_record(const std::string& dir, const CompileRecord& record) {
  TRY(make_private_dir(dir));
  std::string output_dir = fmt::format("{}/{}", dir, output_key(record.output));
  TRY(make_private_dir(output_dir));
  std::string path = fmt::format("{}/{}.json", output_dir, record.time_ns);
  if (!write_private_file(path, record_json(record)))
    return fail("cannot write {}: {}", path, util::errno_text(errno));
  auto files = record_files(output_dir);
  for (std::size_t i = records_per_output; i < files.size(); ++i) {
    std::error_code ec;
    fs::remove(files[i], ec);
  }
  return path;
}

util::Result<std::vector<StoredRecord>> records_of_output(const std::string& dir,
                                                          const std::string& output) {
  std::vector<StoredRecord> records;
  for (const auto& file : record_files(fmt::format("{}/{}", dir, output_key(output)))) {
    TRY_ASSIGN(auto record, read_record(file));
    records.push_back(std::move(record));
  }
  return records;
}

namespace {

template<typename Take>
std::vector<StoredRecord> collect(const std::string& dir, Take take_from) {
  std::vector<StoredRecord> records;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec) || entry.path().filename() == toolchains_name)
      continue;
    take_from(record_files(entry.path()), records);
  }
  std::ranges::sort(records, [](const StoredRecord& a, const StoredRecord& b) {
    return a.record.time_ns > b.record.time_ns;
  });
  return records;
}

} // namespace

std::vector<StoredRecord> latest_records(const std::string& dir) {
  return collect(dir, [](const std::vector<fs::path>& files, std::vector<StoredRecord>& out) {
    for (const auto& file : files)
      if (auto record = read_record(file)) {
        out.push_back(std::move(*record));
        return;
      }
  });
}

util::Result<std::vector<StoredRecord>> newest_records(const std::string& dir) {
  std::optional<util::Error> problem;
  auto records =
    collect(dir, [&](const std::vector<fs::path>& files, std::vector<StoredRecord>& out) {
      if (files.empty())
        return;
      auto record = read_record(files.front());
      if (record)
        out.push_back(std::move(*record));
      else if (!problem)
        problem = record.error();
    });
  if (problem)
    return std::unexpected(*problem);
  return records;
}

std::vector<StoredRecord> all_records(const std::string& dir) {
  return collect(dir, [](const std::vector<fs::path>& files, std::vector<StoredRecord>& out) {
    for (const auto& file : files)
      if (auto record = read_record(file))
        out.push_back(std::move(*record));
  });
}

void prune_records(const std::string& dir, std::uint64_t bytes, int age_days) {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    std::uint64_t size;
  };
  std::vector<Entry> entries;
  std::error_code ec;
  for (const auto& sub : fs::directory_iterator(dir, ec)) {
    if (!sub.is_directory(ec) || sub.path().filename() == toolchains_name)
      continue;
    for (const auto& file : fs::directory_iterator(sub.path(), ec))
      entries.push_back({ file.path(), file.last_write_time(ec), file.file_size(ec) });
  }
  std::ranges::sort(entries, [](const Entry& a, const Entry& b) { return a.time < b.time; });
  auto oldest_kept = fs::file_time_type::clock::now() - std::chrono::hours(24 * age_days);
  std::uint64_t total = 0;
  for (const auto& e : entries)
    total += e.size;
  for (const auto& e : entries) {
    if (e.time >= oldest_kept && total < bytes)
      break;
    fs::remove(e.path, ec);
    total -= e.size;
  }
  for (const auto& sub : fs::directory_iterator(dir, ec))
    if (sub.is_directory(ec) && sub.path().filename() != toolchains_name)
      fs::remove(sub.path(), ec); // only when empty
}

void save_toolchain_files(const std::string& dir,
                          const std::string& identity,
                          const ToolchainFiles& files) {
  if (identity.empty() || !util::is_plain_name(identity) || !make_private_dir(dir) ||
      !make_private_dir(fmt::format("{}/{}", dir, toolchains_name)))
    return;
  (void)write_private_file(fmt::format("{}/{}/{}.json", dir, toolchains_name, identity),
                           nlohmann::json(files).dump());
}

std::optional<ToolchainFiles> load_toolchain_files(const std::string& dir,
                                                   const std::string& identity) {
  if (identity.empty() || !util::is_plain_name(identity))
    return std::nullopt;
  auto j = nlohmann::json::parse(
    util::read_text_file(fmt::format("{}/{}/{}.json", dir, toolchains_name, identity)),
    nullptr,
    false);
  if (j.is_discarded() || !j.is_object())
    return std::nullopt;
  try {
    return j.get<ToolchainFiles>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

} // namespace shimctl::records
