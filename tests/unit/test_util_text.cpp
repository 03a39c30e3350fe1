#include <doctest/doctest.h>
#include <shimctl/util/text.hpp>

using namespace shimctl;

TEST_SUITE_BEGIN("util::text");

TEST_CASE("first_error_line quotes the compiler's first error, not its first line") {
  // clang-23 with HIP 7.0.2's headers: the first line only says where the include came from.
  CHECK(util::first_error_line("In file included from k.hip:1:\n"
                               "In file included from /opt/rocm/include/hip/hip_runtime.h:62:\n"
                               "/opt/rocm/include/hip/amd_detail/amd_warp_functions.h:40:3: "
                               "error: use of undeclared identifier '__AMDGCN_WAVEFRONT_SIZE'\n"
                               "1 error generated when compiling for gfx90a.\n") ==
        "/opt/rocm/include/hip/amd_detail/amd_warp_functions.h:40:3: error: use of undeclared "
        "identifier '__AMDGCN_WAVEFRONT_SIZE'");
  CHECK(util::first_error_line("clang: error: no such file or directory: 'k.hip'\n") ==
        "clang: error: no such file or directory: 'k.hip'");
  CHECK(util::first_error_line("k.cu(3): error : identifier \"x\" is undefined\r\n") ==
        "k.cu(3): error : identifier \"x\" is undefined");
  // No error line: the first line that says anything.
  CHECK(util::first_error_line("\n  \nSegmentation fault\nmore\n") == "Segmentation fault");
  CHECK(util::first_error_line("") == "");
  CHECK(util::first_error_line("a: error: " + std::string(300, 'x'), 20) ==
        "a: error: xxxxxxxxxx...");
}

TEST_CASE("redact_credentials masks a URL's userinfo, whatever its form") {
  CHECK(util::redact_credentials("redis://S3cret@127.0.0.1:6379") == "redis://***@127.0.0.1:6379");
  CHECK(util::redact_credentials("redis://user:S3cret@cache:6379/2") == "redis://***@cache:6379/2");
  CHECK(util::redact_credentials("redis://:S3cret@cache") == "redis://***@cache");
  CHECK(util::redact_credentials("http://u:p@host/cache|layout=bazel") ==
        "http://***@host/cache|layout=bazel");
  // The last '@' of the authority ends the userinfo; a '@' in the path is not userinfo.
  CHECK(util::redact_credentials("http://a@b:c@host/x@y") == "http://***@host/x@y");
  CHECK(util::redact_credentials("http://host/x@y") == "http://host/x@y");
}

TEST_CASE("redact_credentials masks credential attributes, and leaves the rest alone") {
  CHECK(util::redact_credentials("http://host/c|bearer-token=abc|read-only") ==
        "http://host/c|bearer-token=***|read-only");
  CHECK(util::redact_credentials("redis://h|password=pw") == "redis://h|password=***");
  CHECK(util::redact_credentials("redis://127.0.0.1:6379|read-only") ==
        "redis://127.0.0.1:6379|read-only");
  CHECK(util::redact_credentials("file:/srv/cache|umask=002") == "file:/srv/cache|umask=002");
  CHECK(util::redact_credentials("") == "");
}

TEST_CASE("redact_credentials works on a storage list and on a whole message") {
  CHECK(util::redact_credentials("file:/s|umask=002 redis://pw@h:1|read-only http://u:v@w/") ==
        "file:/s|umask=002 redis://***@h:1|read-only http://***@w/");
  CHECK(util::redact_credentials("ccache: error: cannot connect to redis://pw@h:1: refused") ==
        "ccache: error: cannot connect to redis://***@h:1: refused");
}

TEST_CASE("redacting twice changes nothing; has_credentials tells the two apart") {
  auto once = util::redact_credentials("redis://u:pw@h:1|bearer-token=t");
  CHECK(util::redact_credentials(once) == once);
  CHECK(util::has_credentials("redis://pw@h:1"));
  CHECK(util::has_credentials("http://h/c|bearer-token=t"));
  CHECK_FALSE(util::has_credentials(once));
  CHECK_FALSE(util::has_credentials("redis://127.0.0.1:6379"));
  CHECK_FALSE(util::has_credentials("file:/srv/cache|umask=002"));
}

TEST_SUITE_END();
