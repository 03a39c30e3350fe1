#include <openssl/rand.h>
#include <shimctl/util/random.hpp>
#include <vector>

namespace shimctl::util {

Result<std::string> random_hex(std::size_t digits) {
  std::vector<unsigned char> bytes((digits + 1) / 2);
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    return fail("OpenSSL's random generator failed (RAND_bytes)");
  std::string out;
  for (auto b : bytes)
    out += fmt::format("{:02x}", b);
  out.resize(digits);
  return out;
}

} // namespace shimctl::util
