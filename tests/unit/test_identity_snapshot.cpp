#include "temp_dir.hpp"

#include <filesystem>
#include <shimctl/core/transaction.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/identity/identity_snapshot.hpp>
#include <shimctl/util/lock.hpp>
#include <sys/stat.h>
#include <thread>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> files = { "amdgcn/bitcode/ocml.bc",
                                         "amdgcn/bitcode/ockl.bc",
                                         "bin/hipcc.real" };

// An installed-looking prefix: three identity inputs and a state directory.
core::Manifest make_installed(const std::string& prefix) {
  write_text(prefix + "/amdgcn/bitcode/ocml.bc", "ocml");
  write_text(prefix + "/amdgcn/bitcode/ockl.bc", "ockl");
  write_text(prefix + "/bin/hipcc.real", "#!/usr/bin/perl\n");
  fs::create_directories(prefix + "/" + std::string(core::state_dir_name));
  core::Manifest m;
  m.prefix = prefix;
  auto fingerprint = identity::compute_fingerprint(prefix, files, false);
  REQUIRE(fingerprint);
  m.fingerprint = *fingerprint;
  return m;
}

} // namespace

TEST_SUITE_BEGIN("core::IdentitySnapshot");

TEST_CASE("the snapshot lists each directory once, then its files' stat data") {
  std::vector<identity::InputStat> inputs = { { "/p/a/x.bc", 11, 4, 1000, 2000 },
                                              { "/p/a/y.bc", 12, 5, 1001, 2001 },
                                              { "/p/bin/hipcc.real", 13, 6, 1002, 2002 },
                                              { "/top", 14, 7, 1003, 2003 } };
  CHECK(identity::render_identity_snapshot(std::string(64, 'a'), inputs) ==
        "shimctl-identity 1\n"
        "fingerprint " +
          std::string(64, 'a') +
          "\n"
          "dir /p/a\n"
          "11 4 1000 2000 x.bc\n"
          "12 5 1001 2001 y.bc\n"
          "dir /p/bin\n"
          "13 6 1002 2002 hipcc.real\n"
          "dir /\n"
          "14 7 1003 2003 top\n");
}

TEST_CASE("stat_inputs records inode, size and nanosecond times; a missing input is an error") {
  auto prefix = make_temp_dir();
  make_installed(prefix);
  auto stats = identity::stat_inputs(prefix, files);
  REQUIRE(stats);
  REQUIRE(stats->size() == 3);
  struct stat st {};
  REQUIRE(::stat((prefix + "/bin/hipcc.real").c_str(), &st) == 0);
  const auto& hipcc = (*stats)[2];
  CHECK(hipcc.path == prefix + "/bin/hipcc.real");
  CHECK(hipcc.inode == st.st_ino);
  CHECK(hipcc.size == 16);
  CHECK(hipcc.ctime_ns == static_cast<std::uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000ULL +
                            static_cast<std::uint64_t>(st.st_ctim.tv_nsec));
  auto missing = identity::stat_inputs(prefix, { "bin/nothing" });
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("bin/nothing") != std::string::npos);
}

TEST_CASE("snapshot_identity writes the current fingerprint with the stat data") {
  auto prefix = make_temp_dir();
  auto m = make_installed(prefix);
  auto dir = util::Dir::open(prefix);
  REQUIRE(dir);
  auto result = identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder);
  REQUIRE(result);
  CHECK(result->written);
  CHECK(result->fingerprint == m.fingerprint.sha256);
  auto stats = identity::stat_inputs(prefix, files);
  REQUIRE(stats);
  CHECK(read_text(prefix + "/.shimctl/identity") ==
        identity::render_identity_snapshot(m.fingerprint.sha256, *stats));

  SUBCASE("changed bytes: the fingerprint of the new bytes") {
    write_text(prefix + "/amdgcn/bitcode/ocml.bc", "ocml, patched");
    auto changed = identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder);
    REQUIRE(changed);
    CHECK(changed->written);
    CHECK(changed->fingerprint != m.fingerprint.sha256);
    CHECK(read_text(prefix + "/.shimctl/identity").find(changed->fingerprint) != std::string::npos);
  }
  SUBCASE("no state directory: the fingerprint, not written, and why") {
    fs::remove_all(prefix + "/.shimctl");
    auto unwritten = identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder);
    REQUIRE(unwritten);
    CHECK_FALSE(unwritten->written);
    CHECK(unwritten->fingerprint == m.fingerprint.sha256);
    CHECK_FALSE(unwritten->why_not.empty());
  }
}

