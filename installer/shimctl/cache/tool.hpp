// A cache tool the shim hands compiles to. Everything that differs between
// ccache and sccache is behind this interface: the shim's environment, the
// secrets file's lines for a remote, the remote URL forms it honours, its
// statistics and cache location, how a verification compile proves a hit,
// what it supports (CI archives, a group-shared cache, remote checks) and
// what rollback stops. The implementations are picked from one table
// (tool_table.cpp) by the manifest's cache.kind, as ccache picks its remote storage
// backends from the table in its storage/storage.cpp. No code outside the
// implementations compares a tool's name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shimctl/cache/build_watch.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/util/error.hpp>
#include <shimctl/util/process.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::cache {

struct ShimEnvironment {
  std::vector<std::string> defaults; // NAME=VALUE, applied where NAME is unset
  std::vector<std::string> appends;  // NAME=VALUE, appended with ':' to NAME
  // NAME=VALUE lines of the prefix's secrets file (secrets.hpp), where a caller
  // read them: never rendered into a config; they win over DEFAULTS.
  std::vector<std::string> secrets;
  // ccache: the shim keys the cache by the identity snapshot and asks this
  // shimctl to re-check a stale one (identity/identity_snapshot.hpp).
  std::string identity_helper;
  // The shimctl that builds a HIP object from per-target pieces on a miss (pieces/).
  std::string pieces_helper;
  // sccache: each user's own server for this configuration (sccache_server.hpp):
  // transport (SHIMCTL_SCCACHE_UNIX or _TCP) and key; empty for ccache.
  std::string sccache_transport;
  std::string sccache_key;
  // The team store whose health the shim keeps for each user (store_health.hpp): the store
  // line's probe and address; empty without a remote it can ask.
  std::string store_probe;
  std::string store_address;
};

// Counters of the cache the tool uses under an environment, named as the tool
// names them (ccache: direct_cache_hit, cache_miss, ...; sccache: cache_hits,
// cache_misses, compile_requests, not_cached:<reason>, ...), and its hits and
// misses as the tool's Tool::read_stats counts them (ccache: direct plus
// preprocessed hits; sccache: every language's).
struct CacheStats {
  std::map<std::string, std::uint64_t> counters;
  std::uint64_t hit_count = 0;
  std::uint64_t miss_count = 0;
  [[nodiscard]] std::uint64_t get(const std::string& name) const;
  [[nodiscard]] std::uint64_t hits() const {
    return hit_count;
  }
  [[nodiscard]] std::uint64_t misses() const {
    return miss_count;
  }
};

// Whether one compile was served from the cache, by the tool's own evidence.
struct HitVerdict {
  enum class Kind { hit, miss, declined }; // declined: the tool does not cache this compile
  Kind kind = Kind::miss;
  std::string evidence; // "ccache's log", "sccache statistics delta"
  std::string why;      // miss, declined: the tool's reasons ("" when it gives none)
};

// Watches one compile: WATCH adds to its environment what the tool needs to
// tell (a debug log), VERDICT reads the evidence after it ran.
class HitWitness {
public:
  virtual ~HitWitness() = default;
  virtual void watch(util::RunOptions& compile) = 0;
  [[nodiscard]] virtual HitVerdict verdict() = 0;
};

// What a remote store did for one compile with an empty local cache (verify's remote check).
struct RemoteOutcome {
  std::uint64_t hits = 0;         // results read from the remote
  std::uint64_t read_errors = 0;  // the remote failed or refused a read (or a connection)
  std::uint64_t write_errors = 0; // the remote failed or refused a write
  std::string refused;            // the tool would not use the remote at all: its words
};

// One compile of verify's remote check: RemoteRound prepares its options (an empty local cache
// of its own, and for sccache a server of its own), OUTCOME reads what the remote did after it
// ran; the destructor stops what it started.
class RemoteRound {
public:
  virtual ~RemoteRound() = default;
  // Before the compile: why the tool will not use the remote at all ("" when it will).
  [[nodiscard]] virtual std::string refusal() const {
    return {};
  }
  [[nodiscard]] virtual RemoteOutcome outcome() = 0;
};

// The files of a run's entries in the local cache (Tool::logged_entries).
struct LoggedEntries {
  std::vector<std::string> served;
  std::vector<std::string> stored;
};

class Tool {
public:
  virtual ~Tool() = default;

  // The manifest's cache.kind, the shim config's cache-kind, --cache's value.
  [[nodiscard]] virtual std::string_view name() const = 0;

