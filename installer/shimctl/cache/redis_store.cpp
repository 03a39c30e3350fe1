// Redis stores: redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] for both tools, rediss:// (TLS) for
// sccache, redis+unix:/SOCKET for ccache, a Redis Cluster (|cluster=SEEDS) for sccache.
#include <shim/formats.h>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::cache {

namespace {

using store::authority_of;
using store::host_port_problem;

// redis://[[USER:]PASSWORD@]HOST[:PORT][/DB] as ccache reads it: why URL is not one, or "".
std::string ccache_redis_problem(std::string_view url) {
  auto rest = url.substr(sizeof "redis:" - 1);
  if (!rest.starts_with("//"))
    return "is not redis://HOST[:PORT][/DB]";
  auto a = authority_of(rest);
  if (a.port && a.port->find('*') != std::string_view::npos)
    a.port.reset(); // ccache's shard names (|shards=P1,P2) go where the '*' is
  if (auto problem = host_port_problem(a, "redis://HOST:6379"); !problem.empty())
    return problem;
  auto db = a.rest;
  if (db.starts_with('/'))
    db.remove_prefix(1);
  if (!db.empty() && !util::all_digits(db))
    return fmt::format("has '{}' where the database number goes (redis://HOST[:PORT][/DB], e.g. "
                       "redis://HOST:6379/0)",
                       a.rest);
  return {};
}

// redis+unix:/SOCKET[?db=N] or redis+unix://[PASSWORD@localhost]/SOCKET: why not, or "".
std::string ccache_unix_socket_problem(std::string_view rest) {
  auto path = rest;
  if (path.starts_with("//")) {
    auto a = authority_of(rest);
    if (!a.host.empty() && a.host != "localhost")
      return "names a host; a unix socket is on this machine (redis+unix:/PATH/TO/SOCKET)";
    path = a.rest;
  }
  if (!path.starts_with('/') || path.substr(0, path.find('?')).size() < 2)
    return "names no socket path (redis+unix:/PATH/TO/SOCKET)";
  return {};
}

// The probe's seeds: FIRST, then each of SEEDS ("[redis://]HOST:PORT" comma list) as HOST:PORT,
// as many as the health memo's address holds.
std::string cluster_seeds(std::string first, std::string_view seeds) {
  constexpr std::size_t fits = sizeof(shimctl_store_health::address) - 1;
  for (auto seed : util::fields_of(seeds, ',')) {
    if (auto scheme = seed.find("://"); scheme != std::string_view::npos)
      seed.remove_prefix(scheme + 3);
    seed = seed.substr(0, seed.find('/'));
    if (seed.empty() || first.size() + 1 + seed.size() > fits)
      continue;
    first += fmt::format(",{}", seed);
  }
  return first;
}

// redis://HOST:*|shards=P1,P2 as ccache < 4.14 reads it: redis://*|shards=HOST:P1,HOST:P2, the
// other attributes in place; nullopt without shards.
std::optional<std::string> shards_by_host(std::string_view host,
                                          const store::Attributes& attributes) {
  std::string shards;
  for (auto [key, value] : attributes)
    if (key == "shards")
      for (auto shard : util::fields_of(value, ','))
        shards += fmt::format("{}{}:{}", shards.empty() ? "" : ",", host, shard);
  if (shards.empty())
    return std::nullopt;
  std::string out = "redis://*";
  for (auto [key, value] : attributes)
    out += key == "shards" ? "|shards=" + shards
                           : fmt::format("|{}{}{}", key, value.empty() ? "" : "=", value);
  return out;
}

class RedisStore final : public StoreKind {
public:
  std::vector<std::string_view> schemes() const override {
    return { "redis", "rediss", "redis+unix" };
  }

  // PING answers without a credential too (-NOAUTH): the store is there. TLS: a connect only.
  std::optional<std::pair<std::string, std::string>> health_probe(
    const StoreUrl& url) const override {
    if (url.scheme == "redis+unix" || url.authority.host.empty() || url.authority.host == "*")
      return std::nullopt; /* a socket; ccache's shards (several stores): none asked */
    std::optional<std::string_view> cluster;
    for (auto [key, value] : url.attributes) {
      if (key == "shards")
        return std::nullopt;
      if (key == "cluster")
        cluster = value;
    }
    auto address = store::address_of(url.authority, "6379");
    if (!cluster || url.scheme != "redis")
      return std::pair{ std::string(url.scheme == "redis" ? SHIMCTL_STORE_PROBE_REDIS
                                                          : SHIMCTL_STORE_PROBE_TCP),
                        address };
    return std::pair{ std::string(SHIMCTL_STORE_PROBE_REDIS_CLUSTER),
                      cluster_seeds(address, *cluster) };
  }

