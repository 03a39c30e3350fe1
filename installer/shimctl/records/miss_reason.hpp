// Why a compile missed: its record against the record before it (the same output here, or CI's
// record of it), the first difference named in one line. Nothing is guessed: no record before it
// says "first compile of this output here"; no difference and no evidence says "unknown" and what
// was compared.
#pragma once

#include <optional>
#include <shimctl/records/record_store.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::records {

enum class MissReason {
  first_compile, // no record of this output before it
  toolchain,     // the toolchain's identity (a compiler, a device library, ld.lld)
  gpu_targets,   // the GPU target set
  flags,         // the compiler's arguments
  environment,   // a variable that decides the output
  input_changed, // a header or the source
  checkout_path, // the compile names its place, and the place moved
  store_out,     // the same inputs; the team store was out
  evicted,       // the same inputs; the cache is at its limit
  unknown,       // the same inputs, and no evidence
  not_cacheable, // the cache tool ran the compile itself: a call it does not cache
};

[[nodiscard]] std::string_view reason_name(MissReason reason);

struct Difference {
  MissReason reason;
  std::string text;    // one line
  std::string subject; // the flag, file or variable behind it ("" none)
};

// Whose record the miss is compared with: this machine's earlier one, or CI's (an archive's).
enum class Against { earlier, archive };

// What differs from BEFORE to NOW, in the order explain names them (toolchain, GPU targets,
// flags, environment, inputs, the checkout's place). TOOLCHAINS: where the toolchains' files
// are kept (records_dir()), to name the file of a changed toolchain.
[[nodiscard]] std::vector<Difference> differences(const CompileRecord& before,
                                                  const CompileRecord& now,
                                                  const std::string& toolchains,
                                                  Against against);

// The record to compare MISS with: the newest of SAME_OUTPUT older than it (Against::earlier),
// else the newest of OTHERS with the same output name in its build tree and the same source name
// (another checkout or build directory).
[[nodiscard]] std::optional<StoredRecord> predecessor(const StoredRecord& miss,
                                                      const std::vector<StoredRecord>& same_output,
                                                      const std::vector<StoredRecord>& others,
                                                      Against against);

struct Explanation {
  MissReason reason = MissReason::unknown;
  std::string line;    // the reason in words
  std::string subject; // the flag or file behind it
  std::vector<Difference> differences;
  StoredRecord miss;
  std::optional<StoredRecord> before;
};

[[nodiscard]] Explanation explain_miss(const StoredRecord& miss,
                                       const std::optional<StoredRecord>& before,
                                       const std::string& toolchains,
                                       Against against);

// "14:02:11" (today) or "2026-12-04 14:02"
[[nodiscard]] std::string time_text(std::int64_t time_ns);

} // namespace shimctl::records
