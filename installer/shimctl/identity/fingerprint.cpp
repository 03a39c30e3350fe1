#include <algorithm>
#include <glob.h>
#include <map>
#include <set>
#include <shim/formats.h>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/shared_libs.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace shimctl::identity {

std::vector<std::string> identity_files(const std::string& prefix,
                                        const std::vector<std::string>& patterns,
                                        const std::vector<std::string>& wrapped,
                                        const std::vector<std::string>& reported) {
  std::set<std::string> files(reported.begin(), reported.end());
  for (const auto& pattern : patterns) {
    glob_t g{};
    if (::glob((prefix + "/" + pattern).c_str(), 0, nullptr, &g) == 0) {
      for (std::size_t i = 0; i < g.gl_pathc; ++i) {
        std::string match = g.gl_pathv[i];
        auto relative = match.substr(prefix.size() + 1);
        // Our own files are not part of the toolchain.
        if (relative.ends_with(core::real_suffix) || relative.ends_with(SHIMCTL_CONFIG_NAME))
          continue;
        auto resolved = core::resolve_within(prefix, relative);
        struct stat st {};
        if (::stat(match.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          continue;
        if (!resolved) {
          files.insert(relative); // a file outside the prefix, named by its link here
          continue;
        }
        bool is_wrapped = std::find(wrapped.begin(), wrapped.end(), *resolved) != wrapped.end();
        files.insert(is_wrapped ? *resolved + std::string(core::real_suffix) : *resolved);
      }
    }
    ::globfree(&g);
  }
  // The libraries those executables load: inside the prefix by their relative
  // name, elsewhere (the system's) by their absolute path.
  std::vector<std::string> executables;
  for (const auto& file : files) {
    auto full = input_path(prefix, file);
    if (file.ends_with(core::real_suffix) && ::access(full.c_str(), F_OK) != 0)
      full.resize(full.size() - core::real_suffix.size()); // before install: the original
    executables.push_back(full);
  }
  for (const auto& lib : shared_libraries(executables)) {
    if (!lib.starts_with(prefix + "/"))
      files.insert(lib);
    else if (auto relative = lib.substr(prefix.size() + 1); !relative.ends_with(core::real_suffix))
      files.insert(relative);
  }
  return { files.begin(), files.end() };
}

std::string input_path(const std::string& prefix, const std::string& path) {
  return path.starts_with("/") ? path : prefix + "/" + path;
}

util::Result<ToolchainFiles> toolchain_files(const std::string& prefix,
                                             const core::Layout& layout,
                                             const std::vector<std::string>& wrapped) {
  // One probe per clang executable: its other names (clang++, amdclang, ...) run the same jobs,
  // and the config files any name reads are inputs through the *.cfg beside the one it reports.
  std::vector<ProbeTarget> probes;
  std::set<std::pair<dev_t, ino_t>> clang_files;
  for (const auto& c : layout.compilers) {
    struct stat st {};
    if (::stat((prefix + "/" + c.path).c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (c.family == "clang" && !clang_files.insert({ st.st_dev, st.st_ino }).second)
      continue;
    probes.push_back({ c.path, c.family });
  }
  ToolchainFiles result;
  TRY_ASSIGN(result.reported, probe_job_inputs(prefix, probes, wrapped));
  result.files = identity_files(prefix, layout.identity, wrapped, result.reported.files);
  return result;
}

std::string combine_inputs(const std::vector<IdentityInput>& inputs) {
  // A wrapped compiler counts under its own name (its .real holds the same
  // bytes), and the pairs are hashed in the order of those names: the
  // fingerprint does not depend on which compilers are wrapped, so
  // `cache-key` is the same before install, after it, and after
  // `install --compilers`. identity_files yields no other ".real" names.
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  for (const auto& input : inputs) {
    std::string_view path = input.path;
    if (path.ends_with(core::real_suffix))
      path.remove_suffix(core::real_suffix.size());
    pairs.emplace_back(path, input.sha256);
  }
  std::sort(pairs.begin(), pairs.end());
  util::Sha256 h;
  for (const auto& [path, digest] : pairs) {
    h.update(path);
    h.update(std::string_view("\0", 1));
    h.update(digest);
    h.update("\n");
  }
  return h.hex_digest();
}

namespace {

// SHA-256 of a file, remembered for this process by its stat data: install
// hashes the inputs to plan, then again for the identity snapshot after the
// transaction, where only the compilers' .real (a new link: a new ctime) differ.
util::Result<std::string> digest_of(const std::string& path, const struct stat& st) {
  using Key = std::tuple<std::string, dev_t, ino_t, off_t, long, long, long, long>;
  static std::map<Key, std::string> known;
  Key key{ path,
           st.st_dev,
           st.st_ino,
           st.st_size,
           st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec,
           st.st_ctim.tv_sec,
           st.st_ctim.tv_nsec };
  if (auto it = known.find(key); it != known.end())
    return it->second;
  TRY_ASSIGN(auto digest, util::sha256_file(path));
  known.emplace(std::move(key), digest);
  return digest;
}

} // namespace

util::Result<Fingerprint> compute_fingerprint(const std::string& prefix,
                                              const std::vector<std::string>& files,
                                              bool before_install,
                                              const core::Meter& meter) {
  auto full_path = [&](const std::string& relative) {
    std::string full = input_path(prefix, relative);
    struct stat st {};
    if (before_install && relative.ends_with(core::real_suffix) && ::stat(full.c_str(), &st) != 0)
      full.resize(full.size() - core::real_suffix.size());
    return full;
  };
  std::uint64_t total_bytes = 0;
  if (meter)
    for (const auto& relative : files) {
      struct stat st {};
      if (::stat(full_path(relative).c_str(), &st) == 0)
        total_bytes += static_cast<std::uint64_t>(st.st_size);
    }
  Fingerprint fp;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& relative = files[i];
    std::string full = full_path(relative);
    struct stat st {};
    if (::stat(full.c_str(), &st) != 0)
      return util::fail("toolchain file {} disappeared while fingerprinting", full);
    TRY_ASSIGN(auto digest, digest_of(full, st));
    fp.inputs.push_back({ relative, digest, static_cast<std::uint64_t>(st.st_size) });
    bytes += static_cast<std::uint64_t>(st.st_size);
    if (meter)
      meter(
        { "fingerprinting", "files", i + 1, files.size(), bytes, std::max(bytes, total_bytes) });
  }
  fp.sha256 = combine_inputs(fp.inputs);
  return fp;
}

util::Result<Fingerprint> fingerprint_files(const core::Context& context,
                                            const std::string& prefix,
                                            const std::vector<std::string>& files,
                                            bool before_install,
                                            Announce announce) {
  if (announce == Announce::yes)
    context.progress(fmt::format("fingerprinting {} toolchain files", files.size()));
  return compute_fingerprint(prefix, files, before_install, context.meter);
}

util::Result<Fingerprint> fingerprint_toolchain(const core::Context& context,
                                                const std::string& prefix,
                                                const core::Layout& layout,
                                                const std::vector<std::string>& wrapped,
                                                bool before_install,
                                                Announce announce) {
  TRY_ASSIGN(auto found, toolchain_files(prefix, layout, wrapped));
  return fingerprint_files(context, prefix, found.files, before_install, announce);
}

} // namespace shimctl::identity
