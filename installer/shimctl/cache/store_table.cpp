#include <algorithm>
#include <array>
#include <shimctl/cache/store_kind.hpp>

namespace shimctl::cache {

namespace {

// The kinds of store shimctl knows, as ccache's storage/storage.cpp lists its backends.
const std::array<const StoreKind*, 5>& store_kinds() {
  static const std::array<const StoreKind*, 5> kinds{
    &redis_store(), &http_store(), &s3_store(), &file_store(), &helper_store()
  };
  return kinds;
}

} // namespace

const StoreKind* store_kind_of(std::string_view scheme) {
  for (const auto* kind : store_kinds()) {
    auto schemes = kind->schemes();
    if (std::ranges::find(schemes, scheme) != schemes.end())
      return kind;
  }
  return nullptr;
}

} // namespace shimctl::cache
