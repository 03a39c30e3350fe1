#include "temp_dir.hpp"

#include <filesystem>
#include <shimctl/util/dir.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

TEST_SUITE_BEGIN("util::Dir");

TEST_CASE("is_clean_relative accepts plain relative paths only") {
  CHECK(util::is_clean_relative("a"));
  CHECK(util::is_clean_relative("bin/hipcc"));
  CHECK(util::is_clean_relative("llvm/bin/clang++.real"));
  CHECK(util::is_clean_relative(".shimctl/manifest.json"));
  CHECK(util::is_clean_relative("a/..b/c")); // "..b" is an ordinary name

  CHECK_FALSE(util::is_clean_relative(""));
  CHECK_FALSE(util::is_clean_relative("/abs/path"));
  CHECK_FALSE(util::is_clean_relative(".."));
  CHECK_FALSE(util::is_clean_relative("a/../b"));
  CHECK_FALSE(util::is_clean_relative("a/.."));
  CHECK_FALSE(util::is_clean_relative("."));
  CHECK_FALSE(util::is_clean_relative("./a"));
  CHECK_FALSE(util::is_clean_relative("a/./b"));
  CHECK_FALSE(util::is_clean_relative("a//b"));
  CHECK_FALSE(util::is_clean_relative("a/"));
  CHECK_FALSE(util::is_clean_relative(std::string_view("a\0b", 3)));
}

TEST_CASE("split_relative splits at the last slash") {
  CHECK(util::split_relative("a/b/c") == std::pair<std::string, std::string>{ "a/b", "c" });
  CHECK(util::split_relative("bin/hipcc") == std::pair<std::string, std::string>{ "bin", "hipcc" });
  CHECK(util::split_relative("c") == std::pair<std::string, std::string>{ "", "c" });
}

TEST_CASE("write_atomic writes content and mode, replaces, and leaves no temporaries") {
  auto root = make_temp_dir();
  auto dir = util::Dir::open(root);
  REQUIRE(dir);

  REQUIRE(dir->write_atomic("f", "first", 0640));
  CHECK(read_text(root + "/f") == "first");
  struct stat st {};
  REQUIRE(::stat((root + "/f").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  auto before = std::filesystem::hard_link_count(root + "/f");
  REQUIRE(dir->write_atomic("f", std::string(100000, 'x'), 0755));
  CHECK(read_text(root + "/f") == std::string(100000, 'x'));
  REQUIRE(::stat((root + "/f").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  CHECK(std::filesystem::hard_link_count(root + "/f") == before);

  SUBCASE("empty content") {
    REQUIRE(dir->write_atomic("empty", "", 0644));
    CHECK(std::filesystem::file_size(root + "/empty") == 0);
  }

  auto names = dir->list();
  REQUIRE(names);
  for (const auto& n : *names)
    CHECK_MESSAGE(n.find("shimctl-tmp") == std::string::npos, "temporary left behind: " << n);
}

TEST_CASE("write_atomic refuses names that are not one plain component") {
  auto root = make_temp_dir();
  auto dir = util::Dir::open(root);
  REQUIRE(dir);
  for (const char* bad : { "a/b", "..", ".", "" }) {
    auto r = dir->write_atomic(bad, "x", 0644);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == fmt::format("invalid file name '{}'", bad));
  }
  CHECK_FALSE(std::filesystem::exists(root + "/a"));
}

TEST_CASE("write_atomic replaces a symlink itself, never writing through it") {
  auto root = make_temp_dir();
  write_text(root + "/target", "untouched");
  std::filesystem::create_symlink(root + "/target", root + "/link");
  auto dir = util::Dir::open(root);
  REQUIRE(dir);
  REQUIRE(dir->write_atomic("link", "new", 0644));
  CHECK(read_text(root + "/target") == "untouched");
  CHECK_FALSE(std::filesystem::is_symlink(root + "/link"));
  CHECK(read_text(root + "/link") == "new");
}

TEST_CASE("open_relative walks real directories") {
  auto root = make_temp_dir();
  std::filesystem::create_directories(root + "/a/b/c");
  write_text(root + "/a/b/c/f", "deep");
  auto dir = util::Dir::open(root);
  REQUIRE(dir);
  auto sub = dir->open_relative("a/b/c");
  REQUIRE(sub);
  CHECK(sub->path() == root + "/a/b/c");
  auto text = sub->read_file("f");
  REQUIRE(text);
  CHECK(*text == "deep");

  auto self = dir->open_relative("");
  REQUIRE(self);
  CHECK(self->path() == root);
}

TEST_CASE("open_relative refuses symlinks and unclean paths") {
  auto root = make_temp_dir();
  std::filesystem::create_directories(root + "/real/inner");
  std::filesystem::create_directories(root + "/outside");
  std::filesystem::create_directory_symlink(root + "/outside", root + "/real/escape");
  std::filesystem::create_directory_symlink("inner", root + "/real/alias");
  auto dir = util::Dir::open(root);
  REQUIRE(dir);

  SUBCASE("a symlink to a directory outside") {
    auto r = dir->open_relative("real/escape");
    REQUIRE_FALSE(r);
    CHECK(
      r.error().message ==
      fmt::format("cannot open directory {}/real/escape: not a directory (or a symlink)", root));
  }
  SUBCASE("a relative symlink to a sibling") {
    auto r = dir->open_relative("real/alias");
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          fmt::format("cannot open directory {}/real/alias: not a directory (or a symlink)", root));
  }
  SUBCASE("a symlinked component in the middle") {
    std::filesystem::create_directories(root + "/outside/deeper");
    auto r = dir->open_relative("real/escape/deeper");
    REQUIRE_FALSE(r);
    CHECK(
      r.error().message ==
      fmt::format("cannot open directory {}/real/escape: not a directory (or a symlink)", root));
  }
  SUBCASE("..") {
    for (const char* bad :
         { "..", "real/..", "real/../outside", "/tmp", "real//inner", "./real" }) {
      auto r = dir->open_relative(bad);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == fmt::format("path '{}' is not a clean relative path", bad));
      CHECK(r.error().code == util::ExitCode::corrupt);
    }
  }
  SUBCASE("a regular file") {
    write_text(root + "/real/file", "x");
    auto r = dir->open_relative("real/file");
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          fmt::format("cannot open directory {}/real/file: not a directory (or a symlink)", root));
  }
}

TEST_CASE("stat does not follow symlinks; remove is quiet when absent") {
  auto root = make_temp_dir();
  write_text(root + "/f", "abc");
  std::filesystem::create_symlink("f", root + "/l");
  auto dir = util::Dir::open(root);
  REQUIRE(dir);
  auto f = dir->stat("f");
  REQUIRE(f);
  REQUIRE(f->has_value());
  CHECK((*f)->kind == util::FileKind::file);
  CHECK((*f)->size == 3);
  auto l = dir->stat("l");
  REQUIRE(l);
  REQUIRE(l->has_value());
  CHECK((*l)->kind == util::FileKind::symlink);
  auto target = dir->read_link("l");
  REQUIRE(target);
  CHECK(*target == "f");
  auto none = dir->stat("none");
  REQUIRE(none);
  CHECK_FALSE(none->has_value());
  CHECK(dir->remove("none"));
  CHECK(dir->remove("l"));
  CHECK(std::filesystem::exists(root + "/f"));
}

TEST_SUITE_END();
