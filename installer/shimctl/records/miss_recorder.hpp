// `shimctl record-miss STATE_DIR TOOL VERDICT IDENTITY SHIM -- ARGV...` (internal,
// shim/formats/miss_record.h):
// what the shim execs for a compile the cache tool missed. Runs the compile through SHIM (without
// SHIMCTL_RECORD), passes its end on, and when it succeeded writes the compile record: the
// arguments as the tool ran them, the working directory, the toolchain identity, the GPU target
// key, the environment that decides the output, the store's state and every input with its hash
// (from the depfile). Never fails a compile on its own account: a record it cannot write is
// skipped.
#pragma once

#include <optional>
#include <shimctl/records/compile_record.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::records {

// SHIMCTL_RECORD's fields (shim/formats/miss_record.h).
struct RecordVar {
  std::string store;
  std::string identity;   // "" unknown
  std::string target_key; // "" none
  std::string depfile;    // "" none
};
[[nodiscard]] std::optional<RecordVar> parse_record_var(std::string_view value);

// The prerequisites a Make-syntax depfile names (every rule's, in order, each once).
[[nodiscard]] std::vector<std::string> depfile_inputs(std::string_view text);

// The environment variables that decide a compiler's output (HIP_*, ROCM_*, CUDA_*, CPATH, ...).
[[nodiscard]] bool decides_output(std::string_view name);

// The record of the compile ARGV (argv[0] the compiler) that ran in the working directory, from
// VAR, the install's STATE_DIR and TOOL.
[[nodiscard]] CompileRecord record_of_compile(const RecordVar& var,
                                              const std::string& state_dir,
                                              const std::string& tool,
                                              const std::vector<std::string>& argv);

// argv: shimctl record-miss STATE_DIR TOOL VERDICT IDENTITY SHIM -- ARGV0 ARGS...
[[nodiscard]] int run_record_miss(int argc, char** argv);

} // namespace shimctl::records
