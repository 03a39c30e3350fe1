// sccache runs as many compiles at once as its jobserver has slots, one slot per compiler it
// runs. A compile that sends its pieces to the same server must lend its slot back while they
// run, or concurrent compiles each hold a slot and wait for their pieces forever (measured: a
// deadlock with 4 parallel compiles on 2 slots). The server names its jobserver to the
// compiler in CARGO_MAKEFLAGS (--jobserver-auth=R,W or fifo:PATH): one byte written gives the
// slot back, one byte read takes one again.
#pragma once
#include <optional>
#include <string>

namespace shimctl::pieces {

class LentSlot {
public:
  // Gives this process's slot back to the jobserver MAKEFLAGS names (CARGO_MAKEFLAGS' value);
  // nullopt when it names none that can be used.
  [[nodiscard]] static std::optional<LentSlot> lend(const std::string& makeflags);
  // The same for the jobserver the cache tool's server names to the compiler it runs
  // (CARGO_MAKEFLAGS).
  [[nodiscard]] static std::optional<LentSlot> lend_to_the_server();
  LentSlot(LentSlot&& other) noexcept;
  LentSlot& operator=(LentSlot&&) = delete;
  LentSlot(const LentSlot&) = delete;
  ~LentSlot(); // takes a slot again (waiting for one) unless taken already
  // Waits for a slot and holds it again.
  void take_back();

private:
  LentSlot(int read_fd, int write_fd, bool own_fds)
    : read_fd_(read_fd)
    , write_fd_(write_fd)
    , own_fds_(own_fds) {}
  int read_fd_ = -1;
  int write_fd_ = -1;
  bool own_fds_ = false; // opened from a fifo: closed when done
  bool lent_ = true;
};

} // namespace shimctl::pieces
