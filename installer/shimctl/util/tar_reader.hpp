// Reading a tar archive, zstd-compressed or plain (libarchive): the handle and the steps that
// both readers of a `shimctl cache export` file take (cache/cache_import.cpp and
// records/archive_records.cpp; records/ sits below cache/, so the shared part lives here).
#pragma once

#include <cstddef>
#include <memory>
#include <shimctl/util/error.hpp>
#include <string>

struct archive;

namespace shimctl::util {

struct TarReaderFree {
  void operator()(archive* a) const;
};
using TarReader = std::unique_ptr<archive, TarReaderFree>;

// FILE opened for reading, its first entry not read yet; the error says why (errno's text, else
// libarchive's; exit code usage: the user named the file).
[[nodiscard]] Result<TarReader> open_tar(const std::string& file);

// libarchive's last error text for A.
[[nodiscard]] std::string tar_error(archive* a);

// The current entry's data in full (NAME in errors); an error when it holds more than MAX bytes.
[[nodiscard]] Result<std::string> read_tar_entry(archive* a,
                                                 const std::string& name,
                                                 std::size_t max);

} // namespace shimctl::util
