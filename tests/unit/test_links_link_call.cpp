#include "temp_dir.hpp"

#include <algorithm>
#include <chrono>
#include <doctest/doctest.h>
#include <shimctl/links/link_call.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/util/sha256.hpp>

using shimctl::links::is_device_link;
using shimctl::links::LinkStore;
using shimctl::links::read_link_call;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace {

// The wrapper's per-target call (clang-23), with the bitcode files A and B.
std::vector<std::string> wrapper_call(const std::string& a, const std::string& b) {
  return { "--no-default-config",
           "-o",
           "/tmp/prog.amdgcn.gfx90a-1.img",
           "-dumpdir",
           "prog.amdgcn.gfx90a.img.",
           "--target=amdgcn-amd-amdhsa",
           "-mcpu=gfx90a",
           "-Wl,--no-undefined",
           a,
           b,
           "-flto=full",
           "--rocm-path=/opt/rocm" };
}

} // namespace

TEST_CASE("a device link is keyed by its inputs' bytes, not their temporary names") {
  auto dir = make_temp_dir();
  write_text(dir + "/a-1.o", "bitcode a");
  write_text(dir + "/b-1.o", "bitcode b");
  write_text(dir + "/a-2.o", "bitcode a");
  write_text(dir + "/b-2.o", "bitcode b");
  auto first = read_link_call(wrapper_call(dir + "/a-1.o", dir + "/b-1.o"));
  auto again = read_link_call(wrapper_call(dir + "/a-2.o", dir + "/b-2.o"));
  REQUIRE(first.whole_reason.empty());
  CHECK(first.output == "/tmp/prog.amdgcn.gfx90a-1.img");
  CHECK(first.inputs == std::vector<std::string>{ dir + "/a-1.o", dir + "/b-1.o" });
  CHECK(first.keyed_args == again.keyed_args);
  CHECK(std::ranges::find(first.keyed_args, "input " + shimctl::util::sha256_hex("bitcode a")) !=
        first.keyed_args.end());
  write_text(dir + "/b-2.o", "bitcode B");
  CHECK(read_link_call(wrapper_call(dir + "/a-2.o", dir + "/b-2.o")).keyed_args !=
        first.keyed_args);
  CHECK(is_device_link(wrapper_call("a", "b")));
  CHECK_FALSE(is_device_link({ "--target=amdgcn-amd-amdhsa", "-c", "k.hip", "-o", "k.o" }));
}

TEST_CASE("a device link's key holds -dumpdir's last component: a link elsewhere hits") {
  auto dir = make_temp_dir();
  write_text(dir + "/a.o", "bitcode a");
  write_text(dir + "/b.o", "bitcode b");
  auto here = wrapper_call(dir + "/a.o", dir + "/b.o");
  auto elsewhere = here;
  auto at = std::ranges::find(elsewhere, "-dumpdir");
  REQUIRE(at + 1 != elsewhere.end());
  *(at + 1) = "/srv/ci/_work/build/prog.amdgcn.gfx90a.img.";
  CHECK(read_link_call(here).keyed_args == read_link_call(elsewhere).keyed_args);
  *(at + 1) = "/srv/ci/_work/build/other.amdgcn.gfx90a.img.";
  CHECK(read_link_call(here).keyed_args != read_link_call(elsewhere).keyed_args);
}

TEST_CASE("a device link the key cannot hold runs uncached") {
  auto dir = make_temp_dir();
  write_text(dir + "/a.o", "bitcode a");
  auto with = [&](std::vector<std::string> extra) {
    auto args = wrapper_call(dir + "/a.o", dir + "/a.o");
    args.insert(args.end(), extra.begin(), extra.end());
    return read_link_call(args).whole_reason;
  };
  CHECK(with({}).empty());
  CHECK(with({ "-lfoo" }) == "-lfoo: the link reads what the key cannot hold");
  CHECK(with({ "-L/opt/lib" }) == "-L/opt/lib: the link reads what the key cannot hold");
  CHECK(with({ "-Wl,-T,link.ld" }) == "-Wl,-T,link.ld: the linker may read a file");
  CHECK(with({ "@args.rsp" }) == "a response file");
  CHECK(with({ "-save-temps" }) == "-save-temps: the link reads what the key cannot hold");
  CHECK(with({ dir + "/missing.o" }) == dir + "/missing.o is no input file");
  CHECK(read_link_call({ "--target=amdgcn-amd-amdhsa", dir + "/a.o" }).whole_reason ==
        "no output file");
}

