#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <shimctl/pieces/lent_slot.hpp>
#include <shimctl/util/text.hpp>
#include <string_view>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

int descriptor(std::string_view text) {
  if (text.empty() || text.size() > 6 || !util::all_digits(text))
    return -1;
  int fd = std::stoi(std::string(text));
  return ::fcntl(fd, F_GETFD) == -1 ? -1 : fd;
}

bool write_token(int fd) {
  char token = '+';
  while (true) {
    ssize_t n = ::write(fd, &token, 1);
    if (n == 1)
      return true;
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{ fd, POLLOUT, 0 };
      (void)::poll(&p, 1, -1);
      continue;
    }
    return false;
  }
}

} // namespace

std::optional<LentSlot> LentSlot::lend_to_the_server() {
  const char* makeflags = std::getenv("CARGO_MAKEFLAGS");
  return lend(makeflags ? makeflags : "");
}

std::optional<LentSlot> LentSlot::lend(const std::string& makeflags) {
  // The last --jobserver-auth= (or the older --jobserver-fds=) wins, as in make.
  std::string_view auth;
  for (auto word : util::words_of(makeflags))
    for (std::string_view flag : { "--jobserver-auth=", "--jobserver-fds=" })
      if (word.starts_with(flag))
        auth = word.substr(flag.size());
  int read_fd = -1, write_fd = -1;
  bool own = false;
  if (auth.starts_with("fifo:")) {
    std::string path(auth.substr(5));
    read_fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    write_fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    own = true;
  } else if (auto comma = auth.find(','); comma != std::string_view::npos) {
    read_fd = descriptor(auth.substr(0, comma));
    write_fd = descriptor(auth.substr(comma + 1));
  }
  if (read_fd < 0 || write_fd < 0 || !write_token(write_fd)) {
    if (own) {
      if (read_fd >= 0)
        ::close(read_fd);
      if (write_fd >= 0)
        ::close(write_fd);
    }
    return std::nullopt;
  }
  return LentSlot(read_fd, write_fd, own);
}

LentSlot::LentSlot(LentSlot&& other) noexcept
  : read_fd_(other.read_fd_)
  , write_fd_(other.write_fd_)
  , own_fds_(other.own_fds_)
  , lent_(other.lent_) {
  other.lent_ = false;
  other.own_fds_ = false;
}

void LentSlot::take_back() {
  while (lent_) {
    char token;
    ssize_t n = ::read(read_fd_, &token, 1);
    if (n == 1) {
      lent_ = false;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{ read_fd_, POLLIN, 0 };
      (void)::poll(&p, 1, -1);
    } else {
      lent_ = false; // the jobserver is gone: nothing to take back from
    }
  }
}

LentSlot::~LentSlot() {
  take_back();
  if (own_fds_) {
    ::close(read_fd_);
    ::close(write_fd_);
  }
}

} // namespace shimctl::pieces
