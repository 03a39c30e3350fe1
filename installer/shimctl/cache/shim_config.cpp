#include <algorithm>
#include <fmt/ranges.h> // fmt::join (fmt >= 10)
#include <set>
#include <shim/formats.h> // the format, shared with the shim
#include <shim/path_roots.h>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/core/transaction.hpp>
#include <unistd.h>

namespace shimctl::cache {

namespace {

// One directive line, as shim/formats.h defines it.
std::string line(shimctl_directive_kind kind,
                 const std::string& first,
                 const std::string& second = {}) {
  auto d = shimctl_directive_of(kind, first.c_str(), second.c_str());
  std::string out(shimctl_render_directive(nullptr, 0, &d), '\0');
  shimctl_render_directive(out.data(), out.size() + 1, &d);
  return out;
}

// NAME is a clang driver's file: clang, clang++, clang-21, clang++-15 (or a wrapped one's .real).
bool is_clang_driver(std::string_view name) {
  if (name.ends_with(".real"))
    name.remove_suffix(sizeof ".real" - 1);
  if (!name.starts_with("clang"))
    return false;
  name.remove_prefix(sizeof "clang" - 1);
  if (name.starts_with("++"))
    name.remove_prefix(2);
  if (name.empty())
    return true;
  return name.size() > 1 && name[0] == '-' &&
         std::all_of(name.begin() + 1, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// The absolute path of NAME in DIR (relative to the prefix, or absolute).
std::string beside(const core::Manifest& manifest,
                   const std::string& dir,
                   const std::string& name) {
  if (dir.starts_with("/"))
    return fmt::format("{}/{}", dir, name);
  return fmt::format(
    "{}/{}{}{}", manifest.prefix == "/" ? "" : manifest.prefix, dir, dir.empty() ? "" : "/", name);
}

// What clang in DIR runs for --offload-arch=native: clang >= 23 runs offload-arch (with
// --only=amdgpu), older ones amdgpu-arch, which LLVM >= 20 ships as a link to offload-arch. So
// offload-arch where it exists (run bare it names every GPU: a superset of the answer, never
// less), else amdgpu-arch (LLVM <= 19).
std::string amd_gpu_probe(const core::Manifest& manifest, const std::string& dir) {
  auto offload_arch = beside(manifest, dir, "offload-arch");
  auto full = offload_arch.starts_with("/") ? offload_arch : manifest.prefix + "/" + offload_arch;
  if (::access(full.c_str(), X_OK) == 0)
    return offload_arch;
  return beside(manifest, dir, "amdgpu-arch");
}

} // namespace

std::optional<std::string> native_probe(const core::Manifest& manifest,
                                        const std::string& family,
                                        const std::string& dir) {
  if (family == "nvcc") // nvcc runs it from the directory it was invoked from
    return beside(manifest, dir, "__nvcc_device_query");
  if (family == "clang") // clang looks in its own directory first
    return amd_gpu_probe(manifest, dir);
  if (family != "hipcc")
    return std::nullopt;
  // hipcc hands --offload-arch=native to the clang it runs: the identity's clang driver.
  for (const auto& input : manifest.fingerprint.inputs) {
    auto [input_dir, name] = util::split_relative(input.path);
    if (is_clang_driver(name))
      return amd_gpu_probe(manifest, input_dir);
  }
  return std::nullopt;
}

std::vector<std::string> shim_directories(const core::Manifest& manifest) {
  std::vector<std::string> dirs;
  for (const auto& c : manifest.compilers) {
    auto dir = util::split_relative(c.path).first;
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
      dirs.push_back(dir);
  }
  return dirs;
}

std::vector<std::string> identity_paths(const core::Manifest& manifest) {
  std::vector<std::string> paths;
  for (const auto& input : manifest.fingerprint.inputs)
    if (!input.path.starts_with("/"))
      paths.push_back(manifest.prefix + "/" + input.path);
  return paths;
}

std::vector<std::string> key_environment(const std::string& family) {
  // What each driver reads from the environment that changes the object
  // (hipcc.pl and hipvars.pm; clang's driver; nvcc). The cache tools hash
  // none of them; the shim puts their values into the cache key.
  if (family == "hipcc")
    return { "HCC_AMDGPU_TARGET",
             "HIPCC_COMPILE_FLAGS_APPEND",
             "HIPCC_LINK_FLAGS_APPEND",
             "HIP_PLATFORM",
             "HIP_COMPILER",
             "HIP_RUNTIME",
             "HIP_PATH",
             "ROCM_PATH",
             "HSA_PATH",
             "HIP_CLANG_PATH",
             "HIP_ROCCLR_HOME",
             "HIP_LIB_PATH",
             "DEVICE_LIB_PATH",
             "HIP_DEVICE_LIB_PATH",
             "HIP_CLANG_HCC_COMPAT_MODE",
             "HIP_COMPILE_CXX_AS_HIP",
             "CUDA_PATH",
             "CCC_OVERRIDE_OPTIONS" };
  if (family == "clang")
    return { "CCC_OVERRIDE_OPTIONS", "HIP_DEVICE_LIB_PATH", "ROCM_PATH", "HIP_PATH" };
  if (family == "nvcc")
    return { "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN" };
  return {};
}

std::optional<std::string> target_probe(const std::string& family) {
  // hipcc without a target (no --offload-arch, no HCC_AMDGPU_TARGET) builds
  // for the GPUs rocm_agent_enumerator, beside it, reports.
  if (family == "hipcc")
    return "rocm_agent_enumerator";
  return std::nullopt;
}

std::string render_shim_config(const core::Manifest& manifest,
                               const std::string& dir,
                               const ShimEnvironment& env) {
  std::string out = SHIMCTL_CONFIG_HEADER "\n";
  out += "# Generated by shimctl " + manifest.shimctl_version + "; rewritten by install/refresh.\n";
  out += line(SHIMCTL_STATE, fmt::format("{}/{}", manifest.prefix, core::state_dir_name));
  out += line(SHIMCTL_CACHE, manifest.cache.path);
  out += line(SHIMCTL_CACHE_KIND, manifest.cache.kind);
  if (!env.identity_helper.empty())
    out += line(SHIMCTL_IDENTITY_HELPER, env.identity_helper);
  if (!env.pieces_helper.empty())
    out += line(SHIMCTL_PIECES_HELPER, env.pieces_helper);
  if (!env.sccache_key.empty())
    out += line(SHIMCTL_SCCACHE_SERVER, env.sccache_transport, env.sccache_key);
  if (!env.store_probe.empty())
    out += line(SHIMCTL_STORE, env.store_probe, env.store_address);
  if (manifest.cache.remote_secret) // its lines win over the setenv lines below
    out += line(SHIMCTL_SECRETS, secrets_path(manifest.prefix));
  for (const auto& d : env.defaults)
    out += line(SHIMCTL_SETENV, d);
  if (!manifest.cache.base_dirs.empty()) // --base-dir: roots of the location-free paths
    out += line(
      SHIMCTL_SETENV,
      fmt::format("{}={}", SHIMCTL_BASE_DIRS_VARIABLE, fmt::join(manifest.cache.base_dirs, ":")));
  for (const auto& a : env.appends)
    out += line(SHIMCTL_APPENDENV, a);
  std::set<std::string> names, key_env;
  for (const auto& c : manifest.compilers) {
    auto [cdir, name] = util::split_relative(c.path);
    if (cdir != dir)
      continue;
    out += line(SHIMCTL_COMPILER, name, util::split_relative(c.real).second);
    names.insert(name);
    for (auto& variable : key_environment(c.family))
      key_env.insert(variable);
    if (auto probe = target_probe(c.family))
      out += line(SHIMCTL_TARGET_PROBE, name, beside(manifest, dir, *probe));
    if (auto probe = native_probe(manifest, c.family, dir))
      out += line(SHIMCTL_NATIVE_PROBE, name, *probe);
  }
  for (const auto& variable : key_env)
    out += line(SHIMCTL_KEYENV, variable);
  for (const auto& c : manifest.compilers) {
    auto [cdir, name] = util::split_relative(c.path);
    if (cdir != dir)
      continue;
    for (const auto& alias : c.aliases) {
      auto alias_name = util::split_relative(alias.path).second;
      if (names.insert(alias_name).second)
        out += line(SHIMCTL_ALIAS, alias_name, name);
    }
  }
  return out;
}

} // namespace shimctl::cache
