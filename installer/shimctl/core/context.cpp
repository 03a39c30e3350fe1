#include <cstdlib>
#include <filesystem>
#include <shimctl/core/context.hpp>
#include <shimctl/core/version.hpp>
#include <shimctl/util/process.hpp>

namespace shimctl::core {

namespace fs = std::filesystem;

namespace {

std::string self_dir() {
  auto self = util::self_executable();
  return self.empty() ? "." : fs::path(self).parent_path().string();
}

std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::exists(c, ec))
      return fs::weakly_canonical(c, ec).string();
  }
  return candidates.front().string();
}

} // namespace

Context locate_context() {
  Context context;
  context.version = shimctl_version;
  auto dir = fs::path(self_dir());
  if (const char* shim = std::getenv("SHIMCTL_SHIM"))
    context.shim_binary = shim;
  else
    context.shim_binary =
      first_existing({ dir / "../libexec/shimctl/shimctl-shim", dir / "../shim/shimctl-shim" });
  if (const char* data = std::getenv("SHIMCTL_DATA_DIR"))
    context.layouts_dir = fs::path(data) / "layouts";
  else
    context.layouts_dir = first_existing(
      { dir / "../share/shimctl/layouts", fs::path(shimctl_source_dir) / "manifests/layouts" });
  return context;
}

} // namespace shimctl::core
