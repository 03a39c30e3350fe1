#include "temp_dir.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/util/sha256.hpp>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> patterns = { "bin/hipcc",      "bin/.hipVersion",
                                            "llvm/bin/clang", "llvm/bin/clang-[0-9]*",
                                            "llvm/bin/*.cfg", "amdgcn/bitcode/*.bc",
                                            "missing/file",   "llvm/lib/clang" };
const std::vector<std::string> wrapped = { "bin/hipcc", "llvm/bin/clang" };

// A small prefix shaped like ROCm, before install.
std::string make_prefix() {
  auto p = make_temp_dir();
  write_text(p + "/bin/hipcc", "#!/usr/bin/perl\n# hipcc\n");
  write_text(p + "/llvm/bin/clang", "clang binary");
  fs::create_symlink("clang", p + "/llvm/bin/clang-15");
  fs::create_symlink("clang", p + "/llvm/bin/clang++");
  write_text(p + "/llvm/bin/clang.cfg", "@rocm.cfg\n");
  write_text(p + "/amdgcn/bitcode/ocml.bc", "ocml");
  write_text(p + "/amdgcn/bitcode/oclc_finite_only_off.bc", "off");
  write_text(p + "/amdgcn/bitcode/notes.txt", "not bitcode");
  fs::create_directories(p + "/llvm/lib/clang"); // a directory matching a pattern
  return p;
}

} // namespace

TEST_SUITE_BEGIN("core::Fingerprint");

TEST_CASE("identity_files before install: wrapped compilers by their .real, links resolved") {
  auto p = make_prefix();
  auto files = identity::identity_files(p, patterns, wrapped);
  CHECK(files == std::vector<std::string>{ "amdgcn/bitcode/oclc_finite_only_off.bc",
                                           "amdgcn/bitcode/ocml.bc",
                                           "bin/hipcc.real",
                                           "llvm/bin/clang.cfg",
                                           "llvm/bin/clang.real" });
  SUBCASE("not wrapped: the file itself") {
    CHECK(identity::identity_files(p, { "bin/hipcc", "llvm/bin/clang-15" }, {}) ==
          std::vector<std::string>{ "bin/hipcc", "llvm/bin/clang" });
  }
}

TEST_CASE("identity_files after install: the .real files and shim configs are not globbed twice") {
  auto p = make_prefix();
  fs::rename(p + "/bin/hipcc", p + "/bin/hipcc.real");
  write_text(p + "/bin/hipcc", "the shim");
  fs::rename(p + "/llvm/bin/clang", p + "/llvm/bin/clang.real");
  write_text(p + "/llvm/bin/clang", "the shim");
  write_text(p + "/llvm/bin/.shimctl.conf", "shimctl-shim-config 1\n");
  auto files = identity::identity_files(p, { "bin/*", "llvm/bin/*", "llvm/bin/.*" }, wrapped);
  CHECK(files ==
        std::vector<std::string>{ "bin/hipcc.real", "llvm/bin/clang.cfg", "llvm/bin/clang.real" });
}

TEST_CASE("identity_files keeps a link that leaves the prefix under its own name") {
  auto p = make_prefix();
  auto outside = make_temp_dir();
  write_text(outside + "/version", "5.2.3\n");
  fs::create_symlink(outside + "/version", p + "/bin/.hipVersion");
  fs::create_symlink(outside + "/nowhere", p + "/llvm/bin/clang-16"); // dangling: ignored
  auto files = identity::identity_files(p, patterns, wrapped);
  CHECK(std::find(files.begin(), files.end(), "bin/.hipVersion") != files.end());
  CHECK(std::find(files.begin(), files.end(), "llvm/bin/clang-16") == files.end());
}

