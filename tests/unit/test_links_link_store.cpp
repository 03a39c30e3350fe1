#include "temp_dir.hpp"

#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <shimctl/cache/link_store_place.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/links/link_store.hpp>
#include <sys/stat.h>

using shimctl::cache::link_store_place;
using shimctl::cache::LinkStorePlace;
using shimctl::links::LinkStore;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

} // namespace

TEST_SUITE_BEGIN("links::LinkStore");

TEST_CASE("a read-only device links' store serves its entries and changes nothing") {
  namespace fs = std::filesystem;
  auto dir = make_temp_dir();
  std::string key(64, 'a');
  write_text(dir + "/out.img", "image bytes");
  REQUIRE(LinkStore(dir).keep(key, dir + "/out.img"));
  auto entry = *LinkStore(dir).find(key);
  auto old = fs::file_time_type::clock::now() - std::chrono::seconds(300);
  fs::last_write_time(entry, old);

  LinkStore store(LinkStorePlace{ dir, false, true });
  CHECK(store.read_only());
  REQUIRE(store.copy_out(entry, dir + "/copy.img"));
  CHECK(read_text(dir + "/copy.img") == "image bytes");
  CHECK(fs::last_write_time(entry) == old); // not renewed
  auto kept = store.keep(std::string(64, 'b'), dir + "/out.img");
  REQUIRE_FALSE(kept);
  CHECK(kept.error().message == dir + " is read-only");
  CHECK_FALSE(fs::exists(dir + "/bb"));
  store.record_verdict("t", true);
  CHECK(store.verdict("t") == "");
  store.count(shimctl::links::link_hit);
  CHECK_FALSE(fs::exists(dir + "/counts"));
}

TEST_CASE("a read-only device links' store is made by nobody") {
  auto dir = make_temp_dir() + "/store";
  auto store = LinkStore::open(LinkStorePlace{ dir, true, true });
  REQUIRE(store);
  CHECK_FALSE(std::filesystem::exists(dir));
  CHECK_FALSE(store->find(std::string(64, 'a')));
}

TEST_CASE("a shared device links' store: directories 2770, entries, verdicts and counts 0660") {
  auto top = make_temp_dir();
  auto dir = top + "/shimctl-device-links";
  mode_t was = ::umask(022); // the user's usual umask takes nothing from the group's modes
  auto store = LinkStore::open(LinkStorePlace{ dir, true, false });
  REQUIRE(store);
  CHECK(mode_of(dir) == 02770);
  std::string key(64, 'c');
  write_text(top + "/out.img", "image");
  REQUIRE(store->keep(key, top + "/out.img"));
  CHECK(mode_of(dir + "/cc") == 02770);
  CHECK(mode_of(dir + "/cc/" + key) == 0660);
  store->record_verdict("t", true);
  CHECK(mode_of(dir + "/checked-t") == 0660);
  store->count(shimctl::links::link_miss);
  CHECK(mode_of(dir + "/counts") == 0660);
  ::umask(was);
}

TEST_CASE(
  "the device links' store is beside a shared cache, read-only where the compile cache is") {
  ::unsetenv("CCACHE_READONLY");
  ::unsetenv("SCCACHE_LOCAL_RW_MODE");
  shimctl::core::CacheSettings settings;
  settings.dir = "/srv/cache";
  SUBCASE("a shared cache") {
    settings.shared_group = "team";
    auto place = link_store_place(&settings);
    CHECK(place.dir == "/srv/cache/shimctl-device-links");
    CHECK(place.shared);
    CHECK_FALSE(place.read_only);
  }
  SUBCASE("a cache of one user's: the user's own store") {
    const char* was = std::getenv("XDG_CACHE_HOME");
    std::string saved = was ? was : "";
    ::setenv("XDG_CACHE_HOME", "/home/u/.cache", 1);
    auto place = link_store_place(&settings);
    if (was)
      ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else
      ::unsetenv("XDG_CACHE_HOME");
    CHECK(place.dir == "/home/u/.cache/shimctl/device-links");
    CHECK_FALSE(place.shared);
  }
  SUBCASE("--remote-read-only") {
    settings.remote_read_only = true;
    CHECK(link_store_place(&settings).read_only);
  }
  SUBCASE("the tool's read-only switch in the environment: that tool's, or any without one") {
    struct Switch {
      const char *tool, *other, *variable, *value;
    };
    for (auto s : { Switch{ "ccache", "sccache", "CCACHE_READONLY", "1" },
                    Switch{ "sccache", "ccache", "SCCACHE_LOCAL_RW_MODE", "READ_ONLY" } }) {
      CAPTURE(s.variable);
      ::setenv(s.variable, s.value, 1);
      settings.kind = s.tool;
      CHECK(link_store_place(&settings).read_only);
      CHECK(link_store_place(nullptr).read_only);
      settings.kind = s.other;
      CHECK_FALSE(link_store_place(&settings).read_only);
      ::unsetenv(s.variable);
    }
  }
}

TEST_CASE("each tool's read-only switch, as the tool reads it") {
  const auto& ccache = *shimctl::cache::tool_named("ccache");
  const auto& sccache = *shimctl::cache::tool_named("sccache");
  ::unsetenv("CCACHE_READONLY");
  ::unsetenv("SCCACHE_LOCAL_RW_MODE");
  CHECK_FALSE(ccache.environment_reads_only());
  CHECK_FALSE(sccache.environment_reads_only());
  for (const char* yes : { "1", "true", "" }) {
    ::setenv("CCACHE_READONLY", yes, 1);
    CHECK_MESSAGE(ccache.environment_reads_only(), yes);
  }
  for (const char* no : { "0", "false", "FALSE", "disable", "no" }) {
    ::setenv("CCACHE_READONLY", no, 1);
    CHECK_FALSE_MESSAGE(ccache.environment_reads_only(), no);
  }
  ::unsetenv("CCACHE_READONLY");
  for (const char* mode : { "READ_WRITE", "read_only", "" }) {
    ::setenv("SCCACHE_LOCAL_RW_MODE", mode, 1);
    CHECK_FALSE_MESSAGE(sccache.environment_reads_only(), mode);
  }
  ::setenv("SCCACHE_LOCAL_RW_MODE", "READ_ONLY", 1);
  CHECK(sccache.environment_reads_only());
  ::unsetenv("SCCACHE_LOCAL_RW_MODE");
}

TEST_CASE("measure's log: the device links' records counted, other records not") {
  std::string log = "# shimctl-device-links\nlink_hit\n# shimctl-pieces\npiece_hit gfx90a ccache\n"
                    "# shimctl-device-links\nlink_miss\n# shimctl-device-links\nlink_hit\n";
  auto counts = shimctl::links::link_counts_in_measure_log(log);
  CHECK(counts == shimctl::util::Counts{ { "link_hit", 2 }, { "link_miss", 1 } });
}

TEST_SUITE_END();
