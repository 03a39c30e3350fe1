#include <cstdlib>
#include <nlohmann/json.hpp>
#include <shimctl/core/divert.hpp>
#include <shimctl/core/test_hooks.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/util/proc_users.hpp>
#include <shimctl/util/sha256.hpp>
#include <signal.h>
#include <thread>
#include <unistd.h>

namespace shimctl::core {

using nlohmann::json;
using util::ExitCode;
using util::fail;

namespace {

const char* kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::link_real:
      return "link_real";
    case StepKind::write_file:
      return "write_file";
    case StepKind::place_shim:
      return "place_shim";
    case StepKind::restore:
      return "restore";
    case StepKind::remove_file:
      return "remove_file";
    case StepKind::adopt_original:
      return "adopt_original";
    case StepKind::divert:
      return "divert";
    case StepKind::undivert:
      return "undivert";
    case StepKind::write_secret:
      return "write_secret";
    case StepKind::remove_secret:
      return "remove_secret";
  }
  return "?";
}

util::Result<StepKind> kind_from_name(const std::string& name) {
  for (auto k : { StepKind::link_real,
                  StepKind::write_file,
                  StepKind::place_shim,
                  StepKind::restore,
                  StepKind::remove_file,
                  StepKind::adopt_original,
                  StepKind::divert,
                  StepKind::undivert,
                  StepKind::write_secret,
                  StepKind::remove_secret })
    if (name == kind_name(k))
      return k;
  return fail(ExitCode::corrupt, "journal names an unknown step '{}'", name);
}

std::string real_of(const std::string& name) {
  return name + ".real";
}

bool same_inode(const util::FileStat& a, const util::FileStat& b) {
  return a.dev == b.dev && a.ino == b.ino;
}

// write_secret's new content, staged before the journal is written; and the file it replaces
// (or remove_secret removes), kept until the transaction is over. Both, and the staged file's
// own temporary (".." + staged + ".shimctl-tmp.*"), carry these markers.
constexpr std::string_view staged_marker = ".shimctl-staged";
constexpr std::string_view kept_marker = ".shimctl-kept";

std::string staged_of(const std::string& name) {
  return "." + name + std::string(staged_marker);
}

std::string kept_of(const std::string& name) {
  return "." + name + std::string(kept_marker);
}

bool is_secret(StepKind kind) {
  return kind == StepKind::write_secret || kind == StepKind::remove_secret;
}

} // namespace

std::string Step::describe() const {
  switch (kind) {
    case StepKind::link_real:
      return fmt::format("keep the original {} as {}.real", path, path);
    case StepKind::write_file:
      return fmt::format("write {}", path);
    case StepKind::place_shim:
      return fmt::format("put the shim at {}", path);
    case StepKind::restore:
      return fmt::format("restore the original {}", path);
    case StepKind::remove_file:
      return fmt::format("remove {}", path);
    case StepKind::adopt_original:
      return fmt::format("adopt the new {} as the original", path);
    case StepKind::divert:
      return fmt::format("dpkg-divert {} to {}.real", path, path);
    case StepKind::undivert:
      return fmt::format("remove the dpkg diversion of {}", path);
    case StepKind::write_secret:
      return fmt::format("write {} (mode {:04o})", path, mode);
    case StepKind::remove_secret:
      return fmt::format("remove {}", path);
  }
  return "?";
}

std::string journal_to_json(const Journal& journal) {
  json steps = json::array();
  for (const auto& s : journal.steps)
    steps.push_back({ { "kind", kind_name(s.kind) },
                      { "path", s.path },
                      { "content", s.kind == StepKind::write_secret ? "" : s.content },
                      { "sha256", s.sha256 },
                      { "previous", s.previous ? json(*s.previous) : json(nullptr) },
                      { "mode", s.mode },
                      { "uid", s.uid },
                      { "gid", s.gid } });
  json j{ { "schema_version", 1 },
          { "operation", journal.operation },
          { "recovery", journal.recovery == Recovery::undo ? "undo" : "redo" },
          { "shim_sha256", journal.shim_sha256 },
          { "steps", steps } };
  return j.dump(1) + "\n";
}

