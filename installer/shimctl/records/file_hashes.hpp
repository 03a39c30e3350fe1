// The content hashes of compiles' inputs, remembered per user (records/file-hashes) by path and
// stat data (inode, size, mtime, ctime), as ccache's inode cache does: a miss's record hashes only
// the headers that changed since the last miss that read them. A file changed within the last
// two seconds is hashed but not remembered (its stat data could stay the same after a change).
#pragma once

#include <string>
#include <unordered_map>

namespace shimctl::records {

class FileHashes {
public:
  explicit FileHashes(std::string memo_path);
  // The first 16 hex digits of PATH's SHA-256 (relative: to the working directory); "" when it
  // cannot be read.
  [[nodiscard]] std::string hash(const std::string& path);
  // Appends what was hashed to the memo (starting it afresh when it has grown past its bound).
  void save();

private:
  struct Known {
    std::string stat; // "inode size mtime ctime"
    std::string sha;
  };
  std::string memo_path_;
  std::unordered_map<std::string, Known> known_;
  std::string added_;
  std::size_t loaded_bytes_ = 0;
};

} // namespace shimctl::records
