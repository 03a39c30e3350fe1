// `shimctl help-man`: the man page, generated from the CLI11 tree at build time.
#include <fmt/format.h>
#include <shimctl/cli/help.hpp>

namespace shimctl::cli {

namespace {

// Escapes text for roff: backslashes, hyphens (so they stay ASCII hyphens in
// man's output), and a leading '.' or '\'' that would start a request.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\''))
    out.insert(0, "\\&");
  return out;
}

std::string option_heading(const CLI::Option& opt) {
  if (opt.get_positional() && !opt.nonpositional())
    return fmt::format("\\fI{}\\fR", roff(opt.get_name(true)));
  std::string names;
  for (const auto& s : opt.get_snames())
    names += fmt::format("{}\\fB\\-{}\\fR", names.empty() ? "" : ", ", roff(s));
  for (const auto& l : opt.get_lnames())
    names += fmt::format("{}\\fB\\-\\-{}\\fR", names.empty() ? "" : ", ", roff(l));
  if (opt.get_expected_max() != 0 && !opt.get_type_name().empty())
    names += fmt::format(" \\fI{}\\fR", roff(opt.get_type_name()));
  return names;
}

std::string usage(const CLI::App& app) {
  std::string line = fmt::format("\\fBshimctl {}\\fR", roff(command_path(app)));
  auto subs = visible_subcommands(app);
  if (!subs.empty())
    return line + " \\fICOMMAND\\fR ...";
  line += " [\\fIOPTIONS\\fR]";
  for (const auto* opt : app.get_options())
    if (opt->get_positional() && !opt->nonpositional()) {
      auto name = roff(opt->get_name(true));
      if (opt->get_expected_max() > 1)
        name += " ...";
      line +=
        opt->get_required() ? fmt::format(" \\fI{}\\fR", name) : fmt::format(" [\\fI{}\\fR]", name);
    }
  return line;
}

void describe_command(const CLI::App& app, std::string& out) {
  out += fmt::format(".SS \"shimctl {}\"\n{}\n.PP\n{}\n",
                     roff(command_path(app)),
                     roff(app.get_description()),
                     usage(app));
  for (const auto* opt : app.get_options()) {
    if (opt->get_group().empty())
      continue;
    out += fmt::format(".TP\n{}\n{}\n", option_heading(*opt), roff(opt->get_description()));
  }
  auto examples = examples_for(command_path(app));
  if (!examples.empty()) {
    out += ".PP\nExamples:\n.RS\n.nf\n";
    for (const auto& e : examples)
      out += e.comment.empty() ? roff(e.command) + "\n"
                               : fmt::format("{}    # {}\n", roff(e.command), roff(e.comment));
    out += ".fi\n.RE\n";
  }
  for (const auto* sub : visible_subcommands(app))
    describe_command(*sub, out);
}

constexpr std::string_view description = R"(.SH DESCRIPTION
shimctl puts a compiler cache (ccache or sccache) behind a toolchain's own compiler paths, such as
/opt/rocm/bin/hipcc, /opt/rocm/llvm/bin/clang++ or /usr/local/cuda/bin/nvcc.
Every caller of those paths (a build system, or a JIT compiler that runs the absolute path) then
gets cached compiles, without any change to the caller.
.PP
Each compiler is replaced by a small static shim, as a regular file at its own path; the original
stays beside it as \fINAME\fR.real (a hard link to the same inode).
Every change is journaled, verified with real compiles (a cold compile, then a repeat that must hit
the cache), and undone byte\-identical by \fBshimctl rollback\fR.
The toolchain's identity (compilers and device libraries) is part of every cache key.
)";

