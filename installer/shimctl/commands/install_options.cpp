#include <filesystem>
#include <shimctl/commands/install_options.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

using util::ExitCode;
using util::fail;

util::Result<std::optional<std::string>> absolute_cache_dir(const std::optional<std::string>& dir) {
  if (!dir)
    return std::nullopt;
  if (dir->empty())
    return fail(ExitCode::usage, "--cache-dir is empty; name a directory");
  std::error_code ec;
  auto absolute = std::filesystem::absolute(*dir, ec);
  if (ec)
    return fail(ExitCode::usage, "--cache-dir {}: {}", *dir, ec.message());
  auto text = absolute.lexically_normal().string();
  if (text.size() > 1 && text.ends_with('/'))
    text.pop_back();
  return text;
}

} // namespace shimctl::commands