  // Adds the shim's environment for SETTINGS to ENV: cache location and
  // size, the modes that make HIP builds hit, the toolchain identity
  // (FINGERPRINT, IDENTITY_FILES: absolute paths of every input), the remote.
  virtual void add_shim_environment(const core::CacheSettings& settings,
                                    const std::string& fingerprint,
                                    const std::vector<std::string>& identity_files,
                                    ShimEnvironment& env) const = 0;

  // The secrets file's NAME=VALUE lines for SETTINGS whose remote is
  // REMOTE_URL in full, and the URL back from such lines (nullopt: none).
  [[nodiscard]] virtual std::vector<std::string> secret_environment(
    const core::CacheSettings& settings,
    const std::string& remote_url) const = 0;
  [[nodiscard]] virtual std::optional<std::string> remote_url_of(
    const core::CacheSettings& settings,
    const std::vector<std::string>& lines) const = 0;

  // How SETTINGS' remote and its local cache stand to each other, in words for status: the tiers
  // a hit is read from, or why there is one only. "" without a remote.
  [[nodiscard]] virtual std::string tiers(const core::CacheSettings& settings) const = 0;

  // Refuses remote settings this tool, at SETTINGS.version, cannot honour.
  [[nodiscard]] virtual util::Status check_remote(const core::CacheSettings& settings) const = 0;
  // Before any work (install, reconfigure): --remote URL in a form this tool
  // (SETTINGS: its path and version) stores to, --max-size VALUE in its form.
  [[nodiscard]] virtual util::Status check_remote_url(const core::CacheSettings& settings,
                                                      std::string_view url) const = 0;
  [[nodiscard]] virtual util::Status check_max_size(std::string_view value) const = 0;
  // The size limit under which one build of BYTES in FILES entries keeps all of them (it evicts
  // none of its own before the next build can hit them).
  [[nodiscard]] virtual std::uint64_t limit_holding(std::uint64_t bytes,
                                                    std::uint64_t files) const = 0;

  // Statistics and cache location under OPTIONS (tool_environment's).
  [[nodiscard]] virtual util::Result<CacheStats> read_stats(
    const core::CacheSettings& settings,
    const util::RunOptions& options) const = 0;
  [[nodiscard]] virtual std::string cache_location(const core::CacheSettings& settings,
                                                   const util::RunOptions& options) const = 0;

  // Leaves every user's statistics as they were for a compile run with OPTIONS
  // (verification's own compiles), where the tool allows it.
  virtual void leave_statistics_alone(util::RunOptions& options) const = 0;
  // A witness for one compile; SCRATCH is a private directory for its evidence.
  [[nodiscard]] virtual std::unique_ptr<HitWitness> hit_witness(
    const core::CacheSettings& settings,
    const util::RunOptions& options,
    const std::string& scratch) const = 0;

  // CI cache archives (cache export/import) of its cache directory.
  [[nodiscard]] virtual bool archives() const = 0;
  // A cache directory shared by a group (--shared-cache DIR --group G).
  [[nodiscard]] virtual bool group_shared_cache() const = 0;
  // One round of verify's remote check (a compile whose result must come from the remote), with
  // COMPILE's options made for it; SCRATCH is a private, empty directory for its local cache.
  [[nodiscard]] virtual util::Result<std::unique_ptr<RemoteRound>> remote_round(
    const core::CacheSettings& settings,
    util::RunOptions& compile,
    const std::string& scratch) const = 0;
  // Its entries are files in a directory that status can count writers of.
  [[nodiscard]] virtual bool entries_are_files() const = 0;

  // Stops what the shims of STATE_DIR started for this tool (sccache's servers)
  // when the prefix is rolled back; returns how many it stopped.
  virtual std::size_t stop_started(const std::string& state_dir,
                                   const core::CacheSettings& settings) const = 0;

  // Watches one build for its counts (`shimctl measure`, build_watch.hpp).
  [[nodiscard]] virtual util::Result<std::unique_ptr<BuildWatch>> watch_build() const = 0;
  // Its counts of a build include the compiles of per-target pieces (ccache's pieces run
  // outside the build's stats log: piece_environment).
  [[nodiscard]] virtual bool counts_pieces() const = 0;

