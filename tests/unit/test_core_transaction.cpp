#include "temp_dir.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <shimctl/core/transaction.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::read_text;
using shimctl::test::write_text;

namespace fs = std::filesystem;

namespace {

const std::string shim_bytes = std::string("\x7f"
                                           "ELF fake shim ",
                                           14) +
                               std::string(300, 's');
const std::string compiler_bytes = "#!/bin/sh\necho fake compiler\n" + std::string(5000, 'c');

// Everything under ROOT: kind, mode, content or link target, and for regular
// files the inode (an original must keep its inode).
std::map<std::string, std::string> listing(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    auto rel = fs::relative(entry.path(), root).string();
    struct stat st {};
    REQUIRE(::lstat(entry.path().c_str(), &st) == 0);
    if (S_ISLNK(st.st_mode))
      out[rel] = "link " + fs::read_symlink(entry.path()).string();
    else if (S_ISDIR(st.st_mode))
      out[rel] = fmt::format("dir {:o}", st.st_mode & 07777);
    else
      out[rel] = fmt::format("file {:o} ino {} {}",
                             st.st_mode & 07777,
                             st.st_ino,
                             util::sha256_hex(read_text(entry.path())));
  }
  return out;
}

// PREFIX/bin/cc (a fake compiler, with an alias symlink) and PREFIX/.shimctl.
std::string make_prefix() {
  auto p = make_temp_dir();
  write_text(p + "/bin/cc", compiler_bytes);
  fs::permissions(p + "/bin/cc", fs::perms(0755));
  fs::create_symlink("cc", p + "/bin/c++");
  fs::create_directories(p + "/.shimctl");
  write_text(p + "/.shimctl/lock", "");
  return p;
}

core::Journal install_journal() {
  std::vector<core::Step> steps;
  steps.push_back(core::Step::of(core::StepKind::link_real, "bin/cc"));
  auto conf = core::Step::of(core::StepKind::write_file, "bin/.shimctl.conf");
  conf.content = "shimctl-shim-config 1\ncompiler cc cc.real\nalias c++ cc\n";
  steps.push_back(conf);
  auto shim = core::Step::of(core::StepKind::place_shim, "bin/cc");
  shim.mode = 0755;
  shim.uid = ::getuid();
  shim.gid = ::getgid();
  steps.push_back(shim);
  auto manifest = core::Step::of(core::StepKind::write_file, ".shimctl/manifest.json");
  manifest.content = "{\"installed\": true}\n";
  steps.push_back(manifest);
  return { "install", core::Recovery::undo, util::sha256_hex(shim_bytes), steps };
}

core::Journal rollback_journal() {
  std::vector<core::Step> steps = {
    core::Step::of(core::StepKind::restore, "bin/cc"),
    core::Step::of(core::StepKind::remove_file, "bin/.shimctl.conf"),
    core::Step::of(core::StepKind::remove_file, ".shimctl/manifest.json")
  };
  return { "rollback", core::Recovery::redo, util::sha256_hex(shim_bytes), steps };
}

// What `run` leaves behind when the process dies after K steps: the journal
// (written first) and the first K steps applied.
void interrupt_after(const util::Dir& prefix_dir,
                     core::Transaction& t,
                     const core::Journal& j,
                     std::size_t k) {
  for (std::size_t i = 0; i < k; ++i)
    REQUIRE(t.apply(j.steps[i], j.shim_sha256));
  auto state = prefix_dir.open_relative(".shimctl");
  REQUIRE(state);
  REQUIRE(state->write_atomic("journal.json", core::journal_to_json(j), 0644));
}

} // namespace

TEST_SUITE_BEGIN("core::Transaction");

