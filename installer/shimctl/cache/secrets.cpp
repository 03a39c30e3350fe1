#include <cerrno>
#include <fcntl.h>
#include <shimctl/cache/remote_url.hpp>
#include <shimctl/cache/secrets.hpp>
#include <shimctl/cache/shared_cache.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::cache {

std::optional<std::string> secret_value(const std::vector<std::string>& lines,
                                        std::string_view name) {
  for (const auto& line : lines)
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == '=')
      return line.substr(name.size() + 1);
  return std::nullopt;
}

std::optional<std::string> set_remote(core::CacheSettings& settings,
                                      const std::optional<std::string>& given) {
  auto url = given ? std::optional(with_environment_keys(*given)) : std::nullopt;
  settings.remote_secret = url && util::has_credentials(*url);
  settings.remote = url ? std::optional(util::redact_credentials(*url)) : std::nullopt;
  return settings.remote_secret ? url : std::nullopt;
}

std::string secrets_path(const std::string& prefix) {
  return fmt::format("{}/{}/{}", prefix, core::state_dir_name, core::secrets_file);
}

std::string render_secrets(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines)
    out += line + "\n";
  return out;
}

SecretsFile read_secrets(const std::string& prefix) {
  SecretsFile out;
  out.path = secrets_path(prefix);
  struct stat st {};
  if (::lstat(out.path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      out.state = SecretsFile::State::unreadable;
      out.reason = util::errno_text(errno);
    }
    return out;
  }
  out.mode = st.st_mode & 07777;
  int fd = ::open(out.path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || !S_ISREG(st.st_mode)) {
    out.state = SecretsFile::State::unreadable;
    out.reason = fd < 0 ? util::errno_text(errno) : "not a regular file";
    if (fd >= 0)
      ::close(fd);
    return out;
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 || text.size() + static_cast<std::size_t>(n) > SHIMCTL_SECRETS_MAX) {
      out.state = SecretsFile::State::unreadable;
      out.reason = n < 0 ? util::errno_text(errno) : "larger than the shim reads";
      ::close(fd);
      return out;
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  out.state = SecretsFile::State::read;
  for (auto& line : util::lines_of(text))
    if (!line.empty() && !line.starts_with('#') && line.find('=') != std::string::npos)
      out.lines.push_back(std::move(line));
  return out;
}

std::string credential_text(const SecretsFile& secrets, const core::CacheSettings& settings) {
  // A shared cache's member who cannot read the file (0640, the group's) is no member any more.
  auto fallback = settings.shared_group ? "run without the remote" : "use the local cache only";
  switch (secrets.state) {
    case SecretsFile::State::read:
      return fmt::format("credential in {}, mode {:04o}{}",
                         secrets.path,
                         secrets.mode,
                         settings.shared_group ? ", group " + *settings.shared_group : "");
    case SecretsFile::State::unreadable:
      return fmt::format("credential in {} not readable by this user{}: compiles {}",
                         secrets.path,
                         secrets.reason == util::errno_text(EACCES) ? ""
                                                                    : " (" + secrets.reason + ")",
                         fallback);
    case SecretsFile::State::absent:
      break;
  }
  return fmt::format("credential file {} is missing: compiles {}", secrets.path, fallback);
}

util::Result<SecretsOwner> secrets_owner(const core::CacheSettings& settings) {
  if (!settings.shared_group)
    return SecretsOwner{ secrets_mode, ::getegid() };
  TRY_ASSIGN(auto gid, group_id(*settings.shared_group));
  return SecretsOwner{ shared_secrets_mode, gid };
}

} // namespace shimctl::cache