util::Result<Journal> journal_from_json(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(ExitCode::corrupt, "the journal of an interrupted transaction is damaged");
  try {
    Journal journal;
    journal.operation = j.at("operation").get<std::string>();
    auto recovery = j.at("recovery").get<std::string>();
    if (recovery != "undo" && recovery != "redo")
      return fail(ExitCode::corrupt, "journal: unknown recovery '{}'", recovery);
    journal.recovery = recovery == "undo" ? Recovery::undo : Recovery::redo;
    journal.shim_sha256 = j.at("shim_sha256").get<std::string>();
    for (const auto& s : j.at("steps")) {
      Step step;
      TRY_ASSIGN(step.kind, kind_from_name(s.at("kind").get<std::string>()));
      step.path = s.at("path").get<std::string>();
      if (!util::is_clean_relative(step.path))
        return fail(ExitCode::corrupt, "journal names a path outside the prefix: '{}'", step.path);
      step.content = s.at("content").get<std::string>();
      step.sha256 = s.value("sha256", std::string());
      if (s.contains("previous") && !s.at("previous").is_null())
        step.previous = s.at("previous").get<std::string>();
      step.mode = s.at("mode").get<mode_t>() & 07777;
      step.uid = s.at("uid").get<uid_t>();
      step.gid = s.at("gid").get<gid_t>();
      journal.steps.push_back(std::move(step));
    }
    return journal;
  } catch (const json::exception& e) {
    return fail(
      ExitCode::corrupt, "the journal of an interrupted transaction is damaged: {}", e.what());
  }
}

Transaction::Transaction(const util::Dir& prefix_dir, std::string shim_bytes)
  : prefix_(prefix_dir)
  , shim_bytes_(std::move(shim_bytes))
  , shim_sha_(util::sha256_hex(shim_bytes_)) {}

util::Status Transaction::write_journal(const Journal& journal) {
  TRY_ASSIGN(auto state, prefix_.open_relative(state_dir_name));
  return state.write_atomic(journal_file, journal_to_json(journal), 0644);
}

util::Status Transaction::stage_secrets(const Journal& journal) {
  for (const auto& step : journal.steps) {
    if (!is_secret(step.kind))
      continue;
    auto [dir_path, name] = util::split_relative(step.path);
    if (dir_path != state_dir_name)
      return fail("{}: a secret belongs in {}", step.path, state_dir_name);
    TRY_ASSIGN(auto dir, prefix_.open_relative(dir_path));
    TRY(dir.remove(staged_of(name)));
    TRY(dir.remove(kept_of(name)));
    if (step.kind == StepKind::write_secret)
      TRY(dir.write_atomic(
        staged_of(name), step.content, step.mode, std::pair{ static_cast<uid_t>(-1), step.gid }));
    TRY_ASSIGN(auto current, dir.stat(name));
    if (current)
      TRY(dir.link(name, kept_of(name)));
    TRY(dir.sync());
  }
  return {};
}

void Transaction::drop_secret_leftovers() {
  auto state = prefix_.open_relative(state_dir_name);
  if (!state)
    return;
  auto names = state->list();
  if (!names)
    return;
  bool removed = false;
  for (const auto& name : *names)
    if (name.find(staged_marker) != std::string::npos ||
        name.find(kept_marker) != std::string::npos)
      removed = state->remove(name).has_value() || removed;
  if (removed)
    (void)state->sync();
}

util::Status Transaction::remove_journal() {
  TRY_ASSIGN(auto state, prefix_.open_relative(state_dir_name));
  TRY(state.remove(journal_file));
  return state.sync();
}

