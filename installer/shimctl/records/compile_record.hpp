// A compile record: what went into one compile that the cache tool missed, in a form that can be
// compared with another (`shimctl explain`). The shim has it written on a miss only
// (shim/formats/miss_record.h); a hit costs nothing.
#pragma once

#include <cstdint>
#include <map>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::records {

inline constexpr std::string_view record_format = "shimctl-compile-record";
inline constexpr int record_version = 1;

struct RecordInput {
  std::string path; // as the depfile names it (relative to the working directory, or absolute)
  std::string sha;  // the first 16 hex digits of its SHA-256; "" when it could not be read
  bool operator==(const RecordInput&) const = default;
};

struct CompileRecord {
  std::int64_t time_ns = 0;      // when the compile finished (CLOCK_REALTIME)
  std::string tool;              // ccache | sccache
  std::string prefix;            // the install's prefix
  std::string cwd;               // the working directory
  std::string output;            // absolute
  std::string source;            // absolute; "" when the call names none
  std::vector<std::string> args; // the compiler's arguments as the cache tool ran it (argv[1..])
  std::string identity;          // the toolchain fingerprint's digits in the key; "" unknown
  std::string target_key;        // the GPU target key; "" none
  std::map<std::string, std::string> env; // the compiler's environment that decides its output
  std::string store;                      // none | in | out (the team store at the time)
  std::vector<RecordInput> inputs;        // the source and what it included
  std::string inputs_from;                // depfile | source (no depfile: the source alone)
  std::string cache_dir;                  // the cache tool's directory, for an eviction's evidence
  std::string max_size;                   // its size limit as the environment set it; "" default
  bool tool_ran_it = false; // the tool ran the compiler in place: a call it does not cache
};

[[nodiscard]] std::string record_json(const CompileRecord& record);

// The record in TEXT (the file WHERE): an error naming WHERE when it is not one (garbage, cut
// short, another format) or is from a newer shimctl.
[[nodiscard]] util::Result<CompileRecord> parse_record(std::string_view text,
                                                       const std::string& where);

} // namespace shimctl::records
