// Directory stores, for ccache: file:/DIR or file://[localhost]/DIR (a shared file system).
// sccache's local cache is its own directory, not a team store.
#include <shimctl/cache/store_kind.hpp>

namespace shimctl::cache {

namespace {

class FileStore final : public StoreKind {
public:
  std::vector<std::string_view> schemes() const override {
    return { "file" };
  }

  std::optional<std::string> ccache_problem(std::string_view url,
                                            std::string_view /*version*/,
                                            std::string* /*lacks*/) const override {
    auto dir = url.substr(sizeof "file:" - 1);
    if (dir.starts_with("//")) {
      auto a = store::authority_of(dir);
      if (!a.host.empty() && a.host != "localhost")
        return fmt::format("names host '{}'; file: storage is a directory of this machine "
                           "(file:/DIR or file:///DIR)",
                           a.host);
      dir = a.rest;
    }
    if (!dir.starts_with('/'))
      return "names no absolute directory (file:/DIR or file:///DIR)";
    return std::string();
  }

  bool on_this_machine() const override {
    return true;
  }
};

} // namespace

const StoreKind& file_store() {
  static const FileStore kind;
  return kind;
}

} // namespace shimctl::cache