  // ---- a HIP object from one cached compile per GPU target (pieces/) ----
  // What each piece's compile through this tool changes in the shim's environment (ccache: its
  // disable switch and measure's stats log are the whole compile's, not the piece's).
  virtual void piece_environment(util::EnvChanges& env) const = 0;
  // Keys a compile apart from one of the same arguments by appending KEY to what the tool keys
  // the compiler by (ccache's compiler-check string, sccache's cache buster) in ENV: "" or why not.
  [[nodiscard]] virtual std::string key_apart(std::string_view key,
                                              util::EnvChanges& env) const = 0;
  // What it keys the compiler by in this process's environment (ccache's compiler-check string,
  // sccache's cache buster): a check of the compiler's output is valid as long as this is.
  [[nodiscard]] virtual std::string compiler_key() const = 0;
  // The umask it makes its files in its cache directory with (ccache: CCACHE_UMASK, which a
  // group's shared cache sets); files written beside them use it too.
  [[nodiscard]] virtual unsigned file_umask() const = 0;
  // The arguments that let a device piece's compile use this tool's depend mode, DEPFILE its
  // depfile (ccache: -MD -MF DEPFILE; the shim under it hands the depfile to the device cc1,
  // shim/pieces_handoff.c); {} for a tool without one.
  [[nodiscard]] virtual std::vector<std::string> piece_depend_args(
    const std::string& depfile) const = 0;
  // This process's environment (a build's) makes the compile cache read-only: ccache's
  // CCACHE_READONLY set to anything but its false values (0, false, disable, no); sccache's
  // SCCACHE_LOCAL_RW_MODE=READ_ONLY (its read-only disk cache, sccache >= 0.7). The device
  // links' store follows it (link_store_place.hpp).
  [[nodiscard]] virtual bool environment_reads_only() const = 0;
  // It caches a host compile that embeds a fatbin (-Xclang -fcuda-include-gpubinary).
  [[nodiscard]] virtual bool caches_host_half() const = 0;
  // It runs compiles under a jobserver of its own: a compile that runs pieces through it hands
  // its slot back while they run (pieces/lent_slot.hpp).
  [[nodiscard]] virtual bool runs_a_jobserver() const = 0;
  // Asking its team store means starting a server that waits on the store as it starts (sccache:
  // up to 10 s on a store that hangs), not one call's bounded wait (ccache's operation timeout):
  // verify asks no store that the user's compiles found out.
  [[nodiscard]] virtual bool server_start_waits_on_store() const = 0;

  // Its own cleanup goes by parts of the cache (ccache: each of 16 subdirectories once it passes
  // 1/16 of the limit), so that shimctl keeps an install's --max-size over the whole cache
  // (cache_budget.hpp); false: its own eviction is least-recently-used over the whole (sccache).
  [[nodiscard]] virtual bool cleans_by_parts() const = 0;
  // The size limit the environment gives it ("" none).
  [[nodiscard]] virtual std::string limit_in_environment() const = 0;
  // The bytes of its cache by its own STATS.
  [[nodiscard]] virtual std::uint64_t cache_bytes_of(const CacheStats& stats) const = 0;
  // Evicts the entries of the cache at DIR last used more than SECONDS ago (cleans_by_parts only).
  [[nodiscard]] virtual util::Status evict_older_than(const core::CacheSettings& settings,
                                                      const std::string& dir,
                                                      std::int64_t seconds) const = 0;

  // ---- the files of its entries (a derived object's earlier one: pieces/derive.hpp; stored
  // pieces: pieces/piece_entries.hpp) ----
  // Makes a run with ENV log to LOG_FILE which entries it served and stored (ccache:
  // CCACHE_LOGFILE); false when the tool cannot say (sccache: its own least-recently-used order
  // stands, and its bytes are not told apart by kind).
  [[nodiscard]] virtual bool logs_entries(util::EnvChanges& env,
                                          const std::string& log_file) const = 0;
  // The files of the entries (manifests, results) the run logged in LOG_FILE as served from and
  // stored in the local cache; the log's lines go on to the user's own log, if the environment
  // names one.
  [[nodiscard]] virtual LoggedEntries logged_entries(const std::string& log_file) const = 0;
};

// The tools this shimctl knows, in --help order; the first is the default.
[[nodiscard]] std::vector<std::string_view> tool_names();
[[nodiscard]] const Tool& default_tool();
// The tool called NAME; nullptr when none is.
[[nodiscard]] const Tool* tool_named(std::string_view name);
// SETTINGS' tool. The manifest reader refuses a kind no tool has
// (core::Context::cache_tools), so a loaded manifest always has one.
[[nodiscard]] const Tool& tool_of(const core::CacheSettings& settings);
// The tool a launcher program runs, by its file name (ccache, /usr/bin/sccache-0.4);
// nullptr when none.
[[nodiscard]] const Tool* tool_launched_by(std::string_view program);

} // namespace shimctl::cache
