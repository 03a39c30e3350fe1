#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <shimctl/cache/link_store_archive.hpp>
#include <sys/stat.h>

using shimctl::cache::link_entry_travels;
using shimctl::cache::link_store_files;
using shimctl::cache::LinkStorePlace;
using shimctl::cache::put_link_entry;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

TEST_SUITE_BEGIN("cache::link_store_archive");

TEST_CASE("a device link store's entries and verdicts travel, nothing else of it") {
  std::string key = "ab" + std::string(62, '0');
  CHECK(link_entry_travels("shimctl-device-links/ab/" + key));
  CHECK(link_entry_travels("shimctl-device-links/checked-" + std::string(32, 'f')));
  CHECK_FALSE(link_entry_travels("shimctl-device-links/counts"));
  CHECK_FALSE(link_entry_travels("shimctl-device-links/cd/" + key)); // not its shard
  CHECK_FALSE(link_entry_travels("shimctl-device-links/ab/" + key + ".shimctl-1"));
  CHECK_FALSE(link_entry_travels("shimctl-device-links/checked-" + std::string(31, 'f')));
  CHECK_FALSE(link_entry_travels("shimctl-device-links/../ab/" + key));
  CHECK_FALSE(link_entry_travels("shimctl-device-linksX/ab/" + key));
  CHECK_FALSE(link_entry_travels("ab/" + key));
}

TEST_CASE("a device link store's files go into another store, kept when present") {
  auto top = make_temp_dir();
  std::string key = "ab" + std::string(62, '1');
  std::string store = top + "/store";
  std::filesystem::create_directories(store + "/ab");
  write_text(store + "/ab/" + key, "image");
  write_text(store + "/counts", "link_hit 1\n");
  write_text(store + "/ab/" + key + ".shimctl-7", "half");
  auto files = link_store_files(LinkStorePlace{ store });
  REQUIRE(files);
  REQUIRE(files->size() == 1);
  CHECK(files->front().relative == "ab/" + key);

  std::filesystem::create_directories(top + "/stage/shimctl-device-links/ab");
  write_text(top + "/stage/shimctl-device-links/ab/" + key, "image");
  auto stage = shimctl::util::Dir::open(top + "/stage");
  REQUIRE(stage);
  LinkStorePlace shared{ top + "/shared", true };
  auto put = put_link_entry(shared, *stage, "shimctl-device-links/ab/" + key);
  REQUIRE(put);
  CHECK(*put);
  CHECK(read_text(top + "/shared/ab/" + key) == "image");
  struct stat st {};
  REQUIRE(::stat((top + "/shared/ab").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 02770);
  REQUIRE(::stat((top + "/shared/ab/" + key).c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0660);
  auto again = put_link_entry(shared, *stage, "shimctl-device-links/ab/" + key);
  REQUIRE(again);
  CHECK_FALSE(*again);
}

TEST_SUITE_END();
