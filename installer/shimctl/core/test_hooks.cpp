#include <shimctl/core/test_hooks.hpp>
#include <shimctl/util/text.hpp>

#ifdef SHIMCTL_TEST_HOOKS
#include <cstdlib>
#include <signal.h>
#include <unistd.h>
#endif

namespace shimctl::core::test_hooks {

#ifdef SHIMCTL_TEST_HOOKS

bool enabled() {
  return true;
}

void kill_after_step(std::size_t step_number) {
  static const char* value = std::getenv("SHIMCTL_TEST_KILL_AFTER_STEP");
  if (value && std::strtoul(value, nullptr, 10) == step_number)
    ::kill(::getpid(), SIGKILL);
}

void after_plan() {
  if (const char* command = std::getenv("SHIMCTL_TEST_AFTER_PLAN"))
    (void)std::system(command);
}

bool shim_identity_off() {
  const char* value = std::getenv("SHIMCTL_TEST_SHIM_IDENTITY");
  return value && std::string(value) == "off";
}

std::vector<std::string> shim_extra_environment() {
  const char* value = std::getenv("SHIMCTL_TEST_SHIM_ENV");
  return value ? util::lines_of(value) : std::vector<std::string>{};
}

#else

bool enabled() {
  return false;
}

void kill_after_step(std::size_t) {}

void after_plan() {}

bool shim_identity_off() {
  return false;
}

std::vector<std::string> shim_extra_environment() {
  return {};
}

#endif

} // namespace shimctl::core::test_hooks