constexpr std::string_view tail = R"(.SH ENVIRONMENT
.TP
\fBSHIMCTL_DISABLE=1\fR
The shim runs the original compiler directly, without the cache, in this process and its children.
.TP
\fBSHIMCTL_STRICT=1\fR
The shim fails (exit 1) when the cache tool cannot run, instead of compiling without it.
.TP
\fBSHIMCTL_SHIM_TRACE=1\fR
The shim prints its decision on stderr: "cache TOOL COMPILER" or "direct ORIGINAL".
.TP
\fBSHIMCTL_BASE_DIRS=\fR\fIDIR\fR[:\fIDIR\fR...]
Extra roots of the location\-free paths (absolute, at most 4, in order: views b0, b1, ...), in
place of the directories \fBinstall \-\-base\-dir\fR gave.
.TP
\fBSHIMCTL_SHIM\fR, \fBSHIMCTL_DATA_DIR\fR
Override where shimctl finds the shim binary and its data (layouts); by default both are found
relative to the shimctl executable (../libexec/shimctl, ../share/shimctl).
.TP
\fBCCACHE_*\fR, \fBSCCACHE_*\fR
Settings in the caller's environment take precedence over the defaults the shim applies.
.SH FILES
.TP
\fIPREFIX\fR/.shimctl/manifest.json
What was changed, with the SHA\-256 of every original and of the shim; rollback reads it.
.TP
\fIPREFIX\fR/.shimctl/journal.json
Present only while a change is unfinished; the next shimctl finishes or undoes it.
.TP
\fIPREFIX\fR/.shimctl/events.log
Lines appended by the shim, such as a cache tool that could not run.
.TP
\fIPREFIX\fR/.shimctl/secrets
Only with a \fB\-\-remote\fR URL that carries a password: the cache tool's variables with it
(mode 0600, or 0640 with the group of \fB\-\-shared\-cache\fR). The only place the password is
kept; everything else shows the URL as scheme://***@host. Users who cannot read it compile
without the remote.
.TP
\fIDIR\fR/.shimctl.conf
The shim's configuration, next to the shims it configures.
.TP
/usr/libexec/shimctl/shimctl\-shim, /usr/share/shimctl/layouts/*.json
The shim that \fBinstall\fR copies, and the toolchain layouts it knows.
)";

constexpr std::string_view diagnostics = R"(.SH DIAGNOSTICS
An error is one line on stderr, "shimctl: error: MESSAGE", and a non\-zero exit status.
A warning (the command succeeded, but something needs attention, such as an identity snapshot
that could not be written) is one line on stderr, "shimctl: warning: MESSAGE", also with
\fB\-\-json\fR; the JSON result lists the same messages in its "warnings" array (empty when
there are none).
)";

} // namespace

std::string man_page(const CLI::App& app, std::string_view version) {
  std::string out = fmt::format(
    ".\\\" Generated by 'shimctl help-man' from shimctl's command-line parser; do not edit.\n"
    ".TH SHIMCTL 1 \"\" \"shimctl {}\" \"User Commands\"\n"
    ".SH NAME\nshimctl \\- put a compiler cache behind a toolchain's own compiler paths, "
    "safely\n.SH SYNOPSIS\n",
    version);
  for (const auto* sub : visible_subcommands(app))
    out += fmt::format("{}\n.br\n", usage(*sub));
  out += "\\fBshimctl\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n";
  out += description;
  out += ".SH COMMANDS\nEvery command accepts \\fB\\-h\\fR, \\fB\\-\\-help\\fR.\n";
  for (const auto* sub : visible_subcommands(app))
    describe_command(*sub, out);
  out += ".SH OPTIONS\n";
  for (const auto* opt : app.get_options())
    if (!opt->get_group().empty())
      out += fmt::format(".TP\n{}\n{}\n", option_heading(*opt), roff(opt->get_description()));
  out += tail;
  out += ".SH EXIT STATUS\n";
  for (const auto& c : exit_codes_for(""))
    out += fmt::format(".TP\n{}\n{}\n", c.code, roff(c.meaning));
  out += ".PP\n\\fBmeasure\\fR exits with the build command's own exit code; \\fBcheck\\-build\\fR "
         "exits 1 when some compiles bypass the cache.\n";
  out += diagnostics;
  out += ".SH EXAMPLES\n.nf\n";
  for (const auto& e : examples_for(""))
    out += fmt::format("{}    # {}\n", roff(e.command), roff(e.comment));
  out += ".fi\n.SH SEE ALSO\n\\fBccache\\fR(1), \\fBsccache\\fR(1), \\fBdpkg\\-divert\\fR(1)\n";
  return out;
}

} // namespace shimctl::cli
