#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <shimctl/util/scratch.hpp>
#include <stdlib.h>

namespace shimctl::util {

util::Result<ScratchDir> ScratchDir::create(std::string_view purpose) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/shimctl-{}.XXXXXX", tmp && *tmp ? tmp : "/tmp", purpose);
  if (!::mkdtemp(pattern.data()))
    return util::fail("cannot create a scratch directory {}", pattern);
  return ScratchDir(pattern);
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept
  : path_(std::exchange(other.path_, "")) {}

ScratchDir::~ScratchDir() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
}

std::string ScratchDir::file(std::string_view name) const {
  return fmt::format("{}/{}", path_, name);
}

util::Status ScratchDir::write(std::string_view name, std::string_view content) const {
  std::ofstream out(file(name), std::ios::binary);
  out << content;
  if (!out)
    return util::fail("cannot write {}", file(name));
  return {};
}

} // namespace shimctl::util
