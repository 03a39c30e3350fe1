// A fresh directory per test (under $TMPDIR or /tmp), removed when the test
// case passes and kept (its path printed) when it fails.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace shimctl::test {

// The directories made during the current test case; the listener below
// decides at its end whether they go.
inline std::vector<std::string>& pending_temp_dirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

struct TempDirListener : doctest::IReporter {
  explicit TempDirListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
    for (const auto& dir : pending_temp_dirs()) {
      if (stats.testCaseSuccess) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      } else {
        std::fprintf(stderr, "test files kept in %s\n", dir.c_str());
      }
    }
    pending_temp_dirs().clear();
  }
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

// Registered once for the whole executable (an inline variable).
inline const int temp_dir_listener_registered =
  doctest::registerReporter<TempDirListener>("shimctl-temp-dirs", 1, false);

// A new empty directory; its canonical absolute path.
inline std::string make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/shimctl-unit.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  REQUIRE(::mkdtemp(buffer.data()) != nullptr);
  auto path = std::filesystem::canonical(buffer.data()).string();
  pending_temp_dirs().push_back(path);
  return path;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

} // namespace shimctl::test
