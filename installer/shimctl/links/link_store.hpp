// The device links' store (issue 36): ccache and sccache cannot keep a link, so shimctl keeps
// each per-target device link's output itself, content-addressed, in a store beside the cache
// (cache/link_store_place.hpp: a shared cache's, else the user's own), <store>/<key's first 2
// digits>/<key>: written under a temporary name and renamed into place (a reader sees a whole
// entry or none), read by copying. Least recently used entries go when the store passes its size
// cap (SHIMCTL_DEVICE_LINKS_MAX_SIZE, default 2G; a hit renews an entry). A read-only store is
// only read: no entry, verdict, count or use time written.
#pragma once

#include <cstdint>
#include <optional>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/util/counter_file.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>

namespace shimctl::links {

// The store's counters (its "counts" file).
inline constexpr const char* link_hit = "link_hit";           // a device link served
inline constexpr const char* link_miss = "link_miss";         // linked, kept
inline constexpr const char* link_uncached = "link_uncached"; // ran uncached (a refusal)
// `shimctl measure`'s log record (shim/formats.h, SHIMCTL_MEASURE_LOG): this header line, then
// one "<counter>" line, per device link, read or not, written or not.
inline constexpr std::string_view link_measure_record = "# shimctl-device-links";

// Appends COUNTER's record to measure's log when the build runs under `shimctl measure`; best
// effort.
void record_link_for_measure(std::string_view counter);
// The counts of measure's log TEXT (its "# shimctl-device-links" records).
[[nodiscard]] util::Counts link_counts_in_measure_log(const std::string& text);

// What `status` shows of a store.
struct LinkStoreSummary {
  std::string dir; // "" when the user has none
  bool shared = false;
  bool read_only = false;
  util::Counts counts;
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  unsigned long long max_bytes = 0;
};

class LinkStore {
public:
  // The store at PLACE as it is, made nowhere (status).
  [[nodiscard]] static LinkStoreSummary summary(const cache::LinkStorePlace& place);
  // The store at PLACE (made when missing and writable: 0700, or 2770 shared), capped by
  // SHIMCTL_DEVICE_LINKS_MAX_SIZE; an error when there is no cache home, a directory cannot be
  // made or the cap is not a size.
  [[nodiscard]] static util::Result<LinkStore> open(const cache::LinkStorePlace& place);
  // A store at PLACE holding at most MAX_BYTES (tests).
  explicit LinkStore(cache::LinkStorePlace place, unsigned long long max_bytes = default_max_bytes)
    : place_(std::move(place))
    , max_bytes_(max_bytes) {}
  explicit LinkStore(std::string dir, unsigned long long max_bytes = default_max_bytes)
    : LinkStore(cache::LinkStorePlace{ std::move(dir) }, max_bytes) {}
  static constexpr unsigned long long default_max_bytes = 2ULL << 30;

  [[nodiscard]] const std::string& dir() const {
    return place_.dir;
  }
  [[nodiscard]] bool read_only() const {
    return place_.read_only;
  }
  // The entry of KEY (64 hex digits), if the store has it.
  [[nodiscard]] std::optional<std::string> find(const std::string& key) const;
  // Copies entry ENTRY to OUTPUT (through a temporary file beside it, renamed); ENTRY counts as
  // used now.
  [[nodiscard]] util::Status copy_out(const std::string& entry, const std::string& output) const;
  // Keeps a copy of FILE as KEY's entry (an error in a read-only store), then removes the least
  // recently used entries while the store holds more than its cap (down to 90 % of it).
  [[nodiscard]] util::Status keep(const std::string& key, const std::string& file) const;
  // The verdict kept for NAME ("same", "differ" or "").
  [[nodiscard]] std::string verdict(const std::string& name) const;
  void record_verdict(const std::string& name, bool same) const;
  // Adds one to COUNTER in the store's counts (not in a read-only store) and records it for
  // `shimctl measure`.
  void count(const char* counter) const;

private:
  void evict() const;
  cache::LinkStorePlace place_;
  unsigned long long max_bytes_;
};

} // namespace shimctl::links
