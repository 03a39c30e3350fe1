// The device links' store (issue 36): ccache and sccache cannot keep a link, so shimctl keeps
// each per-target device link's output itself, content-addressed, in the user's own cache home
// (<cache home>/shimctl/device-links/<key's first 2 digits>/<key>): written under a temporary
// name and renamed into place (a reader sees a whole entry or none), read by copying.
// Per user: nobody else's entries, nobody else's rights. Least recently used entries go when
// the store passes its size cap (SHIMCTL_DEVICE_LINKS_MAX_SIZE, default 2G; a hit renews an
// entry).
#pragma once

#include <cstdint>
#include <optional>
#include <shimctl/util/counter_file.hpp>
#include <shimctl/util/error.hpp>
#include <string>

namespace shimctl::links {

// The store's counters (its "counts" file).
inline constexpr const char* link_hit = "link_hit";           // a device link served
inline constexpr const char* link_miss = "link_miss";         // linked, kept
inline constexpr const char* link_uncached = "link_uncached"; // ran uncached (a refusal)

// What `status` shows of the user's store.
struct LinkStoreSummary {
  std::string dir; // "" when the user has none
  util::Counts counts;
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  unsigned long long max_bytes = 0;
};

class LinkStore {
public:
  // The user's store as it is, made nowhere (status).
  [[nodiscard]] static LinkStoreSummary users_summary();
  // The user's store (made 0700 when missing), capped by SHIMCTL_DEVICE_LINKS_MAX_SIZE; an error
  // when there is no cache home or the cap is not a size.
  [[nodiscard]] static util::Result<LinkStore> open_users();
  // A store in DIR holding at most MAX_BYTES (tests).
  explicit LinkStore(std::string dir, unsigned long long max_bytes = default_max_bytes)
    : dir_(std::move(dir))
    , max_bytes_(max_bytes) {}
  static constexpr unsigned long long default_max_bytes = 2ULL << 30;

  [[nodiscard]] const std::string& dir() const {
    return dir_;
  }
  // The entry of KEY (64 hex digits), if the store has it.
  [[nodiscard]] std::optional<std::string> find(const std::string& key) const;
  // Copies entry ENTRY to OUTPUT (through a temporary file beside it, renamed); ENTRY counts as
  // used now.
  [[nodiscard]] util::Status copy_out(const std::string& entry, const std::string& output) const;
  // Keeps a copy of FILE as KEY's entry, then removes the least recently used entries while the
  // store holds more than its cap (down to 90 % of it).
  [[nodiscard]] util::Status keep(const std::string& key, const std::string& file) const;
  // The verdict kept for NAME ("same", "differ" or "").
  [[nodiscard]] std::string verdict(const std::string& name) const;
  void record_verdict(const std::string& name, bool same) const;
  // Adds one to COUNTER in the store's counts.
  void count(const char* counter) const;

private:
  void evict() const;
  std::string dir_;
  unsigned long long max_bytes_;
};

} // namespace shimctl::links
