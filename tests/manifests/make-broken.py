#!/usr/bin/python3
"""Generate the broken-manifest corpus from a real manifest.

Usage:
  make-broken.py base PREFIX MANIFEST > tests/manifests/valid/base.json
      Turn a manifest written by `shimctl install PREFIX` into the template: the prefix
      becomes @PREFIX@.
  make-broken.py broken BASE OUTDIR
      Write OUTDIR/<name>.json, one structurally invalid manifest per case (truncated, not
      JSON, wrong schema version, wrong types, paths leaving the prefix, bad hash formats,
      duplicates, ...). Each must be refused by the reader (exit 5, nothing changed). The
      files keep @PREFIX@; the test substitutes the prefix it installed.
  make-broken.py lying MANIFEST OUTDIR
      Write OUTDIR/<name>.json from an installed prefix's real manifest: manifests that parse
      but lie (hashes that do not match, a compiler reached through a symlink named
      `escape`, which the test points outside the prefix). Generated at test time because
      they need the real hashes.
"""
import copy
import json
import os
import sys

ZERO = "0" * 64


def dump(doc):
    return json.dumps(doc, indent=2) + "\n"


def first(doc):
    return doc["compilers"][0]


def mutate(base, fn):
    doc = copy.deepcopy(base)
    fn(doc)
    return dump(doc)


def delete(key):
    return lambda d: d.pop(key)


def setter(path, value):
    """path: keys/indices from the root, e.g. ("compilers", 0, "path")."""
    def fn(doc):
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return fn


