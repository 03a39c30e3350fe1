// ccache's storage helper endpoint (ccache >= 4.13): crsh:ENDPOINT, a helper already running
// (https://ccache.dev/storage-helpers.html). sccache has no such store.
#include <shimctl/cache/store_kind.hpp>

namespace shimctl::cache {

namespace {

class HelperStore final : public StoreKind {
public:
  std::vector<std::string_view> schemes() const override {
    return { "crsh" };
  }

  // Before 4.13: no such storage (remote_url.cpp says which ones there are).
  std::optional<std::string> ccache_problem(std::string_view url,
                                            std::string_view version,
                                            std::string* /*lacks*/) const override {
    if (!store::version_at_least(version, 4, 13))
      return std::nullopt;
    if (url.substr(sizeof "crsh:" - 1).empty())
      return "names no helper endpoint (crsh:/PATH/TO/SOCKET)";
    return std::string();
  }
};

} // namespace

const StoreKind& helper_store() {
  static const HelperStore kind;
  return kind;
}

} // namespace shimctl::cache
