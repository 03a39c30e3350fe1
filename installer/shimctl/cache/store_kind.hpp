// A kind of team store (Redis, WebDAV/HTTP, S3, a directory, ccache's storage helper endpoint),
// one file each, picked from a table by the URL's scheme (store_table.cpp), as ccache picks its
// remote storage backends (storage/remote/redisstorage.cpp, httpstorage.cpp, filestorage.cpp).
// Each kind judges a URL of its schemes for each cache tool and says what that tool is told;
// callers hold a kind and never test a scheme.
#pragma once

#include <optional>
#include <shimctl/cache/store_url.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shimctl::cache {

// One store URL as sccache is to be told: URL|ATTRIBUTE... with the parts every kind reads.
struct StoreUrl {
  std::string_view scheme;
  std::string_view rest; // after "SCHEME:"
  store::Authority authority;
  store::Attributes attributes; // in order, read-only and ca= included
  std::string user, password;   // the credential, decoded
};

// What sccache is told for a store: NAME=VALUE lines; PROBLEM says why the URL names none.
struct SccacheStore {
  std::vector<std::string> environment;
  std::string problem;
};

class StoreKind {
public:
  virtual ~StoreKind() = default;

  // The schemes of this kind ("redis", "rediss", "redis+unix").
  [[nodiscard]] virtual std::vector<std::string_view> schemes() const = 0;

  // ccache's built-in storage for URL (attributes cut off, scheme one of schemes()) at VERSION
  // ("4.7.5"; "" unknown, taken to be recent): why ccache cannot store there ("" when it can);
  // nullopt when ccache has no built-in storage for the scheme (a storage helper may have it:
  // remote_url.cpp asks), with what it lacks ("TLS", "S3") in LACKS.
  [[nodiscard]] virtual std::optional<std::string> ccache_problem(std::string_view url,
                                                                  std::string_view version,
                                                                  std::string* lacks) const = 0;

  // STORAGE (URL|ATTRIBUTE..., one ccache_problem accepts) in the form ccache at VERSION reads
  // (ccache_tool.cpp asks when it writes CCACHE_REMOTE_STORAGE). By default: as given.
  [[nodiscard]] virtual std::string ccache_form(std::string_view storage,
                                                std::string_view /*version*/) const {
    return std::string(storage);
  }

  // sccache: its store variables for URL (SCCACHE_REDIS_ENDPOINT=..., credentials), or the
  // problem. The kind's own attributes it reads from URL.attributes; read-only and ca= are
  // handled by the caller. By default: sccache has no such store.
  [[nodiscard]] virtual SccacheStore sccache_store(const StoreUrl& url) const {
    return { {}, store::sccache_has_no(url.scheme) };
  }

  // sccache's backend name in SCCACHE_<BACKEND>_RW_MODE ("REDIS"); by default "": none.
  [[nodiscard]] virtual std::string_view sccache_backend() const {
    return "";
  }

  // URL with the credential install takes from its own environment, where this kind has one and
  // URL names none (secrets.hpp: the secrets file then carries it). By default: URL as given.
  [[nodiscard]] virtual std::string with_environment_credential(std::string url) const {
    return url;
  }

  // A store on this machine (a directory): there is nothing to ask whether it answers, and the
  // health probe looks at the next store of the list. By default: false.
  [[nodiscard]] virtual bool on_this_machine() const {
    return false;
  }

  // How the shim asks this store whether it answers (shim/formats.h, the store line): the probe
  // (SHIMCTL_STORE_PROBE_*) and HOST:PORT; nullopt when it cannot (a unix socket, S3 without an
  // endpoint). By default: nullopt.
  [[nodiscard]] virtual std::optional<std::pair<std::string, std::string>> health_probe(
    const StoreUrl& /*url*/) const {
    return std::nullopt;
  }

  // Whether sccache's store of SCHEME takes the attribute KEY[=VALUE] (beyond read-only and
  // ca=), and the list of them for a message (", |cluster"). By default: none.
  [[nodiscard]] virtual bool takes_attribute(std::string_view /*scheme*/,
                                             std::string_view /*key*/,
                                             std::string_view /*value*/) const {
    return false;
  }
  [[nodiscard]] virtual std::string_view attribute_list(std::string_view /*scheme*/) const {
    return "";
  }
};

// The kind of SCHEME's stores, or nullptr (store_table.cpp).
[[nodiscard]] const StoreKind* store_kind_of(std::string_view scheme);

// The kinds (store_table.cpp: redis_store.cpp, http_store.cpp, s3_store.cpp, file_store.cpp,
// helper_store.cpp).
[[nodiscard]] const StoreKind& redis_store();
[[nodiscard]] const StoreKind& http_store();
[[nodiscard]] const StoreKind& s3_store();
[[nodiscard]] const StoreKind& file_store();
[[nodiscard]] const StoreKind& helper_store();

} // namespace shimctl::cache
