// S3 stores, for sccache: s3://[KEY_ID:SECRET@]BUCKET[/PREFIX] with |endpoint=URL (an
// S3-compatible server), |region=R, |virtual-host, |no-credentials. ccache has no S3 storage of
// its own (a storage helper may bring it: remote_url.cpp).
#include <cctype>
#include <cstdlib>
#include <shim/formats.h>
#include <shimctl/cache/store_kind.hpp>

namespace shimctl::cache {

namespace {

// TEXT with all but RFC 3986's unreserved characters as %XX.
std::string percent_encoded(std::string_view text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("-._~").find(c) != std::string_view::npos
             ? std::string(1, c)
             : fmt::format("%{:02X}", static_cast<unsigned char>(c));
  return out;
}

class S3Store final : public StoreKind {
public:
  std::vector<std::string_view> schemes() const override {
    return { "s3" };
  }

  // The endpoint's HEAD / (an S3 server answers it, 403 included); AWS itself (no endpoint):
  // nothing to ask without its region's name.
  std::optional<std::pair<std::string, std::string>> health_probe(
    const StoreUrl& url) const override {
    for (auto [key, value] : url.attributes) {
      auto scheme = store::scheme_of(value);
      if (key != "endpoint" || (scheme != "http" && scheme != "https"))
        continue;
      auto a = store::authority_of(value.substr(scheme.size() + 1));
      if (a.host.empty())
        return std::nullopt;
      bool tls = scheme == "https";
      return std::pair{ std::string(tls ? SHIMCTL_STORE_PROBE_TCP : SHIMCTL_STORE_PROBE_HTTP),
                        store::address_of(a, tls ? "443" : "80") };
    }
    return std::nullopt;
  }

  std::optional<std::string> ccache_problem(std::string_view,
                                            std::string_view /*version*/,
                                            std::string* lacks) const override {
    *lacks = "S3";
    return std::nullopt;
  }

  SccacheStore sccache_store(const StoreUrl& url) const override {
    SccacheStore store;
    auto& env = store.environment;
    auto bucket = url.rest.substr(2, url.rest.find_first_of("/?#", 2) - 2);
    if (auto at = bucket.rfind('@'); at != std::string_view::npos)
      bucket.remove_prefix(at + 1);
    if (bucket.empty()) {
      store.problem = "names no bucket (s3://BUCKET/PREFIX|endpoint=URL|region=R)";
      return store;
    }
    env.push_back(fmt::format("SCCACHE_BUCKET={}", bucket));
    auto prefix = url.authority.rest;
    while (prefix.starts_with('/'))
      prefix.remove_prefix(1);
    while (prefix.ends_with('/'))
      prefix.remove_suffix(1);
    if (!prefix.empty())
      env.push_back(fmt::format("SCCACHE_S3_KEY_PREFIX={}", prefix));
    std::string_view region = "us-east-1"; // what S3-compatible servers expect when unsaid
    for (auto [key, value] : url.attributes) {
      if (key == "endpoint") {
        auto endpoint_scheme = store::scheme_of(value);
        if (endpoint_scheme != "http" && endpoint_scheme != "https") {
          store.problem = fmt::format("has |endpoint={}, not http(s)://HOST[:PORT]", value);
          return store;
        }
        env.push_back(fmt::format("SCCACHE_ENDPOINT={}", value));
        env.push_back(fmt::format("SCCACHE_S3_USE_SSL={}", endpoint_scheme == "https"));
      } else if (key == "region") {
        region = value;
      } else if (key == "virtual-host") {
        env.push_back("SCCACHE_S3_ENABLE_VIRTUAL_HOST_STYLE=true");
      } else if (key == "no-credentials") {
        env.push_back("SCCACHE_S3_NO_CREDENTIALS=true");
      }
    }
    env.push_back(fmt::format("SCCACHE_REGION={}", region));
    if (!url.user.empty())
      env.push_back("AWS_ACCESS_KEY_ID=" + url.user);
    if (!url.password.empty())
      env.push_back("AWS_SECRET_ACCESS_KEY=" + url.password);
    return store;
  }

  // install's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY as the URL's user and password, unless
  // it names one or has |no-credentials.
  std::string with_environment_credential(std::string url) const override {
    const char* id = std::getenv("AWS_ACCESS_KEY_ID");
    const char* secret = std::getenv("AWS_SECRET_ACCESS_KEY");
    if (!id || !*id || !secret || !*secret)
      return url;
    auto [base, attributes] = store::split_attributes(url);
    auto rest = base.substr(sizeof "s3:" - 1);
    if (!rest.starts_with("//") || store::authority_of(rest).userinfo)
      return url;
    for (auto [key, value] : attributes)
      if (key == "no-credentials")
        return url;
    return fmt::format("s3://{}:{}@{}",
                       percent_encoded(id),
                       percent_encoded(secret),
                       url.substr(sizeof "s3://" - 1));
  }

  std::string_view sccache_backend() const override {
    return "S3";
  }

  bool takes_attribute(std::string_view,
                       std::string_view key,
                       std::string_view value) const override {
    if (key == "endpoint" || key == "region")
      return !value.empty();
    return (key == "virtual-host" || key == "no-credentials") && value.empty();
  }

  std::string_view attribute_list(std::string_view) const override {
    return ", |endpoint=URL, |region=R, |virtual-host, |no-credentials";
  }
};

} // namespace

const StoreKind& s3_store() {
  static const S3Store kind;
  return kind;
}

} // namespace shimctl::cache
