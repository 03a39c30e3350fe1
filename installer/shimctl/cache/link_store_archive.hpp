// The device links' store in a CI cache archive (issue 36): `cache export` adds the store's
// entries and first-hit verdicts after the cache's own, as shimctl-device-links/<2 hex>/<64 hex>
// and shimctl-device-links/checked-<32 hex> (never its counts); `cache import` puts them into
// the store of the importing install (link_store_place.hpp: beside a shared cache with the
// group's modes, else the user's own), leaving an entry it already has as it is.
#pragma once

#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::cache {

inline constexpr std::string_view archived_links_dir = "shimctl-device-links";

// True for an archive path that is a device link store's entry or verdict (above).
[[nodiscard]] bool link_entry_travels(std::string_view relative);

// The travelling files of the store at PLACE, relative to it, sorted; none without a store.
[[nodiscard]] util::Result<std::vector<TreeFile>> link_store_files(const LinkStorePlace& place);

// Puts the staged file STAGE/PATH (an archive path, link_entry_travels) into the store at PLACE
// (made when missing); false when the store has it already.
[[nodiscard]] util::Result<bool> put_link_entry(const LinkStorePlace& place,
                                                const util::Dir& stage,
                                                const std::string& path);

} // namespace shimctl::cache