TEST_CASE("an install transaction wraps the compiler; undoing its steps restores the tree") {
  auto p = make_prefix();
  auto before = listing(p);
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto journal = install_journal();
  std::vector<std::string> seen;
  REQUIRE(t.run(journal, [&](std::size_t, const core::Step&, const std::string& what) {
    seen.push_back(what);
  }));
  CHECK(seen == std::vector<std::string>{ "keep the original bin/cc as bin/cc.real",
                                          "write bin/.shimctl.conf",
                                          "put the shim at bin/cc",
                                          "write .shimctl/manifest.json" });
  CHECK(read_text(p + "/bin/cc") == shim_bytes);
  CHECK(read_text(p + "/bin/cc.real") == compiler_bytes);
  CHECK(fs::status(p + "/bin/cc").permissions() == fs::perms(0755));
  CHECK(read_text(p + "/bin/.shimctl.conf") == journal.steps[1].content);
  CHECK_FALSE(fs::exists(p + "/.shimctl/journal.json"));
  // The original keeps its inode under the .real name.
  CHECK(listing(p)["bin/cc.real"] == before["bin/cc"]);

  SUBCASE("running it again changes no content; the original keeps its inode") {
    auto installed = listing(p);
    REQUIRE(t.run(journal));
    auto again = listing(p);
    CHECK(again["bin/cc.real"] == installed["bin/cc.real"]);
    for (auto* l : { &installed, &again })
      for (auto& [path, entry] : *l)
        entry = entry.substr(0, entry.find(" ino ")) + entry.substr(entry.rfind(' '));
    CHECK(again == installed);
  }
  SUBCASE("undo, last step first") {
    for (std::size_t i = journal.steps.size(); i-- > 0;)
      REQUIRE(t.undo(journal.steps[i], journal.shim_sha256));
    CHECK(listing(p) == before);
  }
  SUBCASE("a rollback transaction puts the original back") {
    auto rollback = rollback_journal();
    REQUIRE(t.run(rollback));
    CHECK(listing(p) == before);
  }
}

TEST_CASE("a failing step undoes the finished ones") {
  auto p = make_prefix();
  write_text(p + "/bin/other", "another compiler");
  write_text(p + "/bin/other.real", "someone else's file");
  auto before = listing(p);
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto journal = install_journal();
  journal.steps.push_back(core::Step::of(core::StepKind::link_real, "bin/other"));
  auto r = t.run(journal);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        fmt::format("{}/bin/other.real exists and is not the original of {}/bin/other; move it "
                    "away first",
                    p,
                    p));
  CHECK(listing(p) == before);
}

TEST_CASE("link_real refuses an original that no longer has the planned hash") {
  auto p = make_prefix();
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto journal = install_journal();
  journal.steps[0].sha256 = util::sha256_hex(compiler_bytes);

  SUBCASE("the planned original is linked") {
    REQUIRE(t.run(journal));
    CHECK(read_text(p + "/bin/cc.real") == compiler_bytes);
  }
  SUBCASE("a newer compiler put there after the plan (by a rename, as dpkg does) is refused") {
    write_text(p + "/bin/cc.new", "#!/bin/sh\necho upgraded compiler\n");
    fs::rename(p + "/bin/cc.new", p + "/bin/cc");
    auto before = listing(p);
    auto r = t.run(journal);
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          fmt::format("{}/bin/cc changed since the install was planned (SHA-256 {}, planned {}): "
                      "a package upgrade? Nothing was changed; run the install again",
                      p,
                      util::sha256_hex(read_text(p + "/bin/cc")).substr(0, 12),
                      journal.steps[0].sha256.substr(0, 12)));
    CHECK(listing(p) == before);
    CHECK_FALSE(fs::exists(p + "/.shimctl/journal.json"));
  }
}

TEST_CASE("recover() after an install interrupted at every step yields the original tree") {
  auto journal = install_journal();
  for (std::size_t k = 0; k <= journal.steps.size(); ++k) {
    CAPTURE(k);
    auto p = make_prefix();
    auto before = listing(p);
    auto dir = util::Dir::open(p);
    REQUIRE(dir);
    core::Transaction t(*dir, shim_bytes);
    interrupt_after(*dir, t, journal, k);
    if (k == 2) // died inside place_shim: its temporary file is left behind
      write_text(p + "/bin/.cc.shimctl-tmp.0badf00d", shim_bytes.substr(0, 10));
    auto recovered = t.recover();
    REQUIRE(recovered);
    CHECK(*recovered == "undid an interrupted install (4 steps)");
    CHECK(listing(p) == before);
    auto again = t.recover();
    REQUIRE(again);
    CHECK(*again == "");
  }
}

TEST_CASE("recover() after a rollback interrupted at every step finishes it") {
  auto rollback = rollback_journal();
  for (std::size_t k = 0; k <= rollback.steps.size(); ++k) {
    CAPTURE(k);
    auto p = make_prefix();
    auto before = listing(p);
    auto dir = util::Dir::open(p);
    REQUIRE(dir);
    core::Transaction t(*dir, shim_bytes);
    REQUIRE(t.run(install_journal()));
    interrupt_after(*dir, t, rollback, k);
    auto recovered = t.recover();
    REQUIRE(recovered);
    CHECK(*recovered == "finished an interrupted rollback (3 steps)");
    CHECK(listing(p) == before);
  }
}

