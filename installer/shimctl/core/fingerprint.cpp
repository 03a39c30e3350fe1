#include <algorithm>
#include <glob.h>
#include <set>
#include <shimctl/core/fingerprint.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <utility>

namespace shimctl::core {

std::string Fingerprint::cache_key(const std::string& layout) const {
  return fmt::format("{}-{}", layout, sha256.substr(0, 16));
}

std::vector<std::string> identity_files(const std::string& prefix,
                                        const std::vector<std::string>& patterns,
                                        const std::vector<std::string>& wrapped) {
  std::set<std::string> files;
  for (const auto& pattern : patterns) {
    glob_t g{};
    if (::glob((prefix + "/" + pattern).c_str(), 0, nullptr, &g) == 0) {
      for (std::size_t i = 0; i < g.gl_pathc; ++i) {
        std::string match = g.gl_pathv[i];
        auto relative = match.substr(prefix.size() + 1);
        // Our own files are not part of the toolchain.
        if (relative.ends_with(real_suffix) || relative.ends_with(".shimctl.conf"))
          continue;
        auto resolved = resolve_within(prefix, relative);
        struct stat st {};
        if (::stat(match.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          continue;
        if (!resolved) {
          files.insert(relative); // a file outside the prefix, named by its link here
          continue;
        }
        bool is_wrapped = std::find(wrapped.begin(), wrapped.end(), *resolved) != wrapped.end();
        files.insert(is_wrapped ? *resolved + std::string(real_suffix) : *resolved);
      }
    }
    ::globfree(&g);
  }
  return { files.begin(), files.end() };
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
    if (path.ends_with(real_suffix))
      path.remove_suffix(real_suffix.size());
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

FingerprintProgress fingerprint_meter(const Context& context) {
  return [&context](
           std::size_t done, std::size_t total, std::uint64_t bytes, std::uint64_t total_bytes) {
    context.meter({ "fingerprinting", "files", done, total, bytes, total_bytes });
  };
}

util::Result<Fingerprint> compute_fingerprint(const std::string& prefix,
                                              const std::vector<std::string>& files,
                                              bool before_install,
                                              const FingerprintProgress& progress) {
  auto full_path = [&](const std::string& relative) {
    std::string full = prefix + "/" + relative;
    struct stat st {};
    if (before_install && relative.ends_with(real_suffix) && ::stat(full.c_str(), &st) != 0)
      full.resize(full.size() - real_suffix.size());
    return full;
  };
  std::uint64_t total_bytes = 0;
  if (progress)
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
    TRY_ASSIGN(auto digest, util::sha256_file(full));
    fp.inputs.push_back({ relative, digest, static_cast<std::uint64_t>(st.st_size) });
    bytes += static_cast<std::uint64_t>(st.st_size);
    if (progress)
      progress(i + 1, files.size(), bytes, std::max(bytes, total_bytes));
  }
  fp.sha256 = combine_inputs(fp.inputs);
  return fp;
}

} // namespace shimctl::core
