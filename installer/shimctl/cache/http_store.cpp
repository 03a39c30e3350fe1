// HTTP stores: http://HOST[:PORT][/PATH] for ccache's HTTP backend; http(s)://[USER:PASSWORD@]
// HOST[:PORT]/PATH for sccache's WebDAV store (the server must answer PROPFIND).
#include <shim/formats.h>
#include <shimctl/cache/store_kind.hpp>

namespace shimctl::cache {

namespace {

class HttpStore final : public StoreKind {
public:
  std::vector<std::string_view> schemes() const override {
    return { "http", "https" };
  }

  // HEAD / answers (a 401 or 404 too) when the server is there. TLS: a connect only.
  std::optional<std::pair<std::string, std::string>> health_probe(
    const StoreUrl& url) const override {
    if (url.authority.host.empty())
      return std::nullopt;
    bool tls = url.scheme == "https";
    return std::pair{ std::string(tls ? SHIMCTL_STORE_PROBE_TCP : SHIMCTL_STORE_PROBE_HTTP),
                      store::address_of(url.authority, tls ? "443" : "80") };
  }

  std::optional<std::string> ccache_problem(std::string_view url,
                                            std::string_view /*version*/,
                                            std::string* lacks) const override {
    if (!url.starts_with("http:")) {
      *lacks = "TLS"; // https: no built-in TLS in ccache
      return std::nullopt;
    }
    auto rest = url.substr(sizeof "http:" - 1);
    return rest.starts_with("//")
             ? store::host_port_problem(store::authority_of(rest), "http://HOST:8080/cache")
             : "is not http://HOST[:PORT][/PATH]";
  }

  SccacheStore sccache_store(const StoreUrl& url) const override {
    SccacheStore store;
    const auto& a = url.authority;
    if (auto problem = store::host_port_problem(a, "https://HOST/cache"); !problem.empty()) {
      store.problem = problem;
      return store;
    }
    auto path = a.rest.substr(0, a.rest.find_first_of("?#"));
    store.environment.push_back(
      fmt::format("SCCACHE_WEBDAV_ENDPOINT={}://{}{}", url.scheme, store::host_and_port(a), path));
    if (!url.user.empty())
      store.environment.push_back("SCCACHE_WEBDAV_USERNAME=" + url.user);
    if (!url.password.empty())
      store.environment.push_back("SCCACHE_WEBDAV_PASSWORD=" + url.password);
    return store;
  }

  std::string_view sccache_backend() const override {
    return "WEBDAV";
  }
};

} // namespace

const StoreKind& http_store() {
  static const HttpStore kind;
  return kind;
}

} // namespace shimctl::cache