TEST_CASE("a damaged journal is reported, not guessed at") {
  auto p = make_prefix();
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  SUBCASE("truncated") {
    auto text = core::journal_to_json(install_journal());
    write_text(p + "/.shimctl/journal.json", text.substr(0, text.size() / 2));
    auto r = t.recover();
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "the journal of an interrupted transaction is damaged");
    CHECK(r.error().code == util::ExitCode::corrupt);
  }
  SUBCASE("a path outside the prefix") {
    auto journal = install_journal();
    journal.steps[1].path = "../escape";
    write_text(p + "/.shimctl/journal.json", core::journal_to_json(journal));
    auto r = t.recover();
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "journal names a path outside the prefix: '../escape'");
  }
  CHECK(read_text(p + "/bin/cc") == compiler_bytes);
}

TEST_CASE("journal_to_json and journal_from_json round trip") {
  auto journal = install_journal();
  journal.steps[1].previous = "old content";
  auto parsed = core::journal_from_json(core::journal_to_json(journal));
  REQUIRE(parsed);
  CHECK(core::journal_to_json(*parsed) == core::journal_to_json(journal));
  CHECK(parsed->steps[1].previous == std::optional<std::string>("old content"));
  CHECK(parsed->steps[2].mode == 0755);
  SUBCASE("a link_real's planned hash is kept; an old journal without one reads as unchecked") {
    journal.steps[0].sha256 = util::sha256_hex(compiler_bytes);
    auto with_hash = core::journal_from_json(core::journal_to_json(journal));
    REQUIRE(with_hash);
    CHECK(with_hash->steps[0].sha256 == journal.steps[0].sha256);
    auto text = core::journal_to_json(install_journal());
    auto at = text.find("\"sha256\": \"\",");
    REQUIRE(at != std::string::npos);
    text.erase(at, std::string("\"sha256\": \"\",").size());
    auto old = core::journal_from_json(text);
    REQUIRE(old);
    CHECK(old->steps[0].sha256.empty());
  }
}

namespace {

const std::string old_secret = "CCACHE_REMOTE_STORAGE=redis://OldPass@127.0.0.1:6379\n";
const std::string new_secret = "CCACHE_REMOTE_STORAGE=redis://NewPass@127.0.0.1:6379\n";

// A rotation: the secrets file gets NEW_SECRET and the config that names it is rewritten.
core::Journal secret_journal() {
  auto secret = core::Step::of(core::StepKind::write_secret, ".shimctl/secrets");
  secret.content = new_secret;
  secret.mode = 0600;
  secret.gid = ::getegid();
  auto conf = core::Step::of(core::StepKind::write_file, "bin/.shimctl.conf");
  conf.content = "shimctl-shim-config 1\nsecrets /p/.shimctl/secrets\n";
  return { "refresh", core::Recovery::undo, util::sha256_hex(shim_bytes), { secret, conf } };
}

// make_prefix() with OLD_SECRET in .shimctl/secrets (mode 0600), or without a secrets file.
std::string prefix_with_secret(bool with_old) {
  auto p = make_prefix();
  if (with_old) {
    write_text(p + "/.shimctl/secrets", old_secret);
    fs::permissions(p + "/.shimctl/secrets", fs::perms(0600));
  }
  return p;
}

// What `run` leaves when the process dies after K steps: the staged secret, the journal, K steps.
void interrupt_secret_after(const util::Dir& prefix_dir,
                            core::Transaction& t,
                            const core::Journal& j,
                            std::size_t k) {
  REQUIRE(t.stage_secrets(j));
  auto state = prefix_dir.open_relative(".shimctl");
  REQUIRE(state);
  REQUIRE(state->write_atomic("journal.json", core::journal_to_json(j), 0644));
  for (std::size_t i = 0; i < k; ++i)
    REQUIRE(t.apply(j.steps[i], j.shim_sha256));
}

} // namespace

