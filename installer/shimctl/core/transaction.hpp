// The one place that changes a toolchain on disk. A transaction is a list of
// idempotent steps written to a journal (PREFIX/.shimctl/journal.json) before
// the first one runs. If the process dies, the next shimctl command finds the
// journal and recovers: an install is undone, a rollback is finished.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <shimctl/core/state_files.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shimctl::core {

enum class StepKind {
  link_real,      // PATH.real = hard link to PATH (the original keeps its inode)
  write_file,     // PATH = CONTENT (shim config, manifest), atomically
  place_shim,     // PATH = the shim (temp file, fsync, rename over PATH)
  restore,        // PATH = PATH.real again (link + rename), then PATH.real goes once unused
  remove_file,    // unlink PATH
  adopt_original, // PATH.real = PATH (a package upgrade replaced PATH)
  divert,         // dpkg-divert PATH to PATH.real (core/divert.hpp); undo removes it
  undivert,       // remove shimctl's dpkg diversion of PATH (rollback)
  // A credential (the secrets file, cache/secrets.hpp), only in the state directory: the journal
  // never holds its content. Before the journal is written, run() stages CONTENT as
  // .NAME.shimctl-staged (MODE, group GID; never wider on the way) and keeps the current NAME,
  // if any, as the hard link .NAME.shimctl-kept. The step renames the staged file over NAME
  // (remove_secret: unlinks NAME); undo puts the kept one back (or removes NAME); once the
  // transaction is over, and at every recovery, the staged and kept files go.
  write_secret,
  remove_secret,
};

struct Step {
  StepKind kind = StepKind::write_file;
  std::string path;                    // relative to the prefix ("." components never)
  std::string content;                 // write_file, write_secret (never in the journal)
  std::string sha256;                  // link_real: the original's planned hash ("" = unchecked)
  std::optional<std::string> previous; // write_file: content to put back on undo
  mode_t mode = 0644;                  // write_file, place_shim, write_secret
  uid_t uid = 0;                       // place_shim
  gid_t gid = 0;                       // place_shim, write_secret
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] static Step of(StepKind kind, std::string path) {
    Step step;
    step.kind = kind;
    step.path = std::move(path);
    return step;
  }
};

enum class Recovery { undo, redo };

struct Journal {
  std::string operation; // install | rollback | refresh
  Recovery recovery = Recovery::undo;
  std::string shim_sha256;
  std::vector<Step> steps;
};

// Step-by-step progress reporting: (step index, step, what was done).
using StepObserver = std::function<void(std::size_t, const Step&, const std::string&)>;

// Removing a PATH.real waits (up to LIMIT) for the processes still running it:
// a clang driver started as clang.real runs clang.real again for each job.
struct BusyWait {
  std::chrono::milliseconds limit{ std::chrono::seconds(120) };
  std::function<void(const std::string&)> notice = [](const std::string&) {};
};

class Transaction {
public:
  // PREFIX_DIR: the prefix; SHIM_BYTES: the shim binary (for place_shim).
  Transaction(const util::Dir& prefix_dir, std::string shim_bytes);

  // Writes the journal, runs every step, removes the journal. On a failing
  // step the finished ones are undone (install) before the error returns.
  [[nodiscard]] util::Status run(const Journal& journal, const StepObserver& observer = {});

  // Finishes or undoes an interrupted transaction, if any. Returns a one-line
  // description of what it did, or "" when there was nothing to recover.
  [[nodiscard]] util::Result<std::string> recover(const StepObserver& observer = {});

  [[nodiscard]] util::Status apply(const Step& step, const std::string& shim_sha256);
  [[nodiscard]] util::Status undo(const Step& step, const std::string& shim_sha256);
  // write_secret, remove_secret: the staged and kept files, which run() makes before it writes
  // the journal (public, as apply and undo, for the tests that stop a transaction midway).
  [[nodiscard]] util::Status stage_secrets(const Journal& journal);

  void set_busy_wait(BusyWait busy) {
    busy_ = std::move(busy);
  }

private:
  [[nodiscard]] util::Status write_journal(const Journal& journal);
  // Removes what stage_secrets left in the state directory (best effort, never fails the caller).
  void drop_secret_leftovers();
  [[nodiscard]] util::Status remove_journal();
  [[nodiscard]] util::Status undo_all(const Journal& journal, std::size_t done);
  [[nodiscard]] util::Result<bool> is_shim(const util::Dir& dir,
                                           const std::string& name,
                                           const std::string& shim_sha256) const;
  [[nodiscard]] util::Status remove_temporaries(const util::Dir& dir,
                                                const std::string& name) const;
  // Removes DIR/REAL once no process runs it (or BusyWait::limit passed).
  [[nodiscard]] util::Status retire(const util::Dir& dir, const std::string& real) const;
  // apply's steps that take more than a call: the original kept as NAME.real (a hard link, its
  // hash checked), the original back under its name.
  [[nodiscard]] util::Status link_real(const util::Dir& dir,
                                       const std::string& name,
                                       const Step& step,
                                       const std::string& shim_sha256) const;
  [[nodiscard]] util::Status restore(const util::Dir& dir,
                                     const std::string& name,
                                     const std::string& shim_sha256) const;

  const util::Dir& prefix_;
  std::string shim_bytes_;
  std::string shim_sha_;
  BusyWait busy_;
};

[[nodiscard]] std::string journal_to_json(const Journal& journal);
[[nodiscard]] util::Result<Journal> journal_from_json(const std::string& text);

} // namespace shimctl::core
