#include <algorithm>
#include <doctest/doctest.h>
#include <shimctl/identity/shared_libs.hpp>

using namespace shimctl;

TEST_SUITE_BEGIN("core::SharedLibs");

TEST_CASE("parse_loader_list: resolved libraries and the loader; no vDSO, nothing not found") {
  const char* listing = "\tlinux-vdso.so.1 (0x00007ffd5a1f2000)\n"
                        "\tlibLLVM-15.so.1 => /lib/x86_64-linux-gnu/libLLVM-15.so.1 (0x00007f)\n"
                        "\tlibmissing.so => not found\n"
                        "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2)\n"
                        "\t/lib64/ld-linux-x86-64.so.2 (0x00007f3)\n";
  CHECK(identity::parse_loader_list(listing) ==
        std::vector<std::string>{ "/lib/x86_64-linux-gnu/libLLVM-15.so.1",
                                  "/lib/x86_64-linux-gnu/libc.so.6",
                                  "/lib64/ld-linux-x86-64.so.2" });
  CHECK(identity::parse_loader_list("").empty());
  CHECK(identity::parse_loader_list("\tstatically linked\n").empty());
}

TEST_CASE("shared_libraries: a dynamic executable's libraries, resolved; scripts add nothing") {
  auto libs = identity::shared_libraries({ "/bin/ls", "/bin/ls", "/usr/bin/ldd" }); // ldd: a script
  auto has = [&](const std::string& suffix) {
    return std::any_of(
      libs.begin(), libs.end(), [&](const std::string& l) { return l.ends_with(suffix); });
  };
  CHECK(has("/libc.so.6"));
  CHECK(std::all_of(libs.begin(), libs.end(), [](const std::string& l) { return l[0] == '/'; }));
  CHECK(std::count_if(libs.begin(), libs.end(), [](const std::string& l) {
          return l.ends_with("/libc.so.6");
        }) == 1);
  CHECK(identity::shared_libraries({ "/usr/bin/ldd", "/nonexistent" }).empty());
}

TEST_SUITE_END();
