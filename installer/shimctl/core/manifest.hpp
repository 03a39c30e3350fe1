// The rollback manifest (PREFIX/.shimctl/manifest.json): everything needed to
// put the toolchain back byte for byte. Schema: manifests/manifest.schema.json.
#pragma once

#include <map>
#include <optional>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shimctl::core {

inline constexpr int manifest_schema_version = 1;

// The toolchain fingerprint as the manifest stores it (identity/fingerprint.hpp computes it).
struct IdentityInput {
  // Relative to the prefix (a wrapped compiler is named by its .real), or
  // absolute for a shared library outside it (identity/shared_libs.hpp).
  std::string path;
  std::string sha256;
  std::uint64_t size = 0;
  bool operator==(const IdentityInput&) const = default;
};

struct Fingerprint {
  std::string sha256; // combine_inputs(inputs)
  std::vector<IdentityInput> inputs;

  // A short stable key for CI caches: "<layout>-<first 16 hex digits>".
  [[nodiscard]] std::string cache_key(const std::string& layout) const;
};

struct FileRecord {
  std::string kind = "file"; // file | symlink
  std::string sha256;
  std::uint64_t size = 0;
  mode_t mode = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::optional<std::string> link_target;
};

struct CacheSettings {
  std::string kind; // the cache tool's name (cache/tool.hpp)
  std::string path; // absolute path of the tool
  std::string version;
  std::optional<std::string> dir;      // --cache-dir
  std::optional<std::string> max_size; // --max-size
  // --remote URL with its credential masked (util::redact_credentials): a password or token
  // lives only in PREFIX/.shimctl/secrets (cache/secrets.hpp), never here.
  std::optional<std::string> remote;
  bool remote_read_only = false;
  bool remote_secret = false;              // the remote's credential is in the secrets file
  std::optional<std::string> shared_group; // --shared-cache --group
  // --base-dir, in the order given: absolute, no trailing '/', no ':' (the shim's
  // SHIMCTL_BASE_DIRS, shim/path_roots.h); empty in manifests written before them.
  std::vector<std::string> base_dirs;
  // Random hex (secret_id_digits), new whenever the secrets file's content changes (a rotated
  // credential gets fresh sccache servers: sccache_server_key); none without a secrets file.
  std::optional<std::string> secret_id;
};
inline constexpr std::size_t secret_id_digits = 16;

struct WrappedCompiler {
  std::string path; // the shim's path, relative to the prefix
  std::string real; // where the original now lives
  std::string family;
  NameHandling name_handling = NameHandling::sibling;
  VerifyKind verify = VerifyKind::c_cxx;
  FileRecord original;
  std::vector<Alias> aliases;
  // Per invoked path (relative): clang's `-### -c` job list recorded before wrapping.
  std::map<std::string, std::string> job_lists;
  std::optional<std::string> diverted_by; // "dpkg" when a dpkg-divert was added
};

struct Manifest {
  int schema_version = manifest_schema_version;
  std::string shimctl_version;
  std::string created; // UTC, ISO 8601
  std::string prefix;
  std::string layout;
  CacheSettings cache;
  std::string shim_sha256;
  std::uint64_t shim_size = 0;
  Fingerprint fingerprint;
  std::vector<WrappedCompiler> compilers;
  std::vector<std::string> created_files; // shim configs, relative to the prefix
};

[[nodiscard]] std::string to_json(const Manifest& manifest);
// Parses and validates: types, schema version, clean relative paths inside
// the prefix, hash formats. EXPECTED_PREFIX must equal the recorded prefix;
// cache.kind must be one of CACHE_TOOLS (Context::cache_tools).
[[nodiscard]] util::Result<Manifest> parse_manifest(const std::string& text,
                                                    const std::string& expected_prefix,
                                                    const std::vector<std::string>& cache_tools);

// Checks MANIFEST against the prefix on disk: every directory that holds a
// compiler or a created file must be a real directory below PREFIX_DIR, not
// reached through a symlink (which could lead the changes out of the prefix).
[[nodiscard]] util::Status check_manifest_paths(const util::Dir& prefix_dir,
                                                const Manifest& manifest);

// Refuses MANIFEST when a compiler path holds exactly the shim this shimctl
// installs (SHIM_SHA256, SHIM_SIZE) while the manifest records another shim:
// rollback would take the shim for an upgraded compiler and drop the original.
[[nodiscard]] util::Status check_manifest_shim(const util::Dir& prefix_dir,
                                               const Manifest& manifest,
                                               const std::string& shim_sha256,
                                               std::uint64_t shim_size);

[[nodiscard]] std::string utc_now_iso8601();

} // namespace shimctl::core
