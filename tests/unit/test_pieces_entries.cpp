// The list of stored pieces' files beside the cache (pieces/piece_entries.hpp): what status
// tells apart from the whole objects' bytes.
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <shimctl/pieces/piece_entries.hpp>
#include <string>
#include <sys/stat.h>

namespace pieces = shimctl::pieces;

namespace {

std::uint64_t size_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<std::uint64_t>(st.st_size);
}

} // namespace

TEST_SUITE_BEGIN("pieces::entries");

TEST_CASE("listed pieces: the files that still exist count, once each; outside the cache never") {
  char dir_template[] = "/tmp/shimctl-piece-entries-XXXXXX";
  REQUIRE(::mkdtemp(dir_template));
  std::string dir = dir_template;
  CHECK_FALSE(pieces::piece_entry_bytes(dir)); // no list yet
  std::filesystem::create_directories(dir + "/a/b");
  std::ofstream(dir + "/a/b/pieceR") << std::string(10000, 'x');
  std::ofstream(dir + "/a/b/pieceM") << std::string(3000, 'y');
  std::ofstream(dir + "/a/b/goneR") << "z";
  pieces::list_piece_entries(dir, 022, { dir + "/a/b/pieceR", dir + "/a/b/goneR", "/etc/passwd" });
  pieces::list_piece_entries(dir, 022, { dir + "/a/b/pieceM", dir + "/a/b/pieceR" });
  std::filesystem::remove(dir + "/a/b/goneR"); // evicted
  auto bytes = pieces::piece_entry_bytes(dir);
  REQUIRE(bytes);
  CHECK(bytes->files == 2);
  CHECK(bytes->bytes == size_of(dir + "/a/b/pieceR") + size_of(dir + "/a/b/pieceM"));
  std::ifstream list(dir + "/" + std::string(pieces::entries_file_name));
  std::string text((std::istreambuf_iterator<char>(list)), std::istreambuf_iterator<char>());
  CHECK(text == "a/b/pieceR\na/b/goneR\na/b/pieceM\na/b/pieceR\n"); // relative, /etc left out
  std::filesystem::remove_all(dir);
}

TEST_CASE("a list past its size keeps only the files that still exist") {
  char dir_template[] = "/tmp/shimctl-piece-entries-XXXXXX";
  REQUIRE(::mkdtemp(dir_template));
  std::string dir = dir_template;
  std::ofstream(dir + "/kept") << "k";
  std::vector<std::string> gone;
  for (std::uint64_t listed = 0; listed <= pieces::entries_file_pruned_at;) {
    gone.push_back(dir + "/" + std::string(30, 'g') + std::to_string(gone.size()));
    listed += gone.back().size() - dir.size(); // the relative path and its newline
  }
  pieces::list_piece_entries(dir, 022, gone);
  pieces::list_piece_entries(dir, 022, { dir + "/kept" });
  CHECK(std::filesystem::file_size(dir + "/" + std::string(pieces::entries_file_name)) ==
        std::string("kept\n").size());
  std::filesystem::remove_all(dir);
}

TEST_SUITE_END();
