#include <climits>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <set>
#include <shimctl/identity/shared_libs.hpp>
#include <shimctl/util/process.hpp>
#include <unistd.h>

namespace shimctl::identity {

namespace {

// The program interpreter (PT_INTERP) of a 64-bit ELF file, "" if none.
std::string program_interpreter(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "";
  std::string interpreter;
  Elf64_Ehdr header{};
  if (::pread(fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64 &&
      header.e_phentsize == sizeof(Elf64_Phdr) && header.e_phnum < 256) {
    for (unsigned i = 0; i < header.e_phnum; ++i) {
      Elf64_Phdr ph{};
      auto at = static_cast<off_t>(header.e_phoff + i * sizeof ph);
      if (::pread(fd, &ph, sizeof ph, at) != static_cast<ssize_t>(sizeof ph))
        break;
      if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > PATH_MAX)
        continue;
      interpreter.resize(ph.p_filesz);
      auto n = ::pread(fd, interpreter.data(), ph.p_filesz, static_cast<off_t>(ph.p_offset));
      interpreter.resize(n > 0 ? std::strlen(interpreter.c_str()) : 0);
      break;
    }
  }
  ::close(fd);
  return interpreter;
}

} // namespace

std::vector<std::string> parse_loader_list(std::string_view output) {
  std::vector<std::string> libs;
  while (!output.empty()) {
    auto end = output.find('\n');
    auto line = output.substr(0, end);
    output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
    auto arrow = line.find(" => ");
    auto path = arrow == std::string_view::npos ? line : line.substr(arrow + 4);
    path.remove_prefix(std::min(path.find_first_not_of(" \t"), path.size()));
    path = path.substr(0, path.find(" ("));
    if (path.starts_with("/"))
      libs.emplace_back(path);
  }
  return libs;
}

std::vector<std::string> shared_libraries(const std::vector<std::string>& files) {
  std::set<std::string> seen;
  std::vector<std::string> libs;
  for (const auto& file : files) {
    auto interpreter = program_interpreter(file);
    if (interpreter.empty())
      continue;
    auto listed = util::run({ interpreter, "--list", file }, { {}, { { "LC_ALL", "C" } }, {}, {} });
    if (!listed || !listed->ok())
      continue;
    for (const auto& lib : parse_loader_list(listed->out)) {
      char resolved[PATH_MAX];
      if (::realpath(lib.c_str(), resolved) && seen.insert(resolved).second)
        libs.emplace_back(resolved);
    }
  }
  return libs;
}

} // namespace shimctl::identity
