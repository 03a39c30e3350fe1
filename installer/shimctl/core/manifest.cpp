#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <shim/path_roots.h>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/util/dir.hpp>

namespace shimctl::core {

std::string Fingerprint::cache_key(const std::string& layout) const {
  return fmt::format("{}-{}", layout, sha256.substr(0, 16));
}

using nlohmann::json;
using util::ExitCode;

namespace {

json record_to_json(const FileRecord& r) {
  json j{ { "kind", r.kind }, { "sha256", r.sha256 }, { "size", r.size },
          { "mode", r.mode }, { "uid", r.uid },       { "gid", r.gid } };
  j["link_target"] = r.link_target ? json(*r.link_target) : json(nullptr);
  return j;
}

json optional_string(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

// Thrown inside parsing only, turned into a util::Error at the boundary.
struct Invalid {
  std::string message;
};

void require(bool condition, const std::string& message) {
  if (!condition)
    throw Invalid{ message };
}

bool is_hex64(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Strings end up in the shim configuration (one directive per line) and in
// messages: control characters could smuggle in directives, so none pass.
bool printable(const std::string& s) {
  return std::none_of(
    s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

std::string string_field(const json& j, const char* key, const std::string& where);

std::string clean_path(const json& j, const char* key, const std::string& where) {
  auto value = string_field(j, key, where);
  require(util::is_clean_relative(value),
          where + "." + key + " '" + value + "' is not a relative path inside the prefix");
  return value;
}

// An identity input: relative inside the prefix, or an absolute clean path
// (a shared library outside it; only ever read, to hash it).
std::string input_path_field(const json& j, const std::string& where) {
  auto value = string_field(j, "path", where);
  bool absolute_clean = value.starts_with("/") && util::is_clean_relative(value.substr(1));
  require(absolute_clean || util::is_clean_relative(value),
          where + ".path '" + value + "' is not a clean relative or absolute path");
  return value;
}

std::string string_field(const json& j, const char* key, const std::string& where) {
  require(j.contains(key) && j.at(key).is_string(), where + "." + key + " must be a string");
  auto value = j.at(key).get<std::string>();
  require(printable(value), where + "." + key + " contains control characters");
  return value;
}

std::optional<std::string> optional_string_field(const json& j,
                                                 const char* key,
                                                 const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null())
    return std::nullopt;
  return string_field(j, key, where);
}

std::uint64_t number_field(const json& j,
                           const char* key,
                           const std::string& where,
                           std::uint64_t max = UINT64_MAX) {
  require(j.contains(key) && j.at(key).is_number_unsigned(),
          where + "." + key + " must be a non-negative integer");
  auto value = j.at(key).get<std::uint64_t>();
  require(value <= max, where + "." + key + " is out of range");
  return value;
}

std::string hash_field(const json& j, const char* key, const std::string& where) {
  auto value = string_field(j, key, where);
  require(is_hex64(value), where + "." + key + " is not a SHA-256 hex digest");
  return value;
}

// cache.base_dirs: absent in manifests written before --base-dir; each one as the shim reads
// SHIMCTL_BASE_DIRS (absolute, no ':'), at most as many as it takes.
std::vector<std::string> base_dirs_field(const json& cache) {
  if (!cache.contains("base_dirs"))
    return {};
  const auto& dirs = cache.at("base_dirs");
  require(dirs.is_array(), "cache.base_dirs must be an array");
  require(dirs.size() <= SHIMCTL_BASE_DIRS_MAX,
          fmt::format("cache.base_dirs has more than {} entries", SHIMCTL_BASE_DIRS_MAX));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    auto where = fmt::format("cache.base_dirs[{}]", i);
    require(dirs[i].is_string(), where + " must be a string");
    auto dir = dirs[i].get<std::string>();
    require(printable(dir), where + " contains control characters");
    require(dir.size() > 1 && dir.starts_with("/") && !dir.ends_with("/") &&
              dir.find(':') == std::string::npos,
            where + " '" + dir + "' is not an absolute directory without ':' or a trailing '/'");
    out.push_back(std::move(dir));
  }
  return out;
}

FileRecord record_from_json(const json& j, const std::string& where) {
  require(j.is_object(), where + " must be an object");
  FileRecord r;
  r.kind = string_field(j, "kind", where);
  require(r.kind == "file", where + ".kind must be \"file\"");
  r.sha256 = hash_field(j, "sha256", where);
  r.size = number_field(j, "size", where);
  r.mode = static_cast<mode_t>(number_field(j, "mode", where, 07777));
  r.uid = static_cast<uid_t>(number_field(j, "uid", where, UINT32_MAX - 1));
  r.gid = static_cast<gid_t>(number_field(j, "gid", where, UINT32_MAX - 1));
  r.link_target = optional_string_field(j, "link_target", where);
  return r;
}

Alias alias_from_json(const json& j, const std::string& where) {
  require(j.is_object(), where + " must be an object");
  return { clean_path(j, "path", where), string_field(j, "target", where) };
}

WrappedCompiler compiler_from_json(const json& j, const std::string& where) {
  require(j.is_object(), where + " must be an object");
  WrappedCompiler c;
  c.path = clean_path(j, "path", where);
  c.real = clean_path(j, "real", where);
  require(c.real == c.path + std::string(real_suffix), where + ".real must be path + \".real\"");
  auto name = util::split_relative(c.path).second;
  require(!name.ends_with(real_suffix) && name != shim_config_file &&
            !c.path.starts_with(std::string(state_dir_name) + "/"),
          where + ".path '" + c.path + "' cannot be a compiler");
  c.family = string_field(j, "family", where);
  auto handling = string_field(j, "name_handling", where);
  require(handling == "sibling" || handling == "argv0", where + ".name_handling is unknown");
  c.name_handling = handling == "argv0" ? NameHandling::argv0 : NameHandling::sibling;
  auto verify = string_field(j, "verify", where);
  require(verify == "hip" || verify == "c-cxx" || verify == "cuda", where + ".verify is unknown");
  c.verify = verify == "hip"    ? VerifyKind::hip
             : verify == "cuda" ? VerifyKind::cuda
                                : VerifyKind::c_cxx;
  require(j.contains("original"), where + ".original is missing");
  c.original = record_from_json(j.at("original"), where + ".original");
  require(j.contains("aliases") && j.at("aliases").is_array(), where + ".aliases must be an array");
  for (std::size_t i = 0; i < j.at("aliases").size(); ++i)
    c.aliases.push_back(
      alias_from_json(j.at("aliases")[i], fmt::format("{}.aliases[{}]", where, i)));
  if (j.contains("job_lists")) {
    require(j.at("job_lists").is_object(), where + ".job_lists must be an object");
    for (const auto& [k, v] : j.at("job_lists").items()) {
      require(util::is_clean_relative(k) && v.is_string(), where + ".job_lists is malformed");
      c.job_lists[k] = v.get<std::string>();
    }
  }
  c.diverted_by = optional_string_field(j, "diverted_by", where);
  return c;
}

Manifest manifest_from_json(const json& j,
                            const std::string& expected_prefix,
                            const std::vector<std::string>& cache_tools) {
  require(j.is_object(), "the manifest is not a JSON object");
  require(j.contains("schema_version") && j.at("schema_version").is_number_integer(),
          "schema_version must be an integer");
  const auto& version = j.at("schema_version");
  require(version.is_number_unsigned() &&
            version.get<std::uint64_t>() == static_cast<std::uint64_t>(manifest_schema_version),
          fmt::format("unsupported schema_version {} (this shimctl reads {})",
                      version.dump(),
                      manifest_schema_version));
  Manifest m;
  m.shimctl_version = string_field(j, "shimctl_version", "manifest");
  m.created = string_field(j, "created", "manifest");
  m.prefix = string_field(j, "prefix", "manifest");
  require(m.prefix == expected_prefix,
          fmt::format("manifest.prefix '{}' is not this prefix ({})", m.prefix, expected_prefix));
  m.layout = string_field(j, "layout", "manifest");
  require(j.contains("cache") && j.at("cache").is_object(), "manifest.cache must be an object");
  const auto& cache = j.at("cache");
  m.cache.kind = string_field(cache, "kind", "cache");
  require(std::find(cache_tools.begin(), cache_tools.end(), m.cache.kind) != cache_tools.end(),
          "cache.kind is unknown");
  m.cache.path = string_field(cache, "path", "cache");
  require(m.cache.path.starts_with("/"), "cache.path must be absolute");
  m.cache.version = string_field(cache, "version", "cache");
  m.cache.dir = optional_string_field(cache, "dir", "cache");
  require(!m.cache.dir || m.cache.dir->starts_with("/"), "cache.dir must be absolute");
  m.cache.max_size = optional_string_field(cache, "max_size", "cache");
  m.cache.remote = optional_string_field(cache, "remote", "cache");
  require(!cache.contains("remote_read_only") || cache.at("remote_read_only").is_boolean(),
          "cache.remote_read_only must be a boolean");
  m.cache.remote_read_only = cache.value("remote_read_only", false);
  m.cache.shared_group = optional_string_field(cache, "shared_group", "cache");
  m.cache.base_dirs = base_dirs_field(cache);
  // Both absent in manifests written before the secrets file: no secret.
  require(!cache.contains("remote_secret") || cache.at("remote_secret").is_boolean(),
          "cache.remote_secret must be a boolean");
  m.cache.remote_secret = cache.value("remote_secret", false);
  require(!m.cache.remote_secret || m.cache.remote, "cache.remote_secret without cache.remote");
  m.cache.secret_id = optional_string_field(cache, "secret_id", "cache");
  require(!m.cache.secret_id ||
            (m.cache.secret_id->size() == secret_id_digits &&
             m.cache.secret_id->find_first_not_of("0123456789abcdef") == std::string::npos),
          fmt::format("cache.secret_id is not {} hex digits", secret_id_digits));
  require(j.contains("shim") && j.at("shim").is_object(), "manifest.shim must be an object");
  m.shim_sha256 = hash_field(j.at("shim"), "sha256", "shim");
  m.shim_size = number_field(j.at("shim"), "size", "shim");
  require(j.contains("fingerprint") && j.at("fingerprint").is_object(),
          "manifest.fingerprint must be an object");
  const auto& fp = j.at("fingerprint");
  m.fingerprint.sha256 = hash_field(fp, "sha256", "fingerprint");
  require(fp.contains("inputs") && fp.at("inputs").is_array(),
          "fingerprint.inputs must be an array");
  for (std::size_t i = 0; i < fp.at("inputs").size(); ++i) {
    const auto& in = fp.at("inputs")[i];
    auto where = fmt::format("fingerprint.inputs[{}]", i);
    require(in.is_object(), where + " must be an object");
    m.fingerprint.inputs.push_back({ input_path_field(in, where),
                                     hash_field(in, "sha256", where),
                                     number_field(in, "size", where) });
  }
  require(j.contains("compilers") && j.at("compilers").is_array() && !j.at("compilers").empty(),
          "manifest.compilers must be a non-empty array");
  std::set<std::string> paths;
  for (std::size_t i = 0; i < j.at("compilers").size(); ++i) {
    auto where = fmt::format("compilers[{}]", i);
    m.compilers.push_back(compiler_from_json(j.at("compilers")[i], where));
    require(paths.insert(m.compilers.back().path).second,
            fmt::format("{}.path '{}' is listed twice", where, m.compilers.back().path));
  }
  std::set<std::string> shim_dirs;
  for (const auto& c : m.compilers)
    shim_dirs.insert(util::split_relative(c.path).first);
  require(j.contains("created_files") && j.at("created_files").is_array(),
          "manifest.created_files must be an array");
  for (std::size_t i = 0; i < j.at("created_files").size(); ++i) {
    const auto& f = j.at("created_files")[i];
    require(f.is_string() && util::is_clean_relative(f.get<std::string>()) &&
              printable(f.get<std::string>()),
            fmt::format("created_files[{}] is not a relative path inside the prefix", i));
    // Rollback deletes these: only the shim configurations install writes, one per shim directory.
    auto [dir, name] = util::split_relative(f.get<std::string>());
    require(name == shim_config_file && shim_dirs.contains(dir),
            fmt::format("created_files[{}] '{}' is not the {} of a shim directory",
                        i,
                        f.get<std::string>(),
                        shim_config_file));
    require(std::find(m.created_files.begin(), m.created_files.end(), f.get<std::string>()) ==
              m.created_files.end(),
            fmt::format("created_files[{}] '{}' is listed twice", i, f.get<std::string>()));
    m.created_files.push_back(f.get<std::string>());
  }
  return m;
}

} // namespace

namespace {

// Walks the directories of RELATIVE (a clean relative path) one component at
// a time without following symlinks. A missing directory is fine (nothing of
// ours can be there); a symlink or a non-directory is refused.
util::Status check_directories(const util::Dir& prefix_dir,
                               const std::string& relative,
                               const std::string& what) {
  auto dir_part = util::split_relative(relative).first;
  std::string walked;
  for (std::size_t start = 0; start < dir_part.size();) {
    auto end = std::min(dir_part.find('/', start), dir_part.size());
    auto component = dir_part.substr(start, end - start);
    TRY_ASSIGN(auto parent, prefix_dir.open_relative(walked));
    TRY_ASSIGN(auto st, parent.stat(component));
    walked += (walked.empty() ? "" : "/") + component;
    if (!st)
      return {};
    if (st->kind != util::FileKind::directory)
      return util::fail(ExitCode::corrupt,
                        "manifest names {} '{}', but {} is {}, not a directory inside the prefix",
                        what,
                        relative,
                        parent.path_of(component),
                        st->kind == util::FileKind::symlink ? "a symlink" : "a file");
    start = end + 1;
  }
  return {};
}

} // namespace

util::Status check_manifest_paths(const util::Dir& prefix_dir, const Manifest& manifest) {
  for (const auto& c : manifest.compilers)
    TRY(check_directories(prefix_dir, c.path, "the compiler"));
  for (const auto& f : manifest.created_files)
    TRY(check_directories(prefix_dir, f, "the file"));
  return {};
}

util::Status check_manifest_shim(const util::Dir& prefix_dir,
                                 const Manifest& manifest,
                                 const std::string& shim_sha256,
                                 std::uint64_t shim_size) {
  if (manifest.shim_sha256 == shim_sha256 && manifest.shim_size == shim_size)
    return {};
  for (const auto& c : manifest.compilers) {
    auto [dir_path, name] = util::split_relative(c.path);
    auto dir = prefix_dir.open_relative(dir_path);
    if (!dir)
      continue;
    TRY_ASSIGN(auto st, dir->stat(name));
    if (!st || st->kind != util::FileKind::file || st->size != shim_size)
      continue;
    TRY_ASSIGN(auto digest, dir->sha256(name));
    if (digest == shim_sha256)
      return util::fail(ExitCode::corrupt,
                        "manifest records the shim as {} ({} bytes), but {} is shimctl's shim "
                        "({}, {} bytes)",
                        manifest.shim_sha256.substr(0, 16),
                        manifest.shim_size,
                        dir->path_of(name),
                        shim_sha256.substr(0, 16),
                        shim_size);
  }
  return {};
}

std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string to_json(const Manifest& m) {
  json compilers = json::array();
  for (const auto& c : m.compilers) {
    json aliases = json::array();
    for (const auto& a : c.aliases)
      aliases.push_back({ { "path", a.path }, { "target", a.target } });
    json jc{ { "path", c.path },
             { "real", c.real },
             { "family", c.family },
             { "name_handling", c.name_handling == NameHandling::argv0 ? "argv0" : "sibling" },
             { "verify", to_string(c.verify) },
             { "original", record_to_json(c.original) },
             { "aliases", aliases },
             { "job_lists", c.job_lists } };
    jc["diverted_by"] = optional_string(c.diverted_by);
    compilers.push_back(jc);
  }
  json inputs = json::array();
  for (const auto& in : m.fingerprint.inputs)
    inputs.push_back({ { "path", in.path }, { "sha256", in.sha256 }, { "size", in.size } });
  json cache{ { "kind", m.cache.kind },
              { "path", m.cache.path },
              { "version", m.cache.version },
              { "dir", optional_string(m.cache.dir) },
              { "max_size", optional_string(m.cache.max_size) },
              { "remote", optional_string(m.cache.remote) },
              { "remote_read_only", m.cache.remote_read_only },
              { "remote_secret", m.cache.remote_secret },
              { "shared_group", optional_string(m.cache.shared_group) },
              { "base_dirs", m.cache.base_dirs },
              { "secret_id", optional_string(m.cache.secret_id) } };
  json j{ { "schema_version", m.schema_version },
          { "shimctl_version", m.shimctl_version },
          { "created", m.created },
          { "prefix", m.prefix },
          { "layout", m.layout },
          { "cache", cache },
          { "shim", { { "sha256", m.shim_sha256 }, { "size", m.shim_size } } },
          { "fingerprint", { { "sha256", m.fingerprint.sha256 }, { "inputs", inputs } } },
          { "compilers", compilers },
          { "created_files", m.created_files } };
  return j.dump(2) + "\n";
}

util::Result<Manifest> parse_manifest(const std::string& text,
                                      const std::string& expected_prefix,
                                      const std::vector<std::string>& cache_tools) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return util::fail(ExitCode::corrupt, "manifest is not valid JSON (truncated or damaged)");
  try {
    return manifest_from_json(j, expected_prefix, cache_tools);
  } catch (const Invalid& e) {
    return util::fail(ExitCode::corrupt, "manifest is invalid: {}", e.message);
  } catch (const json::exception& e) {
    return util::fail(ExitCode::corrupt, "manifest is invalid: {}", e.what());
  }
}

} // namespace shimctl::core
