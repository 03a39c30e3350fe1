// The host half of a split (non-rdc, either driver): the host compile depends on the target set
// only through the fat binary it embeds (.hip_fatbin). Compiled once through the cache tool with
// an empty one (`--cuda-host-only -Xclang -fcuda-include-gpubinary -Xclang /dev/null`, keyed
// without the targets), it serves every target set of the same source and output: the object is
// that half with `llvm-objcopy --update-section .hip_fatbin=<bundle>` (the toolchain's own
// llvm-objcopy, beside its clang). The fixed -cuid= the shim gives every HIP compile makes the
// half the same for every target set. Checked against a one-step compile once per toolchain.
#pragma once
#include <optional>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <shimctl/util/scratch.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

// The llvm-objcopy beside the compiler REAL (its own toolchain's), or "" when there is none.
[[nodiscard]] std::string toolchain_objcopy(const std::string& real);

// The llvm-objcopy that reassembles CALL's object from its host half, or "" when the host half
// cannot be cached apart (-fgpu-rdc, a depfile spelled otherwise, no llvm-objcopy, sccache).
[[nodiscard]] std::string host_half_objcopy(const PieceRequest& request, const OffloadCall& call);

// What the first split's verdict adds for a reassembled object: OBJCOPY's path and stat data (a
// changed objcopy is checked again).
[[nodiscard]] std::string host_half_verdict_kind(const std::string& objcopy);

// The host half's compile through the cache tool, writing OUTPUT (its depfile the call's).
[[nodiscard]] std::vector<std::string> host_half_command(const PieceRequest& request,
                                                         const OffloadCall& call,
                                                         const std::string& output);

// True when HALF has no .hip_fatbin section: its TU registers no kernel (nor device variable), so
// the host compile embeds no fat binary and the half is the whole object, whatever the targets.
[[nodiscard]] bool registers_no_kernel(const std::string& half);

// OUTPUT: a copy of HALF (the object of a TU that registers no kernel); false when not written.
[[nodiscard]] bool copy_half(const std::string& half, const std::string& output);

// OUTPUT: HALF with BUNDLE as its .hip_fatbin (followed by what the host compile put in it for
// an empty one: clang-15/16 end it with a NUL; a padded copy in SCRATCH); "" or why not.
[[nodiscard]] std::string reassemble_object(const std::string& objcopy,
                                            const std::string& half,
                                            const std::string& bundle,
                                            const util::ScratchDir& scratch,
                                            const std::string& output);

// OUTPUT: OBJECT with FATBIN (a file: a bundle, padded as the host compile pads it) as its
// .hip_fatbin, by OBJCOPY, its section headers otherwise unchanged (the .llvm_addrsig link that
// llvm-objcopy 15/16 drop put back); "" or why not.
[[nodiscard]] std::string replace_fatbin(const std::string& objcopy,
                                         const std::string& object,
                                         const std::string& fatbin,
                                         const std::string& output);

// The bytes of section NAME in the ELF64 object IMAGE; nullopt when it has none.
[[nodiscard]] std::optional<std::string> elf_section(const std::string& image,
                                                     std::string_view name);

} // namespace shimctl::pieces
