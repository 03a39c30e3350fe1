#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <openssl/evp.h>
#include <shimctl/util/sha256.hpp>
#include <unistd.h>

namespace shimctl::util {

struct Sha256::Context {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md{ EVP_MD_CTX_new(), &EVP_MD_CTX_free };
};

Sha256::Sha256()
  : ctx_(new Context) {
  EVP_DigestInit_ex(ctx_->md.get(), EVP_sha256(), nullptr);
}

Sha256::~Sha256() {
  delete ctx_;
}

void Sha256::update(std::string_view data) {
  EVP_DigestUpdate(ctx_->md.get(), data.data(), data.size());
}

std::string Sha256::hex_digest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx_->md.get(), digest.data(), &length);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex_digest();
}

Result<std::string> sha256_fd(int fd) {
  Sha256 h;
  std::array<char, 1 << 16> buffer{};
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail("{}", std::strerror(errno));
    if (n == 0)
      break;
    h.update({ buffer.data(), static_cast<std::size_t>(n) });
  }
  return h.hex_digest();
}

Result<std::string> sha256_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot read {}: {}", path, std::strerror(errno));
  auto digest = sha256_fd(fd);
  ::close(fd);
  if (!digest)
    return fail("cannot hash {}: {}", path, digest.error().message);
  return digest;
}

bool same_file_bytes(const std::string& a, const std::string& b) {
  auto ha = sha256_file(a), hb = sha256_file(b);
  return ha && hb && *ha == *hb;
}

} // namespace shimctl::util
