// verify's row for the team store's health as this user's compiles see it (cache/store_health):
// healthy or not asked yet passes, out warns (compiles still work, without the store).
#pragma once

#include <shimctl/core/manifest.hpp>
#include <shimctl/verify/verify_report.hpp>
#include <vector>

namespace shimctl::verify {

void verify_store_health(const core::Manifest& manifest, std::vector<Check>& out);

} // namespace shimctl::verify