TEST_CASE("write_secret: the content never in the journal, the file never readable by others") {
  for (bool with_old : { false, true }) {
    CAPTURE(with_old);
    auto p = prefix_with_secret(with_old);
    auto dir = util::Dir::open(p);
    REQUIRE(dir);
    core::Transaction t(*dir, shim_bytes);
    auto journal = secret_journal();
    auto text = core::journal_to_json(journal);
    CHECK(text.find("NewPass") == std::string::npos);
    CHECK(core::journal_from_json(text)->steps[0].content.empty());
    CHECK(journal.steps[0].describe() == "write .shimctl/secrets (mode 0600)");
    REQUIRE(t.run(journal));
    CHECK(read_text(p + "/.shimctl/secrets") == new_secret);
    CHECK(listing(p)[".shimctl/secrets"].starts_with("file 600 "));
    // Nothing else in the state directory: no staged copy, no kept old secret, no journal.
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(p + "/.shimctl"))
      names.insert(entry.path().filename().string());
    CHECK(names == std::set<std::string>{ "lock", "secrets" });
  }
}

TEST_CASE("a secret's rotation interrupted at every step: recovery puts the old one back") {
  for (bool with_old : { false, true }) {
    auto journal = secret_journal();
    for (std::size_t k = 0; k <= journal.steps.size(); ++k) {
      CAPTURE(with_old);
      CAPTURE(k);
      auto p = prefix_with_secret(with_old);
      auto before = listing(p);
      auto dir = util::Dir::open(p);
      REQUIRE(dir);
      core::Transaction t(*dir, shim_bytes);
      interrupt_secret_after(*dir, t, journal, k);
      auto recovered = t.recover();
      REQUIRE(recovered);
      CHECK(*recovered == "undid an interrupted refresh (2 steps)");
      // The old secret keeps its inode; the new one, staged or in place, is gone.
      CHECK(listing(p) == before);
      // Undoing again (a recovery that died before it removed the journal) decides the same.
      interrupt_secret_after(*dir, t, journal, k);
      REQUIRE(t.undo(journal.steps[1], journal.shim_sha256));
      REQUIRE(t.undo(journal.steps[0], journal.shim_sha256));
      REQUIRE(t.undo(journal.steps[0], journal.shim_sha256));
      REQUIRE(t.recover());
      CHECK(listing(p) == before);
    }
  }
}

TEST_CASE("a failing step after write_secret puts the old secret back") {
  auto p = prefix_with_secret(true);
  write_text(p + "/bin/other", "another compiler");
  write_text(p + "/bin/other.real", "someone else's file");
  auto before = listing(p);
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto journal = secret_journal();
  journal.steps.push_back(core::Step::of(core::StepKind::link_real, "bin/other"));
  REQUIRE_FALSE(t.run(journal));
  CHECK(listing(p) == before);
}

TEST_CASE("remove_secret: gone once the transaction is over, back when it is undone") {
  auto p = prefix_with_secret(true);
  auto before = listing(p);
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  core::Journal journal{ "refresh",
                         core::Recovery::undo,
                         util::sha256_hex(shim_bytes),
                         { core::Step::of(core::StepKind::remove_secret, ".shimctl/secrets") } };
  interrupt_secret_after(*dir, t, journal, 1);
  CHECK_FALSE(fs::exists(p + "/.shimctl/secrets"));
  REQUIRE(t.recover());
  CHECK(listing(p) == before);
  REQUIRE(t.run(journal));
  CHECK_FALSE(fs::exists(p + "/.shimctl/secrets"));
  CHECK_FALSE(fs::exists(p + "/.shimctl/.secrets.shimctl-kept"));
}

TEST_CASE("secrets staged by a transaction that died before its journal are removed") {
  auto p = make_prefix();
  auto before = listing(p);
  write_text(p + "/.shimctl/.secrets.shimctl-staged", new_secret);
  write_text(p + "/.shimctl/..secrets.shimctl-staged.shimctl-tmp.0badf00d", "CCACHE_REM");
  write_text(p + "/.shimctl/.secrets.shimctl-kept", old_secret);
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto recovered = t.recover();
  REQUIRE(recovered);
  CHECK(*recovered == "");
  CHECK(listing(p) == before);
}

TEST_CASE("a secret outside the state directory is refused") {
  auto p = make_prefix();
  auto dir = util::Dir::open(p);
  REQUIRE(dir);
  core::Transaction t(*dir, shim_bytes);
  auto journal = secret_journal();
  journal.steps[0].path = "bin/secrets";
  auto r = t.run(journal);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "bin/secrets: a secret belongs in .shimctl");
  CHECK_FALSE(fs::exists(p + "/.shimctl/journal.json"));
}

TEST_SUITE_END();
