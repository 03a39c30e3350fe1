#include "temp_dir.hpp"

#include <algorithm>
#include <filesystem>
#include <shimctl/util/proc_users.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace shimctl;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace fs = std::filesystem;

namespace {

// Starts ARGV[0] with ARGV; returns its pid once its executable is in place.
pid_t start(std::vector<std::string> argv, const std::string& expected_exe) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0); // stop() ends the whole group (a script's children too)
    std::vector<char*> args;
    for (auto& a : argv)
      args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  for (int i = 0; i < 200; ++i) { // wait for the exec to replace the forked copy
    std::error_code ec;
    if (fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).string() == expected_exe)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pid;
}

void stop(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

bool has(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

} // namespace

TEST_SUITE_BEGIN("util::ProcUsers");

TEST_CASE("processes_running finds a process by its executable, and a script by its argument") {
  auto dir = make_temp_dir();
  auto exe = dir + "/clang.real";
  fs::copy_file("/bin/sleep", exe);
  fs::permissions(exe, fs::perms::owner_all);
  CHECK(util::processes_running(exe).empty());

  pid_t running = start({ exe, "30" }, exe);
  auto found = util::processes_running(exe);
  CHECK(has(found, running));
  CHECK(found.size() == 1);
  CHECK_FALSE(has(util::processes_running(exe + "x"), running));
  stop(running);
  CHECK_FALSE(has(util::processes_running(exe), running));

  // The kernel starts a script's interpreter with the script's path as an argument.
  auto script = dir + "/hipcc.real";
  // Not a lone last command, which a shell may exec in place of itself.
  write_text(script, "#!/bin/sh\nsleep 30\nexit 0\n");
  fs::permissions(script, fs::perms::owner_all);
  pid_t interpreter = start({ "/bin/sh", script }, fs::canonical("/bin/sh").string());
  // Waits on the condition itself (bounded, 5 s): under load the interpreter may still be
  // starting when start() returns (seen once in the sid leg).
  bool found_interpreter = false;
  for (int i = 0; i < 500 && !found_interpreter; ++i) {
    found_interpreter = has(util::processes_running(script), interpreter);
    if (!found_interpreter)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(found_interpreter);
  stop(interpreter);
}

TEST_SUITE_END();