def broken_cases(base_text):
    base = json.loads(base_text)
    c0 = first(base)
    cases = {}
    # Not a manifest at all.
    cases["empty"] = ""
    cases["whitespace-only"] = " \n\t\n"
    cases["not-json"] = "this is not a manifest\n"
    cases["binary-garbage"] = "".join(chr(c) for c in range(1, 128)) * 3
    cases["truncated-half"] = base_text[: len(base_text) // 2]
    cases["truncated-last-brace"] = base_text.rstrip()[:-1]
    cases["json-array"] = "[]\n"
    cases["json-null"] = "null\n"
    cases["json-string"] = '"manifest"\n'
    cases["deeply-nested"] = '{"schema_version": 1, "x": ' + "[" * 20000 + "]" * 20000 + "}\n"
    cases["trailing-garbage"] = base_text + "}\n"
    # Schema version.
    cases["schema-version-2"] = mutate(base, setter(("schema_version",), 2))
    cases["schema-version-0"] = mutate(base, setter(("schema_version",), 0))
    cases["schema-version-string"] = mutate(base, setter(("schema_version",), "1"))
    cases["schema-version-negative"] = mutate(base, setter(("schema_version",), -1))
    cases["schema-version-float"] = mutate(base, setter(("schema_version",), 1.5))
    cases["schema-version-huge"] = dump(base).replace(
        '"schema_version": 1', '"schema_version": 18446744073709551617', 1)
    cases["schema-version-wraps-to-1"] = dump(base).replace(
        '"schema_version": 1', '"schema_version": 4294967297', 1)
    cases["missing-schema-version"] = mutate(base, delete("schema_version"))
    # Missing or mistyped top-level fields.
    for key in ("prefix", "cache", "shim", "fingerprint", "compilers", "created_files", "layout",
                "created", "shimctl_version"):
        cases[f"missing-{key.replace('_', '-')}"] = mutate(base, delete(key))
    cases["prefix-number"] = mutate(base, setter(("prefix",), 7))
    cases["prefix-mismatch"] = mutate(base, setter(("prefix",), "/opt/rocm"))
    cases["prefix-with-dot"] = mutate(base, setter(("prefix",), "@PREFIX@/./"))
    cases["prefix-trailing-slash"] = mutate(base, setter(("prefix",), "@PREFIX@/"))
    cases["cache-not-object"] = mutate(base, setter(("cache",), "ccache"))
    cases["cache-kind-unknown"] = mutate(base, setter(("cache", "kind"), "distcc"))
    cases["cache-path-relative"] = mutate(base, setter(("cache", "path"), "usr/bin/ccache"))
    cases["cache-dir-relative"] = mutate(base, setter(("cache", "dir"), "cache"))
    cases["cache-dir-newline-injection"] = mutate(
        base, setter(("cache", "dir"), "/tmp/c\nsetenv LD_PRELOAD=/tmp/evil.so"))
    cases["cache-remote-read-only-string"] = mutate(base, setter(("cache", "remote_read_only"), "no"))
    cases["cache-remote-secret-string"] = mutate(base, setter(("cache", "remote_secret"), "yes"))
    cases["cache-remote-secret-without-remote"] = mutate(base, setter(("cache", "remote_secret"), True))
    cases["cache-secret-id-not-hex"] = mutate(base, setter(("cache", "secret_id"), "0123456789ABCDEF"))
    cases["cache-base-dirs-not-array"] = mutate(base, setter(("cache", "base_dirs"), "/srv/deps"))
    cases["cache-base-dirs-relative"] = mutate(base, setter(("cache", "base_dirs"), ["deps"]))
    cases["cache-base-dirs-colon"] = mutate(base, setter(("cache", "base_dirs"), ["/a:/b"]))
    cases["cache-base-dirs-five"] = mutate(
        base, setter(("cache", "base_dirs"), ["/a", "/b", "/c", "/d", "/e"]))
    cases["cache-base-dirs-newline-injection"] = mutate(
        base, setter(("cache", "base_dirs"), ["/srv/deps\nsetenv LD_PRELOAD=/tmp/evil.so"]))
    cases["version-newline-injection"] = mutate(
        base, setter(("shimctl_version",), "0.1\ncache /tmp/evil"))
    cases["shim-not-object"] = mutate(base, setter(("shim",), []))
    cases["shim-sha-not-hex"] = mutate(base, setter(("shim", "sha256"), "z" * 64))
    cases["shim-size-negative"] = mutate(base, setter(("shim", "size"), -800000))
    cases["shim-size-float"] = mutate(base, setter(("shim", "size"), 8.5e5))
    cases["shim-size-string"] = mutate(base, setter(("shim", "size"), "800000"))
    cases["fingerprint-sha-short"] = mutate(base, setter(("fingerprint", "sha256"), "abc123"))
    cases["fingerprint-inputs-not-array"] = mutate(base, setter(("fingerprint", "inputs"), {}))
    cases["fingerprint-input-dotdot"] = mutate(
        base, setter(("fingerprint", "inputs"), [{"path": "../../etc/passwd", "sha256": ZERO, "size": 1}]))
    cases["fingerprint-input-size-huge"] = mutate(
        base, setter(("fingerprint", "inputs"), [{"path": "bin/hipcc", "sha256": ZERO, "size": 1e30}]))
    # Compilers.
    cases["compilers-empty"] = mutate(base, setter(("compilers",), []))
    cases["compilers-object"] = mutate(base, setter(("compilers",), {"clang": c0}))
    cases["compiler-not-object"] = mutate(base, setter(("compilers", 0), "llvm/bin/clang"))
    cases["compiler-path-number"] = mutate(base, setter(("compilers", 0, "path"), 42))
    cases["compiler-path-null"] = mutate(base, setter(("compilers", 0, "path"), None))
    dotdot = "../outside/bin/clang"
    cases["compiler-path-dotdot"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), dotdot)(d),
                         setter(("compilers", 0, "real"), dotdot + ".real")(d)))
    inner = "llvm/bin/../../../outside/clang"
    cases["compiler-path-inner-dotdot"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), inner)(d),
                         setter(("compilers", 0, "real"), inner + ".real")(d)))
    cases["compiler-path-absolute"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "/usr/bin/clang")(d),
                         setter(("compilers", 0, "real"), "/usr/bin/clang.real")(d)))
    cases["compiler-path-dot-component"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "llvm/./bin/clang")(d),
                         setter(("compilers", 0, "real"), "llvm/./bin/clang.real")(d)))
    cases["compiler-path-double-slash"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "llvm//bin/clang")(d),
                         setter(("compilers", 0, "real"), "llvm//bin/clang.real")(d)))
    cases["compiler-path-nul"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "llvm/bin/cl\0ang")(d),
                         setter(("compilers", 0, "real"), "llvm/bin/cl\0ang.real")(d)))
    cases["compiler-path-newline"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "llvm/bin/clang\ncache /tmp/x")(d),
                         setter(("compilers", 0, "real"), "llvm/bin/clang\ncache /tmp/x.real")(d)))
    cases["compiler-path-in-state-dir"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), ".shimctl/lock")(d),
                         setter(("compilers", 0, "real"), ".shimctl/lock.real")(d)))
    cases["compiler-path-is-a-real"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), c0["path"] + ".real")(d),
                         setter(("compilers", 0, "real"), c0["path"] + ".real.real")(d)))
    cases["compiler-path-is-shim-config"] = mutate(
        base, lambda d: (setter(("compilers", 0, "path"), "llvm/bin/.shimctl.conf")(d),
                         setter(("compilers", 0, "real"), "llvm/bin/.shimctl.conf.real")(d)))
    cases["compiler-real-other-directory"] = mutate(
        base, setter(("compilers", 0, "real"), "bin/" + os.path.basename(c0["path"]) + ".real"))
    cases["compiler-real-other-suffix"] = mutate(base, setter(("compilers", 0, "real"), c0["path"] + ".orig"))
    cases["compiler-real-is-path"] = mutate(base, setter(("compilers", 0, "real"), c0["path"]))
    cases["compiler-real-absolute"] = mutate(base, setter(("compilers", 0, "real"), "/tmp/clang.real"))
    cases["compiler-duplicate"] = mutate(base, lambda d: d["compilers"].append(copy.deepcopy(c0)))
    cases["compiler-name-handling-unknown"] = mutate(base, setter(("compilers", 0, "name_handling"), "magic"))
    cases["compiler-verify-unknown"] = mutate(base, setter(("compilers", 0, "verify"), "fortran"))
    cases["compiler-missing-original"] = mutate(base, lambda d: first(d).pop("original"))
    cases["original-not-object"] = mutate(base, setter(("compilers", 0, "original"), ZERO))
    cases["original-kind-symlink"] = mutate(base, setter(("compilers", 0, "original", "kind"), "symlink"))
    cases["original-sha-uppercase"] = mutate(
        base, setter(("compilers", 0, "original", "sha256"), c0["original"]["sha256"].upper()))
    cases["original-sha-short"] = mutate(
        base, setter(("compilers", 0, "original", "sha256"), c0["original"]["sha256"][:63]))
    cases["original-sha-number"] = mutate(base, setter(("compilers", 0, "original", "sha256"), 12345))
    cases["original-size-negative"] = mutate(base, setter(("compilers", 0, "original", "size"), -1))
    cases["original-mode-huge"] = mutate(base, setter(("compilers", 0, "original", "mode"), 0o170755))
    cases["original-mode-string"] = mutate(base, setter(("compilers", 0, "original", "mode"), "0755"))
    cases["original-uid-string"] = mutate(base, setter(("compilers", 0, "original", "uid"), "root"))
    cases["original-uid-minus-one"] = mutate(base, setter(("compilers", 0, "original", "uid"), 4294967295))
    cases["original-gid-negative"] = mutate(base, setter(("compilers", 0, "original", "gid"), -5))
    cases["aliases-not-array"] = mutate(base, setter(("compilers", 0, "aliases"), "clang++"))
    cases["alias-path-dotdot"] = mutate(
        base, setter(("compilers", 0, "aliases"), [{"path": "../x/clang++", "target": "clang"}]))
    cases["alias-target-newline"] = mutate(
        base, setter(("compilers", 0, "aliases"), [{"path": "llvm/bin/cc", "target": "clang\nx"}]))
    cases["job-lists-dotdot"] = mutate(base, setter(("compilers", 0, "job_lists"), {"../clang": "x"}))
    cases["job-lists-array"] = mutate(base, setter(("compilers", 0, "job_lists"), ["x"]))
    # Created files: rollback deletes them.
    cases["created-files-not-array"] = mutate(base, setter(("created_files",), "llvm/bin/.shimctl.conf"))
    cases["created-files-dotdot"] = mutate(base, setter(("created_files",), ["../../etc/passwd"]))
    cases["created-files-absolute"] = mutate(base, setter(("created_files",), ["/etc/passwd"]))
    cases["created-files-names-original"] = mutate(
        base, setter(("created_files",), [c0["real"]]))
    cases["created-files-names-compiler"] = mutate(
        base, lambda d: d["created_files"].append(c0["path"]))
    cases["created-files-other-directory"] = mutate(
        base, setter(("created_files",), ["include/.shimctl.conf"]))
    cases["created-files-duplicate"] = mutate(
        base, lambda d: d["created_files"].append(d["created_files"][0]))
    return cases


