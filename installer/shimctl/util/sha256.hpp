// SHA-256 through OpenSSL's EVP interface.
#pragma once

#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>

namespace shimctl::util {

// Incremental hasher; non-copyable owner of an EVP_MD_CTX.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view data);
  [[nodiscard]] std::string hex_digest(); // finishes the hash

private:
  struct Context;
  Context* ctx_;
};

[[nodiscard]] std::string sha256_hex(std::string_view data);
// Hashes an open file descriptor to its end.
[[nodiscard]] Result<std::string> sha256_fd(int fd);
// Hashes a file by path (follows symlinks).
[[nodiscard]] Result<std::string> sha256_file(const std::string& path);
// The files at A and B hold the same bytes (false when either cannot be read).
[[nodiscard]] bool same_file_bytes(const std::string& a, const std::string& b);

} // namespace shimctl::util