TEST_CASE("vouched_inputs: the snapshot's stat data, only for the manifest's own fingerprint") {
  auto prefix = make_temp_dir();
  auto m = make_installed(prefix);
  CHECK(identity::vouched_inputs(m).empty()); // no snapshot yet
  auto dir = util::Dir::open(prefix);
  REQUIRE(dir);
  REQUIRE(identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder));
  auto stats = identity::stat_inputs(prefix, files);
  REQUIRE(stats);
  CHECK(identity::vouched_inputs(m) == *stats);
  auto other = m;
  other.fingerprint.sha256 = std::string(64, 'f');
  CHECK(identity::vouched_inputs(other).empty());
  write_text(prefix + "/.shimctl/identity",
             "shimctl-identity 1\nfingerprint " + m.fingerprint.sha256 + "\ndir /x\ngarbage\n");
  CHECK(identity::vouched_inputs(m).empty());
}

TEST_CASE("racy_wait: a tick's margin after a recent or future ctime, none for old ones") {
  const std::uint64_t now = 1'700'000'000'123'456'789ULL;
  auto at = [](std::uint64_t ctime) { return identity::InputStat{ "/f", 1, 1, 0, ctime }; };
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  CHECK(identity::racy_wait({ at(now - 1'000'000'000ULL) }, now) == milliseconds(0));
  CHECK(identity::racy_wait({ at(now - 60'000'000ULL) }, now) == milliseconds(0));
  CHECK(identity::racy_wait({ at(now - 10'000'000ULL) }, now) == milliseconds(50));
  CHECK(identity::racy_wait({ at(now + 5'000'000'000ULL) }, now) == milliseconds(50)); // clock skew
  // Whole seconds: a coarse filesystem, whose tick may be 2 s.
  CHECK(identity::racy_wait({ at(1'700'000'000'000'000'000ULL) }, now) == seconds(2));
  CHECK(identity::racy_wait({ at(1'699'999'990'000'000'000ULL) }, now) == milliseconds(0));
  CHECK(identity::racy_wait({ at(now - 1'000'000'000ULL), at(now - 1'000'000ULL) }, now) ==
        milliseconds(50));
}

TEST_CASE("racy_wait of files written just now: one tick, none once it has passed") {
  auto prefix = make_temp_dir();
  auto m = make_installed(prefix);
  auto stats = identity::stat_inputs(prefix, files);
  REQUIRE(stats);
  std::uint64_t newest = 0;
  for (const auto& input : *stats)
    newest = std::max(newest, input.ctime_ns);
  // The same moment (the stat of a snapshot taken as the files were written): a tick's wait.
  CHECK(identity::racy_wait(*stats, newest) == std::chrono::milliseconds(50));
  CHECK(identity::racy_wait(*stats, newest + 60'000'000) == std::chrono::milliseconds(0));
  // And the snapshot taken right away is still written (after the wait).
  auto dir = util::Dir::open(prefix);
  REQUIRE(dir);
  auto r = identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder);
  REQUIRE(r);
  CHECK(r->written);
}

TEST_CASE("parse_identity_snapshot reads what render writes, and nothing else") {
  std::vector<identity::InputStat> inputs = { { "/p/a/x.bc", 11, 4, 1000, 2000 },
                                              { "/top", 14, 7, 1003, 2003 } };
  auto text = identity::render_identity_snapshot(std::string(64, 'b'), inputs);
  auto parsed = identity::parse_identity_snapshot(text);
  REQUIRE(parsed);
  CHECK(parsed->fingerprint == std::string(64, 'b'));
  CHECK(parsed->inputs == inputs);
  CHECK_FALSE(identity::parse_identity_snapshot(text.substr(0, text.size() - 1))); // truncated
  CHECK_FALSE(identity::parse_identity_snapshot("shimctl-identity 2\n" + text.substr(19)));
  CHECK_FALSE(identity::parse_identity_snapshot(text + "garbage\n"));
}

TEST_CASE("snapshot_state: missing, current, and which inputs make it stale") {
  auto prefix = make_temp_dir();
  auto m = make_installed(prefix);
  CHECK_FALSE(identity::snapshot_state(m).present);
  auto dir = util::Dir::open(prefix);
  REQUIRE(dir);
  REQUIRE(identity::snapshot_identity(*dir, m, identity::SnapshotWriter::lock_holder));
  auto state = identity::snapshot_state(m);
  CHECK(state.present);
  CHECK(state.fingerprint == m.fingerprint.sha256);
  CHECK(state.stale_inputs.empty());
  write_text(prefix + "/amdgcn/bitcode/ockl.bc", "ockl"); // the same bytes, rewritten
  state = identity::snapshot_state(m);
  CHECK(state.stale_inputs == std::vector<std::string>{ prefix + "/amdgcn/bitcode/ockl.bc" });
}

TEST_CASE("the shim's helper writes the snapshot only under a free lock and with a manifest") {
  auto prefix = make_temp_dir();
  auto m = make_installed(prefix);
  auto dir = util::Dir::open(prefix);
  REQUIRE(dir);
  auto state = dir->open_relative(core::state_dir_name);
  REQUIRE(state);
  std::optional<identity::InputStat>
    manifest_read; // as the helper saw the manifest before reading it
  auto bystander = [&] {
    if (!manifest_read)
      if (auto read = identity::stat_input(prefix + "/.shimctl/manifest.json"))
        manifest_read = *read;
    return identity::snapshot_identity(*dir, m, identity::SnapshotWriter::bystander, manifest_read);
  };

  SUBCASE("no lock file (never installed, or rolled back): not written") {
    write_text(prefix + "/.shimctl/manifest.json", "{}");
    auto r = bystander();
    REQUIRE(r);
    CHECK_FALSE(r->written);
    CHECK(r->fingerprint == m.fingerprint.sha256);
    CHECK_FALSE(fs::exists(prefix + "/.shimctl/identity"));
    CHECK_FALSE(fs::exists(prefix + "/.shimctl/lock")); // and not created
  }
  SUBCASE("a shimctl command holds the lock: not written, no waiting") {
    write_text(prefix + "/.shimctl/manifest.json", "{}");
    auto held = util::FileLock::acquire(*state, core::lock_file, std::nullopt);
    REQUIRE(held);
    auto r = bystander();
    REQUIRE(r);
    CHECK_FALSE(r->written);
    CHECK_FALSE(fs::exists(prefix + "/.shimctl/identity"));
  }
  SUBCASE("the lock is free but the manifest is gone: not written") {
    REQUIRE(util::FileLock::acquire(*state, core::lock_file, std::nullopt));
    auto r = bystander();
    REQUIRE(r);
    CHECK_FALSE(r->written);
  }
  SUBCASE("the manifest was replaced after the helper read it (a re-install): not written") {
    REQUIRE(util::FileLock::acquire(*state, core::lock_file, std::nullopt));
    write_text(prefix + "/.shimctl/manifest.json", "{}");
    manifest_read = identity::stat_input(prefix + "/.shimctl/manifest.json").value();
    fs::rename(prefix + "/.shimctl/manifest.json", prefix + "/.shimctl/old");
    write_text(prefix + "/.shimctl/manifest.json", "{}");
    auto r = bystander();
    REQUIRE(r);
    CHECK_FALSE(r->written);
    CHECK(r->steady);
    CHECK(r->stat.size() == files.size());
    CHECK_FALSE(fs::exists(prefix + "/.shimctl/identity"));
  }
  SUBCASE("lock free, manifest there: written") {
    REQUIRE(util::FileLock::acquire(*state, core::lock_file, std::nullopt));
    write_text(prefix + "/.shimctl/manifest.json", "{}");
    auto r = bystander();
    REQUIRE(r);
    CHECK(r->written);
    CHECK(fs::exists(prefix + "/.shimctl/identity"));
  }
}

TEST_SUITE_END();