def lying_cases(manifest_text):
    real = json.loads(manifest_text)
    c0 = first(real)
    cases = {}
    cases["lie-original-sha"] = mutate(real, setter(("compilers", 0, "original", "sha256"), ZERO))
    cases["lie-shim-sha"] = mutate(real, setter(("shim", "sha256"), ZERO))
    cases["lie-shim-size"] = mutate(real, setter(("shim", "size"), 12))
    name = os.path.basename(c0["path"])
    escaped = f"escape/{name}"
    def through_symlink(d):
        first(d)["path"] = escaped
        first(d)["real"] = escaped + ".real"
        d["created_files"] = ["escape/.shimctl.conf"]
    cases["lie-path-through-symlink"] = mutate(real, through_symlink)
    def real_through_symlink(d):
        first(d)["path"] = f"escape/sub/{name}"
        first(d)["real"] = f"escape/sub/{name}.real"
        d["created_files"] = ["escape/sub/.shimctl.conf"]
    cases["lie-nested-path-through-symlink"] = mutate(real, real_through_symlink)
    return cases


def write_all(cases, outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, text in sorted(cases.items()):
        with open(os.path.join(outdir, name + ".json"), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(text)
    print(f"{len(cases)} manifests in {outdir}", file=sys.stderr)


def main(argv):
    if len(argv) == 4 and argv[1] == "base":
        prefix, manifest = argv[2], argv[3]
        with open(manifest, encoding="utf-8") as f:
            doc = json.loads(f.read().replace(prefix, "@PREFIX@"))
        # Keep the corpus small: each compiler's job list for its own path only.
        for c in doc["compilers"]:
            c["job_lists"] = {k: v for k, v in c["job_lists"].items() if k == c["path"]}
        sys.stdout.write(dump(doc))
        return 0
    if len(argv) == 4 and argv[1] == "broken":
        with open(argv[2], encoding="utf-8") as f:
            write_all(broken_cases(f.read()), argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "lying":
        with open(argv[2], encoding="utf-8") as f:
            write_all(lying_cases(f.read()), argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