  std::optional<std::string> ccache_problem(std::string_view url,
                                            std::string_view /*version*/,
                                            std::string* lacks) const override {
    auto scheme = store::scheme_of(url);
    if (scheme == "redis")
      return ccache_redis_problem(url);
    if (scheme == "redis+unix")
      return ccache_unix_socket_problem(url.substr(scheme.size() + 1));
    *lacks = "TLS"; // rediss: no built-in TLS in ccache
    return std::nullopt;
  }

  // redis://:PASSWORD@ becomes redis://default:PASSWORD@ (ccache sends no AUTH for an empty
  // user), and before 4.14 redis://HOST:*|shards=P1,P2 becomes redis://*|shards=HOST:P1,HOST:P2
  // (4.7 cannot parse a '*' port).
  std::string ccache_form(std::string_view storage, std::string_view version) const override {
    auto [url, attributes] = store::split_attributes(storage);
    if (store::scheme_of(url) != "redis")
      return std::string(storage);
    auto a = authority_of(url.substr(sizeof "redis:" - 1));
    if (a.userinfo && a.userinfo->starts_with(':'))
      return fmt::format("redis://default{}", storage.substr(sizeof "redis://" - 1));
    if (a.port != "*" || store::version_at_least(version, 4, 14) || a.userinfo || !a.rest.empty())
      return std::string(storage);
    return shards_by_host(a.host, attributes).value_or(std::string(storage));
  }

  SccacheStore sccache_store(const StoreUrl& url) const override {
    SccacheStore store;
    if (url.scheme == "redis+unix") {
      store.problem = store::sccache_has_no(url.scheme);
      return store;
    }
    const auto& a = url.authority;
    if (auto problem = host_port_problem(a, "redis://HOST:6379"); !problem.empty()) {
      store.problem = problem;
      return store;
    }
    auto db = a.rest.starts_with('/') ? a.rest.substr(1) : a.rest;
    if (!db.empty() && !util::all_digits(db)) {
      store.problem =
        fmt::format("has '{}' where the database number goes (e.g. redis://HOST:6379/0)", a.rest);
      return store;
    }
    auto node = fmt::format("{}://{}", url.scheme, store::host_and_port(a));
    std::optional<std::string_view> cluster;
    for (auto [key, value] : url.attributes)
      if (key == "cluster")
        cluster = value;
    auto& env = store.environment;
    if (cluster) {
      if (!db.empty()) {
        store.problem = "names a database; a Redis Cluster has only database 0";
        return store;
      }
      std::string nodes = node;
      for (auto seed : util::fields_of(*cluster, ','))
        nodes += fmt::format(
          ",{}{}",
          seed.find("://") == std::string_view::npos ? std::string(url.scheme) + "://" : "",
          seed);
      env.push_back("SCCACHE_REDIS_CLUSTER_ENDPOINTS=" + nodes);
    } else {
      env.push_back("SCCACHE_REDIS_ENDPOINT=" + node);
      if (!db.empty())
        env.push_back(fmt::format("SCCACHE_REDIS_DB={}", db));
    }
    if (!url.user.empty())
      env.push_back("SCCACHE_REDIS_USERNAME=" + url.user);
    if (!url.password.empty())
      env.push_back("SCCACHE_REDIS_PASSWORD=" + url.password);
    return store;
  }

  std::string_view sccache_backend() const override {
    return "REDIS";
  }

  bool takes_attribute(std::string_view scheme,
                       std::string_view key,
                       std::string_view /*value*/) const override {
    return key == "cluster" && scheme != "redis+unix";
  }

  std::string_view attribute_list(std::string_view scheme) const override {
    return scheme == "redis+unix" ? "" : ", |cluster";
  }
};

} // namespace

const StoreKind& redis_store() {
  static const RedisStore kind;
  return kind;
}

} // namespace shimctl::cache