util::Result<bool> Transaction::is_shim(const util::Dir& dir,
                                        const std::string& name,
                                        const std::string& shim_sha256) const {
  TRY_ASSIGN(auto st, dir.stat(name));
  if (!st || st->kind != util::FileKind::file)
    return false;
  // Cheap rejection of big originals when the shim in hand is the one meant.
  if (shim_sha256 == shim_sha_ && st->size != shim_bytes_.size())
    return false;
  TRY_ASSIGN(auto digest, dir.sha256(name));
  return digest == shim_sha256;
}

util::Status Transaction::remove_temporaries(const util::Dir& dir, const std::string& name) const {
  TRY_ASSIGN(auto names, dir.list());
  auto prefix = "." + name + ".shimctl-tmp.";
  for (const auto& n : names)
    if (n.starts_with(prefix))
      TRY(dir.remove(n));
  return {};
}

namespace {

std::string describe_processes(const std::vector<pid_t>& pids) {
  std::string list;
  for (auto pid : pids)
    list += fmt::format("{}{}", list.empty() ? "" : ", ", pid);
  return pids.size() == 1 ? fmt::format("1 process (pid {})", list)
                          : fmt::format("{} processes (pids {})", pids.size(), list);
}

} // namespace

util::Status Transaction::retire(const util::Dir& dir, const std::string& real) const {
  using namespace std::chrono;
  const auto path = dir.path_of(real);
  const auto deadline = steady_clock::now() + busy_.limit;
  const auto seconds = duration_cast<duration<double>>(busy_.limit).count();
  for (bool told = false;; told = true) {
    auto pids = util::processes_running(path);
    if (pids.empty())
      break;
    if (steady_clock::now() >= deadline) {
      busy_.notice(fmt::format("{} still running {} after {:g} s; removed it anyway: those "
                               "compiles fail if they start it again",
                               describe_processes(pids),
                               path,
                               seconds));
      break;
    }
    if (!told)
      busy_.notice(fmt::format("waiting for {} still running {} (up to {:g} s, --busy-wait)",
                               describe_processes(pids),
                               path,
                               seconds));
    std::this_thread::sleep_for(milliseconds(50));
  }
  TRY(dir.remove(real));
  return dir.sync();
}

util::Status Transaction::link_real(const util::Dir& dir,
                                    const std::string& name,
                                    const Step& step,
                                    const std::string& shim_sha256) const {
  TRY_ASSIGN(auto original, dir.stat(name));
  TRY_ASSIGN(auto real, dir.stat(real_of(name)));
  if (real && original && same_inode(*real, *original))
    return {};
  if (real) {
    TRY_ASSIGN(bool shim_in_place, is_shim(dir, name, shim_sha256));
    if (shim_in_place)
      return {};
    return fail("{} exists and is not the original of {}; move it away first",
                dir.path_of(real_of(name)),
                dir.path_of(name));
  }
  if (!original)
    return fail("{} disappeared", dir.path_of(name));
  TRY(dir.link(name, real_of(name)));
  // Hashed after the link: the .real holds the very inode that is checked
  // (a package upgrade replaces a compiler by a rename, never in place).
  if (!step.sha256.empty()) {
    TRY_ASSIGN(auto digest, dir.sha256(real_of(name)));
    if (digest != step.sha256) {
      TRY(dir.remove(real_of(name)));
      TRY(dir.sync());
      return fail("{} changed since the install was planned (SHA-256 {}, planned {}): a "
                  "package upgrade? Nothing was changed; run the install again",
                  dir.path_of(name),
                  digest.substr(0, 12),
                  step.sha256.substr(0, 12));
    }
  }
  return dir.sync();
}

util::Status Transaction::restore(const util::Dir& dir,
                                  const std::string& name,
                                  const std::string& shim_sha256) const {
  TRY(remove_temporaries(dir, name));
  TRY_ASSIGN(auto real, dir.stat(real_of(name)));
  if (!real)
    return {}; // already restored
  TRY_ASSIGN(auto current, dir.stat(name));
  TRY_ASSIGN(bool shim_in_place, is_shim(dir, name, shim_sha256));
  bool upgraded = current && !shim_in_place && !same_inode(*current, *real);
  if (!upgraded && !(current && same_inode(*current, *real))) {
    // The original back under its name in one rename, PATH.real kept for
    // the compiles that are running it (a package upgrade that replaced
    // the shim is kept: the stale PATH.real just goes).
    TRY(dir.link(real_of(name), "." + name + ".shimctl-tmp.restore"));
    TRY(dir.rename("." + name + ".shimctl-tmp.restore", name));
    TRY(dir.sync());
  }
  return retire(dir, real_of(name));
}

