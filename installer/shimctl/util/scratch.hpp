// A scratch directory under $TMPDIR (or /tmp), removed when it goes away.
#pragma once

#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>

namespace shimctl::util {

class ScratchDir {
public:
  [[nodiscard]] static util::Result<ScratchDir> create(std::string_view purpose);
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ScratchDir(const ScratchDir&) = delete;
  ~ScratchDir();

  [[nodiscard]] const std::string& path() const {
    return path_;
  }
  [[nodiscard]] std::string file(std::string_view name) const;
  [[nodiscard]] util::Status write(std::string_view name, std::string_view content) const;

private:
  explicit ScratchDir(std::string path)
    : path_(std::move(path)) {}
  std::string path_;
};

} // namespace shimctl::util
