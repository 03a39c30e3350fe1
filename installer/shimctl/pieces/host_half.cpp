#include <algorithm>
#include <cstddef>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace shimctl::pieces {

namespace {

struct ElfSection {
  std::string name;
  Elf64_Shdr header;
};

// The sections of the ELF64 object IMAGE, in order; empty when it is no such object.
std::vector<ElfSection> elf_sections(const std::string& image) {
  Elf64_Ehdr eh;
  if (image.size() < sizeof eh || image.compare(0, SELFMAG, ELFMAG) != 0 ||
      image[EI_CLASS] != ELFCLASS64)
    return {};
  std::memcpy(&eh, image.data(), sizeof eh);
  std::vector<ElfSection> sections(eh.e_shnum);
  for (std::size_t i = 0; i < sections.size(); i++) {
    std::size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    if (at + sizeof(Elf64_Shdr) > image.size())
      return {};
    std::memcpy(&sections[i].header, image.data() + at, sizeof(Elf64_Shdr));
  }
  if (eh.e_shstrndx >= sections.size())
    return {};
  const auto& names = sections[eh.e_shstrndx].header;
  if (names.sh_offset + names.sh_size > image.size())
    return {};
  for (auto& section : sections) {
    if (section.header.sh_name >= names.sh_size)
      return {};
    const char* at = image.data() + names.sh_offset + section.header.sh_name;
    section.name.assign(at, strnlen(at, names.sh_size - section.header.sh_name));
  }
  return sections;
}

} // namespace

std::optional<std::string> elf_section(const std::string& image, std::string_view name) {
  for (const auto& section : elf_sections(image)) {
    const auto& h = section.header;
    if (section.name != name)
      continue;
    if (h.sh_type == SHT_NOBITS || h.sh_offset + h.sh_size > image.size())
      return std::nullopt;
    return image.substr(h.sh_offset, h.sh_size);
  }
  return std::nullopt;
}

namespace {

// SHT_LLVM_ADDRSIG: the address-significance table, linked to .symtab (not in glibc's elf.h).
constexpr Elf64_Word section_type_llvm_addrsig = 0x6fff4c03;

// Puts back in OUT (the file at OUT_PATH) the .llvm_addrsig link to .symtab that HALF has and
// llvm-objcopy 15/16 drop (they write 0), field by field; the rest of OUT stays as
// llvm-objcopy wrote it. False when the file cannot be written.
bool mend_addrsig_link(const std::string& half,
                       const std::string& out,
                       const std::string& out_path) {
  auto before = elf_sections(half), after = elf_sections(out);
  if (before.empty() || before.size() != after.size())
    return true;
  Elf64_Ehdr eh;
  std::memcpy(&eh, out.data(), sizeof eh);
  for (std::size_t i = 0; i < before.size(); i++) {
    const auto &a = before[i].header, &b = after[i].header;
    if (b.sh_type != section_type_llvm_addrsig || b.sh_link != 0 || a.sh_link == 0)
      continue;
    std::fstream file(out_path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(eh.e_shoff + i * sizeof(Elf64_Shdr) +
                                           offsetof(Elf64_Shdr, sh_link)));
    file.write(reinterpret_cast<const char*>(&a.sh_link), sizeof a.sh_link);
    if (!file.flush())
      return false;
  }
  return true;
}

// The first section whose header differs between HALF and OUT other than by its place in the
// file (and .hip_fatbin by its size); "" when none does.
std::string changed_section(const std::string& half, const std::string& out) {
  auto before = elf_sections(half), after = elf_sections(out);
  if (before.empty() || before.size() != after.size())
    return "the section table";
  for (std::size_t i = 0; i < before.size(); i++) {
    const auto &a = before[i].header, &b = after[i].header;
    bool same = before[i].name == after[i].name && a.sh_type == b.sh_type &&
                a.sh_flags == b.sh_flags && a.sh_addr == b.sh_addr && a.sh_link == b.sh_link &&
                a.sh_info == b.sh_info && a.sh_addralign == b.sh_addralign &&
                a.sh_entsize == b.sh_entsize &&
                (a.sh_size == b.sh_size || before[i].name == ".hip_fatbin");
    if (!same)
      return before[i].name;
  }
  return {};
}

} // namespace

