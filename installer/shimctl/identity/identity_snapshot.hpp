// The identity snapshot, PREFIX/.shimctl/identity: the toolchain fingerprint
// with the stat data (inode, size, mtime, ctime) every input had when it was
// hashed. On each cached compile the shim compares that stat data (one
// fstatat per input) and, while nothing changed, keys the cache by the
// fingerprint (CCACHE_COMPILERCHECK=string:shimctl-<fingerprint>). Anything
// different (new bytes, a replaced file, a touch) makes it run
// `shimctl identity-check`, which re-hashes the inputs, rewrites the snapshot
// and prints the fingerprint of the bytes as they are now: a touched
// toolchain keeps its fingerprint (and its hits), a changed one gets a new one.
//
// The snapshot is a cache, not state: a missing or stale one costs a re-hash.
// Format: shim/formats.h (written with its renderers, read by the shim's
// shim/identity_snapshot.c and by parse_identity_snapshot below).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <shim/formats.h>
#include <shimctl/core/context.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

using core::identity_snapshot_file;

struct InputStat {
  std::string path; // absolute
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::uint64_t mtime_ns = 0;
  std::uint64_t ctime_ns = 0;
  bool operator==(const InputStat&) const = default;
};

// stat(2) of the input at PATH (absolute; symlinks followed).
[[nodiscard]] util::Result<InputStat> stat_input(const std::string& path);

// stat(2) of PREFIX/FILE for each FILE (symlinks followed, as the compiler
// and the hashing follow them).
[[nodiscard]] util::Result<std::vector<InputStat>> stat_inputs(
  const std::string& prefix,
  const std::vector<std::string>& files);

// Stat data vouch for a file's bytes only if no change can have happened in
// the same timestamp tick as the stat (it would leave them equal: git's
// "racily clean" entries). Such a change happens at most one tick after the
// stat, so hashing that starts a tick later sees it. RACY_MARGIN is the tick,
// guessed from the ctime (mtime can be set by anyone, ctime cannot);
// racy_wait is how long to wait after a stat at NOW_NS before hashing: the
// largest margin of an input whose ctime is that recent (or in the future).
[[nodiscard]] std::chrono::nanoseconds racy_margin(const InputStat& input);
[[nodiscard]] std::chrono::nanoseconds racy_wait(const std::vector<InputStat>& inputs,
                                                 std::uint64_t now_ns);

[[nodiscard]] std::string render_identity_snapshot(const std::string& fingerprint,
                                                   const std::vector<InputStat>& inputs);

struct SnapshotResult {
  std::string fingerprint;     // of the inputs' bytes as they are now
  bool written = false;        // false: an input changed while it was hashed, or no permission
  std::string why_not;         // when not written
  bool steady = false;         // no input changed while it was hashed
  std::vector<InputStat> stat; // the inputs' stat data, when steady
  std::vector<core::IdentityInput> inputs; // the files hashed, with their hashes
};

enum class SnapshotWriter {
  lock_holder, // install, refresh: the caller holds the prefix lock
  bystander,   // the shim's helper: writes only under the prefix lock taken at once, and only
               // while the manifest exists (never waits for, nor races, a shimctl command)
};

// Hashes the manifest's identity inputs as they are now and writes the
// snapshot into PREFIX_DIR's state directory, unless an input changed while
// it was being hashed (its stat data before and after differ). Between the
// first stat and the hashing it waits racy_wait. A bystander
// passes the stat data the manifest file had before it was read: the
// snapshot is written only while it still has them.
[[nodiscard]] util::Result<SnapshotResult> snapshot_identity(
  const util::Dir& prefix_dir,
  const core::Manifest& manifest,
  SnapshotWriter writer,
  const std::optional<InputStat>& manifest_read = std::nullopt);

struct ParsedSnapshot {
  std::string fingerprint;
  std::vector<InputStat> inputs;
};

// TEXT as render_identity_snapshot writes it; nullopt for anything else.
[[nodiscard]] std::optional<ParsedSnapshot> parse_identity_snapshot(std::string_view text);

// PREFIX/.shimctl/identity, parsed; nullopt when missing or malformed.
[[nodiscard]] std::optional<ParsedSnapshot> read_identity_snapshot(const std::string& prefix);

// The snapshot as the shim sees it now (for `status`).
struct SnapshotState {
  bool present = false;                  // false: missing or malformed
  std::string fingerprint;               // what compiles are keyed by while it is current
  std::vector<std::string> stale_inputs; // inputs whose stat data differ: each makes it stale
};

[[nodiscard]] SnapshotState snapshot_state(const core::Manifest& manifest);

// The stat data of the inputs the snapshot in PREFIX/.shimctl vouches for:
// the ones of MANIFEST's fingerprint, when the snapshot holds that very
// fingerprint (an input whose stat data still match has the bytes the
// manifest records). Empty when there is no such snapshot.
[[nodiscard]] std::vector<InputStat> vouched_inputs(const core::Manifest& manifest);

// After install, refresh and adopt: writes the snapshot; a problem is only
// reported (the first compile then re-hashes through the helper).
void record_identity_snapshot(const core::Context& context,
                              const util::Dir& prefix_dir,
                              const core::Manifest& manifest);

} // namespace shimctl::identity