util::Status Transaction::apply(const Step& step, const std::string& shim_sha256) {
  // Diversions live in dpkg's database, not in the prefix; both calls are idempotent.
  if (step.kind == StepKind::divert)
    return add_diversion(prefix_.path_of(step.path));
  if (step.kind == StepKind::undivert)
    return remove_diversion(prefix_.path_of(step.path));
  auto [dir_path, name] = util::split_relative(step.path);
  TRY_ASSIGN(auto dir, prefix_.open_relative(dir_path));
  switch (step.kind) {
    case StepKind::link_real:
      return link_real(dir, name, step, shim_sha256);
    case StepKind::write_file:
      return dir.write_atomic(name, step.content, step.mode);
    case StepKind::place_shim: {
      TRY_ASSIGN(bool done, is_shim(dir, name, shim_sha256));
      if (done)
        return {};
      TRY_ASSIGN(auto real, dir.stat(real_of(name)));
      if (!real)
        return fail("refusing to replace {}: its original is not kept as {}",
                    dir.path_of(name),
                    real_of(name));
      return dir.write_atomic(name, shim_bytes_, step.mode, std::pair{ step.uid, step.gid });
    }
    case StepKind::restore:
      return restore(dir, name, shim_sha256);
    case StepKind::remove_file:
      TRY(dir.remove(name));
      return dir.sync();
    case StepKind::divert: // handled above
    case StepKind::undivert:
      return {};
    case StepKind::write_secret: {
      TRY_ASSIGN(auto staged, dir.stat(staged_of(name)));
      if (!staged)
        return {}; // renamed already
      TRY(dir.rename(staged_of(name), name));
      return dir.sync();
    }
    case StepKind::remove_secret:
      TRY(dir.remove(name));
      return dir.sync();
    case StepKind::adopt_original: {
      TRY_ASSIGN(bool shim_in_place, is_shim(dir, name, shim_sha256));
      if (shim_in_place)
        return {};
      // link to a temporary name, then rename over the stale .real: atomic.
      std::string tmp = "." + name + ".shimctl-tmp.adopt";
      TRY(dir.remove(tmp));
      TRY(dir.link(name, tmp));
      TRY(dir.rename(tmp, real_of(name)));
      return dir.sync();
    }
  }
  return {};
}