std::string toolchain_objcopy(const std::string& real) {
  auto slash = real.rfind('/');
  if (slash == std::string::npos)
    return {};
  std::string objcopy = real.substr(0, slash + 1) + "llvm-objcopy";
  return ::access(objcopy.c_str(), X_OK) == 0 ? objcopy : std::string();
}

std::string host_half_objcopy(const PieceRequest& request, const OffloadCall& call) {
  if (!call.host_half_reason.empty() || !request.tool->caches_host_half())
    return {};
  return toolchain_objcopy(request.real);
}

std::string host_half_verdict_kind(const std::string& objcopy) {
  struct stat st {};
  if (::stat(objcopy.c_str(), &st) != 0)
    return {};
  return fmt::format(" host-half {} {} {} {}.{}",
                     objcopy,
                     st.st_ino,
                     st.st_size,
                     st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
}

std::vector<std::string> host_half_command(const PieceRequest& request,
                                           const OffloadCall& call,
                                           const std::string& output) {
  std::vector<std::string> command{ request.cache_tool, request.compiler };
  command.insert(command.end(), call.host_args.begin(), call.host_args.end());
  for (const char* flag : { "--cuda-host-only", "-Xclang", "-fcuda-include-gpubinary", "-Xclang" })
    command.emplace_back(flag);
  command.emplace_back("/dev/null");
  // The depfile's target: the driver's default is the -o it is given (quoted as -MQ does).
  if (call.depfile_named && !call.depfile_target_named) {
    command.emplace_back("-MQ");
    command.push_back(call.output);
  }
  command.emplace_back("-o");
  command.push_back(output);
  return command;
}

bool registers_no_kernel(const std::string& half) {
  auto sections = elf_sections(util::read_text_file(half));
  return !sections.empty() && std::ranges::none_of(sections, [](const ElfSection& section) {
    return section.name == ".hip_fatbin";
  });
}

bool copy_half(const std::string& half, const std::string& output) {
  std::error_code error;
  std::filesystem::copy_file(
    half, output, std::filesystem::copy_options::overwrite_existing, error);
  return !error;
}

std::string reassemble_object(const std::string& objcopy,
                              const std::string& half,
                              const std::string& bundle,
                              const util::ScratchDir& scratch,
                              const std::string& output) {
  // What the host compile adds to an empty fat binary (clang-15/16: a NUL, as after any):
  // the same goes after the bundle.
  auto empty = elf_section(util::read_text_file(half), ".hip_fatbin");
  if (!empty || empty->size() > 16 || std::ranges::any_of(*empty, [](char c) { return c != 0; }))
    return "the host half holds no empty .hip_fatbin";
  std::string fatbin = bundle;
  if (!empty->empty()) {
    auto text = util::read_text_file(bundle);
    if (text.empty() || !scratch.write("bundle-padded.hipfb", text + *empty))
      return "cannot pad the bundle as the host compile would";
    fatbin = scratch.file("bundle-padded.hipfb");
  }
  return replace_fatbin(objcopy, half, fatbin, output);
}

std::string replace_fatbin(const std::string& objcopy,
                           const std::string& object,
                           const std::string& fatbin,
                           const std::string& output) {
  auto run = util::run({ objcopy, "--update-section", ".hip_fatbin=" + fatbin, object, output });
  if (!run || !run->ok())
    return "llvm-objcopy could not put the bundle into the object";
  auto before = util::read_text_file(object);
  if (!mend_addrsig_link(before, util::read_text_file(output), output))
    return "cannot mend the .llvm_addrsig link llvm-objcopy dropped";
  if (auto changed = changed_section(before, util::read_text_file(output)); !changed.empty())
    return "llvm-objcopy changed the header of " + changed;
  return {};
}

} // namespace shimctl::pieces
