#include <cstdlib>
#include <fmt/format.h>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/util/text.hpp>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

// The descriptor SHIMCTL_TRACE_FD names, when it is still that file; else -1.
int trace_fd() {
  const char* named = std::getenv("SHIMCTL_TRACE_FD");
  if (!named)
    return -1;
  auto fields = util::fields_of(named, ':');
  if (fields.size() != 3 || !util::all_digits(fields[0]) || !util::all_digits(fields[1]) ||
      !util::all_digits(fields[2]) || fields[0].size() > 6)
    return -1;
  int fd = std::stoi(std::string(fields[0]));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || std::to_string(st.st_dev) != fields[1] ||
      std::to_string(st.st_ino) != fields[2])
    return -1;
  return fd;
}

} // namespace

void trace(std::string_view line) {
  static const int fd = trace_fd();
  if (fd < 0)
    return;
  auto text = fmt::format("shimctl-shim: pieces: {}\n", line);
  (void)!::write(fd, text.data(), text.size());
}

} // namespace shimctl::pieces
