#include <archive.h>
#include <cerrno>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/tar_reader.hpp>

namespace shimctl::util {

void TarReaderFree::operator()(archive* a) const {
  archive_read_free(a);
}

std::string tar_error(archive* a) {
  const char* text = archive_error_string(a);
  return text ? text : "unknown libarchive error";
}

Result<TarReader> open_tar(const std::string& file) {
  TarReader a(archive_read_new());
  if (!a)
    return fail("out of memory");
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), file.c_str(), 1 << 16) != ARCHIVE_OK) {
    // libarchive says "Failed to open 'FILE'" and keeps the why in its errno; its own codes
    // (EILSEQ: not a known format; EINVAL) have texts of their own.
    int err = archive_errno(a.get());
    bool system = err > 0 && err != EILSEQ && err != EINVAL;
    return fail(ExitCode::usage, "{}", system ? errno_text(err) : tar_error(a.get()));
  }
  return a;
}

Result<std::string> read_tar_entry(archive* a, const std::string& name, std::size_t max) {
  std::string data;
  char buffer[1 << 16];
  while (true) {
    auto n = archive_read_data(a, buffer, sizeof buffer);
    if (n < 0)
      return fail(ExitCode::usage, "cannot read {}: {}", name, tar_error(a));
    if (n == 0)
      return data;
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > max)
      return fail(ExitCode::usage, "{} is larger than {} bytes", name, max);
  }
}

} // namespace shimctl::util