TEST_CASE(
  "compute_fingerprint hashes the contents; before install a .real is read from the original") {
  auto p = make_prefix();
  auto files = identity::identity_files(p, patterns, wrapped);
  auto fp = identity::compute_fingerprint(p, files, true);
  REQUIRE(fp);
  REQUIRE(fp->inputs.size() == files.size());
  for (const auto& input : fp->inputs) {
    CAPTURE(input.path);
    auto original = input.path.ends_with(".real")
                      ? p + "/" + input.path.substr(0, input.path.size() - 5)
                      : p + "/" + input.path;
    CHECK(input.sha256 == util::sha256_hex(shimctl::test::read_text(original)));
    CHECK(input.size == fs::file_size(original));
  }
  CHECK(fp->sha256 == identity::combine_inputs(fp->inputs));
  CHECK(fp->cache_key("rocm") == "rocm-" + fp->sha256.substr(0, 16));

  SUBCASE("installed, the .real must exist") {
    auto after = identity::compute_fingerprint(p, files, false);
    REQUIRE_FALSE(after);
    CHECK(after.error().message ==
          fmt::format("toolchain file {}/bin/hipcc.real disappeared while fingerprinting", p));
  }
  SUBCASE("the same bytes at another path and time: the same fingerprint") {
    auto q = make_prefix();
    fs::last_write_time(q + "/amdgcn/bitcode/ocml.bc",
                        fs::file_time_type::clock::now() - std::chrono::hours(24));
    auto again =
      identity::compute_fingerprint(q, identity::identity_files(q, patterns, wrapped), true);
    REQUIRE(again);
    CHECK(again->sha256 == fp->sha256);
  }
  SUBCASE("a device library changes: the fingerprint changes") {
    write_text(p + "/amdgcn/bitcode/ocml.bc", "ocml v2");
    auto changed = identity::compute_fingerprint(p, files, true);
    REQUIRE(changed);
    CHECK(changed->sha256 != fp->sha256);
    CHECK(changed->inputs[1].sha256 != fp->inputs[1].sha256);
    CHECK(changed->inputs[0] == fp->inputs[0]);
  }
}

TEST_CASE("combine_inputs is stable and depends on every path and digest") {
  std::vector<identity::IdentityInput> inputs = { { "a/x.bc", std::string(64, '0'), 1 },
                                                  { "bin/hipcc.real", std::string(64, 'f'), 2 } };
  // SHA-256 of "a/x.bc\0<64 x 0>\nbin/hipcc\0<64 x f>\n": a CI cache key depends on it.
  // The .real counts under the compiler's name: wrapped or not, the same fingerprint.
  CHECK(identity::combine_inputs(inputs) ==
        "514372e3898a84b806a540f8492b0a56224e3d8424b3f2ea6cd3928208bb93db");
  auto unwrapped = inputs;
  unwrapped[1].path = "bin/hipcc";
  CHECK(identity::combine_inputs(unwrapped) == identity::combine_inputs(inputs));
  CHECK(identity::combine_inputs({}) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  auto base = identity::combine_inputs(inputs);

  auto sizes = inputs;
  sizes[0].size = 999; // the size is informational, not part of the key
  CHECK(identity::combine_inputs(sizes) == base);

  auto renamed = inputs;
  renamed[0].path = "a/y.bc";
  CHECK(identity::combine_inputs(renamed) != base);

  auto rehashed = inputs;
  rehashed[1].sha256[63] = 'e';
  CHECK(identity::combine_inputs(rehashed) != base);

  // A set of files: the order they are listed in does not matter, and an unwrapped
  // bin/hipcc sorts before bin/hipcc.pl where bin/hipcc.real sorts after it.
  auto swapped = std::vector<identity::IdentityInput>{ inputs[1], inputs[0] };
  CHECK(identity::combine_inputs(swapped) == base);
  std::vector<identity::IdentityInput> wrapped_set = {
    { "bin/hipcc.pl", std::string(64, '1'), 1 }, { "bin/hipcc.real", std::string(64, '2'), 1 }
  };
  std::vector<identity::IdentityInput> unwrapped_set = {
    { "bin/hipcc", std::string(64, '2'), 1 }, { "bin/hipcc.pl", std::string(64, '1'), 1 }
  };
  CHECK(identity::combine_inputs(wrapped_set) == identity::combine_inputs(unwrapped_set));

  // The separator keeps path and digest apart: moving a character across them changes the key.
  std::vector<identity::IdentityInput> shifted = { { "a/x.bc0", std::string(63, '0'), 1 },
                                                   inputs[1] };
  CHECK(identity::combine_inputs(shifted) != base);
}

TEST_SUITE_END();