TEST_CASE("the device links' store keeps an entry whole and copies it out") {
  auto dir = make_temp_dir();
  LinkStore store(dir);
  std::string key(64, 'a');
  CHECK_FALSE(store.find(key));
  write_text(dir + "/out.img", "image bytes");
  REQUIRE(store.keep(key, dir + "/out.img"));
  auto entry = store.find(key);
  REQUIRE(entry);
  CHECK(*entry == dir + "/aa/" + key);
  REQUIRE(store.copy_out(*entry, dir + "/copy.img"));
  CHECK(read_text(dir + "/copy.img") == "image bytes");
  CHECK(store.verdict("t") == "");
  store.record_verdict("t", true);
  CHECK(store.verdict("t") == "same");
}

TEST_CASE("the device links' store drops the least recently used entries past its cap") {
  namespace fs = std::filesystem;
  auto dir = make_temp_dir();
  LinkStore store(dir, 25);
  write_text(dir + "/ten.img", "0123456789");
  auto key = [](char c) { return std::string(64, c); };
  auto age = [&](char c, int seconds) {
    fs::last_write_time(*store.find(key(c)),
                        fs::file_time_type::clock::now() - std::chrono::seconds(seconds));
  };
  REQUIRE(store.keep(key('a'), dir + "/ten.img"));
  age('a', 300);
  REQUIRE(store.keep(key('b'), dir + "/ten.img"));
  age('b', 200);
  REQUIRE(store.copy_out(*store.find(key('a')), dir + "/out.img")); // a: used now
  REQUIRE(store.keep(key('c'), dir + "/ten.img"));                  // 30 bytes > 25: b goes
  CHECK(store.find(key('a')));
  CHECK_FALSE(store.find(key('b')));
  CHECK(store.find(key('c')));
}

TEST_CASE("the old driver's per-target lld job: keyed by its known options and inputs") {
  auto dir = make_temp_dir();
  write_text(dir + "/a-gfx90a.o", "bitcode a");
  std::vector<std::string> job{ "-flavor",
                                "gnu",
                                "-m",
                                "elf64_amdgpu",
                                "--no-undefined",
                                "-shared",
                                "-plugin-opt=-amdgpu-internalize-symbols",
                                "--lto-partitions=8",
                                "-plugin-opt=mcpu=gfx90a",
                                "--whole-archive",
                                "-o",
                                dir + "/a-gfx90a.out",
                                dir + "/a-gfx90a.o",
                                "--no-whole-archive" };
  CHECK(shimctl::links::is_amdgpu_lld_link(job));
  auto call = read_link_call(job, shimctl::links::Linker::lld);
  CHECK(call.whole_reason.empty());
  CHECK(call.output == dir + "/a-gfx90a.out");
  CHECK(call.inputs == std::vector<std::string>{ dir + "/a-gfx90a.o" });
  // clang-15/16 name no emulation: the GPU is in the LTO options.
  CHECK(shimctl::links::is_amdgpu_lld_link(
    { "-flavor", "gnu", "-shared", "-plugin-opt=mcpu=gfx908", "-o", "x.out", "a.o" }));
  CHECK_FALSE(shimctl::links::is_amdgpu_lld_link({ "-flavor", "gnu", "-o", "prog", "main.o" }));
  job.push_back("--version-script=exports.map");
  CHECK(read_link_call(job, shimctl::links::Linker::lld).whole_reason ==
        "--version-script=exports.map: an lld option the key does not know");
}