util::Status Transaction::undo(const Step& step, const std::string& shim_sha256) {
  if (step.kind == StepKind::divert)
    return remove_diversion(prefix_.path_of(step.path));
  auto [dir_path, name] = util::split_relative(step.path);
  auto opened = prefix_.open_relative(dir_path);
  if (!opened)
    return {}; // the directory is gone: nothing of ours can be in it
  auto& dir = *opened;
  switch (step.kind) {
    case StepKind::link_real: {
      TRY_ASSIGN(auto original, dir.stat(name));
      TRY_ASSIGN(auto real, dir.stat(real_of(name)));
      if (real && original && same_inode(*real, *original))
        return retire(dir, real_of(name));
      if (real && !original) {
        TRY(dir.rename(real_of(name), name));
        return dir.sync();
      }
      return {};
    }
    case StepKind::write_file:
      TRY(remove_temporaries(dir, name));
      if (step.previous)
        return dir.write_atomic(name, *step.previous, step.mode);
      TRY(dir.remove(name));
      return dir.sync();
    case StepKind::place_shim: {
      TRY(remove_temporaries(dir, name));
      TRY_ASSIGN(bool shim_in_place, is_shim(dir, name, shim_sha256));
      TRY_ASSIGN(auto real, dir.stat(real_of(name)));
      if (shim_in_place && real) {
        // Put the original back under its name in one rename: never a gap.
        TRY(dir.link(real_of(name), "." + name + ".shimctl-tmp.undo"));
        TRY(dir.rename("." + name + ".shimctl-tmp.undo", name));
        return dir.sync();
      }
      return {};
    }
    case StepKind::write_secret:
    case StepKind::remove_secret: {
      // The kept file is what NAME was before the transaction (kept before the journal was
      // written: none kept, none there). It stays until the journal is gone, so that undoing
      // twice (a recovery that dies before it removes the journal) decides the same way.
      TRY(dir.remove(staged_of(name)));
      TRY_ASSIGN(auto kept, dir.stat(kept_of(name)));
      if (kept) {
        auto back = kept_of(name) + ".restore";
        TRY(dir.remove(back));
        TRY(dir.link(kept_of(name), back));
        TRY(dir.rename(back, name));
        TRY(dir.remove(back)); // left where NAME was that file already (rename did nothing)
      } else if (step.kind == StepKind::write_secret) {
        TRY(dir.remove(name));
      }
      return dir.sync();
    }
    case StepKind::restore:
    case StepKind::remove_file:
    case StepKind::adopt_original:
    case StepKind::divert: // handled above
    case StepKind::undivert:
      return {}; // rollback steps are finished forward, never undone
  }
  return {};
}

util::Status Transaction::undo_all(const Journal& journal, std::size_t done) {
  for (std::size_t i = done; i-- > 0;)
    TRY(undo(journal.steps[i], journal.shim_sha256));
  return remove_journal();
}

util::Status Transaction::run(const Journal& journal, const StepObserver& observer) {
  if (auto staged = stage_secrets(journal); !staged) {
    drop_secret_leftovers();
    return staged;
  }
  if (auto written = write_journal(journal); !written) {
    drop_secret_leftovers();
    return written;
  }
  test_hooks::kill_after_step(0);
  for (std::size_t i = 0; i < journal.steps.size(); ++i) {
    const auto& step = journal.steps[i];
    auto applied = apply(step, journal.shim_sha256);
    if (!applied) {
      if (journal.recovery == Recovery::undo) {
        auto undone = undo_all(journal, i + 1);
        if (!undone)
          return fail("{}; undoing the {} also failed: {} (run 'shimctl rollback' again)",
                      applied.error().message,
                      journal.operation,
                      undone.error().message);
        drop_secret_leftovers();
      }
      return applied;
    }
    if (observer)
      observer(i, step, step.describe());
    test_hooks::kill_after_step(i + 1);
  }
  TRY(remove_journal());
  drop_secret_leftovers(); // the credential a write_secret replaced goes once nothing can undo it
  return {};
}

util::Result<std::string> Transaction::recover(const StepObserver& observer) {
  TRY_ASSIGN(auto state, prefix_.open_relative(state_dir_name));
  TRY_ASSIGN(auto present, state.stat(journal_file));
  if (!present) {
    drop_secret_leftovers(); // a transaction that died while staging, or just after its end
    return std::string();
  }
  TRY_ASSIGN(auto text, state.read_file(journal_file, 64 << 20));
  TRY_ASSIGN(auto journal, journal_from_json(text));
  if (journal.recovery == Recovery::undo) {
    TRY(undo_all(journal, journal.steps.size()));
    drop_secret_leftovers();
    return fmt::format(
      "undid an interrupted {} ({} steps)", journal.operation, journal.steps.size());
  }
  for (std::size_t i = 0; i < journal.steps.size(); ++i) {
    TRY(apply(journal.steps[i], journal.shim_sha256));
    if (observer)
      observer(i, journal.steps[i], journal.steps[i].describe());
  }
  TRY(remove_journal());
  drop_secret_leftovers();
  return fmt::format(
    "finished an interrupted {} ({} steps)", journal.operation, journal.steps.size());
}

} // namespace shimctl::core
