// Where a user's compile records live and how one finds its predecessor:
// <cache home>/shimctl/records/<key of the output>/<time ns>.json, the directory and its files
// the user's alone (0700/0600). Each output keeps its last records_per_output records; the whole
// store is kept under records_max_bytes and records_max_age_days (pruned now and then by a write).
// records/toolchains/<identity>.json: the files of a toolchain fingerprint with their hashes, so
// that a changed fingerprint can name the file that changed.
#pragma once

#include <map>
#include <optional>
#include <shimctl/records/compile_record.hpp>
#include <string>
#include <vector>

namespace shimctl::records {

inline constexpr std::size_t records_per_output = 3;
inline constexpr std::uint64_t records_max_bytes = 64ULL << 20;
inline constexpr int records_max_age_days = 30;

struct StoredRecord {
  std::string path; // the record's file
  CompileRecord record;
};

// The user's records directory (made nowhere); "" without a cache home.
[[nodiscard]] std::string records_dir();

// The directory name of OUTPUT's records (an absolute path).
[[nodiscard]] std::string output_key(const std::string& output);

// Writes RECORD under DIR (made 0700 where missing) and drops its output's oldest beyond
// records_per_output; returns the file's path.
[[nodiscard]] util::Result<std::string> write_record(const std::string& dir,
                                                     const CompileRecord& record);

// OUTPUT's records under DIR, newest first; an error when one of them cannot be read as a record.
[[nodiscard]] util::Result<std::vector<StoredRecord>> records_of_output(const std::string& dir,
                                                                        const std::string& output);

// The newest record of every output under DIR (unreadable ones left out), newest first.
[[nodiscard]] std::vector<StoredRecord> latest_records(const std::string& dir);

// The newest record of every output under DIR, newest first; an error naming the first that
// cannot be read.
[[nodiscard]] util::Result<std::vector<StoredRecord>> newest_records(const std::string& dir);

// Every record under DIR (unreadable ones left out).
[[nodiscard]] std::vector<StoredRecord> all_records(const std::string& dir);

// Removes records older than records_max_age_days, then the oldest until the store holds less
// than records_max_bytes (both: BYTES, AGE for tests).
void prune_records(const std::string& dir,
                   std::uint64_t bytes = records_max_bytes,
                   int age_days = records_max_age_days);

// A toolchain's files (path -> sha256) by its identity digits.
using ToolchainFiles = std::map<std::string, std::string>;
void save_toolchain_files(const std::string& dir,
                          const std::string& identity,
                          const ToolchainFiles& files);
[[nodiscard]] std::optional<ToolchainFiles> load_toolchain_files(const std::string& dir,
                                                                 const std::string& identity);

} // namespace shimctl::records
