#include "temp_dir.hpp"

#include <chrono>
#include <shimctl/util/lock.hpp>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

TEST_SUITE_BEGIN("util.lock");

TEST_CASE("parse_flock_holders: holders of one file, waiters and other files left out") {
  dev_t dev = makedev(0x08, 0x1f);
  std::string text = "1: FLOCK  ADVISORY  WRITE 4242 08:1f:1234 0 EOF\n"
                     "1: -> FLOCK  ADVISORY  WRITE 5151 08:1f:1234 0 EOF\n"
                     "2: FLOCK  ADVISORY  READ 777 08:1f:1234 0 EOF\n"
                     "3: FLOCK  ADVISORY  READ 778 08:1f:12345 0 EOF\n"
                     "4: POSIX  ADVISORY  WRITE 779 08:1f:1234 0 EOF\n"
                     "5: FLOCK  ADVISORY  WRITE 780 08:20:1234 0 EOF\n";
  auto holders = util::parse_flock_holders(text, dev, 1234);
  REQUIRE(holders.size() == 2);
  CHECK(holders[0].pid == 4242);
  CHECK(holders[0].exclusive);
  CHECK(holders[1].pid == 777);
  CHECK_FALSE(holders[1].exclusive);
}

TEST_CASE("FileLock: a command fails at once naming the command that holds the lock") {
  auto dir = util::Dir::open(make_temp_dir());
  REQUIRE(dir);
  auto held = util::FileLock::acquire(*dir, "lock", std::nullopt);
  REQUIRE(held);
  auto start = std::chrono::steady_clock::now();
  auto second = util::FileLock::acquire(*dir, "lock", std::nullopt);
  REQUIRE_FALSE(second);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK(second.error().code == util::ExitCode::busy);
  CHECK(second.error().message.find("(pid " + std::to_string(::getpid()) + ")") !=
        std::string::npos);
  CHECK_FALSE(util::FileLock::try_shared_existing(*dir, "lock")); // a helper never waits
}

TEST_CASE("FileLock: a command waits out identity helpers; helpers share the lock") {
  auto dir = util::Dir::open(make_temp_dir());
  REQUIRE(dir);
  CHECK_FALSE(util::FileLock::try_shared_existing(*dir, "lock")); // no lock file: none made
  write_text(dir->path_of("lock"), "");
  auto helper = util::FileLock::try_shared_existing(*dir, "lock");
  REQUIRE(helper);
  auto other_helper = util::FileLock::try_shared_existing(*dir, "lock");
  REQUIRE(other_helper);
  auto start = std::chrono::steady_clock::now(); // the helpers let go 300 ms after this
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    helper.reset();
    other_helper.reset();
  });
  auto command = util::FileLock::acquire(*dir, "lock", std::nullopt); // no --wait
  auto waited = std::chrono::steady_clock::now() - start;
  release.join();
  REQUIRE(command);
  CHECK(waited >= std::chrono::milliseconds(300));
  CHECK(waited < util::FileLock::helper_grace);
}

TEST_SUITE_END();
