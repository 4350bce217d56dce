#!/usr/bin/env python3
"""build-debian-fixes.py: an out-of-sample code set from Debian's backported fix patches.

The dev sets (../shared/bench) draw on ten repositories, and their held-out split on the same
ones. This builds a third set from projects none of them covers: the patches Debian applies to
its source packages, by default the Python, Go and JavaScript ones (--langs adds Rust, Java,
Ruby, PHP, C, C++, C# and shell: the grammars no dev case covers). A DEP-3 patch has a
description ("Fix nil pointer dereference in …", "CVE-2024-36039: forbid dict parameter") and
a diff, which is what a fix commit has, so each patch is replayed as a git commit over the
upstream tarball and mined by `pruner bench build-commits`: goal = the patch description, text
= the file before the patch, gold = the lines it removed or modified (the rule of
../shared/bench/README.md).

Steps (everything under --work; nothing is written into the repository):
  1. dists/<suite>/main/source/Sources.xz of each --suite: source packages in 3.0 (quilt)
     format whose Build-Depends mark one of --langs (LANGS: dh-python/python3-all,
     golang-go/dh-golang, pkg-js-tools/nodejs, dh-cargo, javahelper/maven…, gem2deb,
     pkg-php-tools; C, C++, C# and shell are read from packages no marker claims), minus the
     dev sets' own repositories (--skip).
  2. Their debian.tar.xz: patches in series order. A patch is a case source when its
     description looks like a fix (fix, bug, crash, CVE-…, error, fail, leak, overflow, …;
     not packaging: "debian", "lintian", "disable test"…) and it changes a code file of the
     package's language outside tests, specs, docs, examples, setup.py and conf.py. Its
     description, the goal, loses DEP-3 fields (Forwarded:, Bug:, Origin:…) and diffstat
     lines, which would otherwise name the file.
  3. The files the series names, unpacked from the upstream .orig tarball (at most
     --max-orig-mb) into a git repository; every patch of the series applied in order
     (`patch -p1`), one commit each, with the description as the message for case sources
     and "." for the rest.
  4. `pruner bench build-commits --grep '\\w{3}'` on that repository; cases kept when the file
     is code outside tests (as above), has 30+ lines and gold; a patch two suites' versions
     share counted once; at most --per-package cases per package, so one package cannot
     dominate.

Needs network (the Debian mirror) through Python's urllib, plus tar, xz, patch and git.
This is a development tool, like scripts/install-onnxruntime.sh; pruner itself never touches
the network. What a mirror serves varies: on the project's build machine it answered for
about 12% of the package versions' debian tarballs in bookworm and trixie (404 for the rest).
The default languages take about 3 minutes (404 cases from 148 packages on 2026-11-26); the
other eight about 10 (3,707 cases from 1,069 packages). Each case's dataset names its
language (debian-fix-python, debian-fix-c …; a .h file counts as c), so the bench reports
each language on rows of its own. Figures: scorers/structural/RESULTS.md (twenty-fifth and
twenty-eighth rounds).

Usage:
  go build -o /tmp/pruner ./cmd/pruner
  scripts/build-debian-fixes.py --pruner /tmp/pruner --out /tmp/debian-fixes.jsonl.gz
  scripts/build-debian-fixes.py --pruner /tmp/pruner --out /tmp/debian-other.jsonl.gz \
      --langs rust,java,ruby,php,c,cpp,csharp,shell
  /tmp/pruner bench --data /tmp/debian-fixes.jsonl.gz --data /tmp/debian-other.jsonl.gz \
      --scorers heuristic,structural,bm25,oracle --modes budget --budgets 0.1,0.2,0.3 \
      --compare heuristic,structural
"""
import argparse
import concurrent.futures
import functools
import gzip
import json
import lzma
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

# Languages: the Build-Depends that mark a source package as written in it (None: any package
# no marked language claims, as C, C++ and shell packages carry no marker of their own) and the
# file endings of its code. The first three are the twenty-fifth round's set (the default); the
# rest are the grammars no dev case covers.
LANGS = {
    "go": (("golang-go", "dh-golang"), (".go",)),
    "python": (("dh-python", "python3-all"), (".py",)),
    "javascript": (("pkg-js-tools", "nodejs"), (".js", ".ts", ".mjs", ".cjs", ".tsx", ".jsx")),
    "rust": (("dh-cargo", "cargo"), (".rs",)),
    "java": (("default-jdk", "javahelper", "maven-debian-helper", "gradle-debian-helper"), (".java",)),
    "ruby": (("gem2deb",), (".rb",)),
    "php": (("pkg-php-tools", "dh-php"), (".php",)),
    "c": (None, (".c", ".h")),
    "cpp": (None, (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx")),
    "csharp": (None, (".cs",)),
    "shell": (None, (".sh", ".bash")),
}
DEFAULT_LANGS = "python,go,javascript"
NOT_CODE = re.compile(
    r"(^|/)(tests?|testing|testdata|docs?|examples?|spec)/|_test\.(go|py)$|(^|/)test_[^/]*\.py$"
    r"|_spec\.rb$|Tests?\.(java|cs)$"
    r"|\.test\.[jt]s$|(^|/)setup\.py$|(^|/)conf\.py$", re.I)
FIX = re.compile(
    r"\b(fix(es|ed)?|bug|crash|CVE-\d+|error|fail(s|ed|ure)?|incorrect|wrong|broken|regression"
    r"|segfault|exception|leak|overflow|avoid|handle|prevent)\b", re.I)
PACKAGING = re.compile(r"\b(debian|packag|lintian|sphinx|intersphinx|privacy|disable (the )?test|skip)\w*", re.I)
DEP3_FIELD = re.compile(
    r"^\s*(Forwarded|Bug(-[A-Za-z]+)?|Origin|Last-Update|Author|From|Applied-Upstream|Reviewed-by"
    r"|Signed-off-by|Acked-by|Date|Index|Backport|Cherry-picked|Change-Id|Co-authored-by|Closes"
    r"|Upstream-Status|Debian-Bug|Reported-by|Tested-by)\s*:.*$", re.I)
# git format-patch's summary: the diffstat, and the lines that name created, deleted and renamed
# files ("create mode 100644 src/x.c"), which would hand the goal the file's path.
DIFFSTAT = re.compile(r"^\s*\S+\s+\|\s+\d+\s*[+-]*\s*$|^\s*\d+ files? changed"
                      r"|^\s*(create|delete) mode \d+ |^\s*(rename|copy) \S.* \(\d+%\)\s*$"
                      r"|^\s*mode change \d+ => \d+ ")
# Debian's source packages of the repositories ../shared/bench draws on (swe-bench: pytest,
# xarray, requests, seaborn, flask, astropy; commits: caddy, express, cobra; jeeves is not in
# Debian).
DEV_PACKAGES = "pytest,python-xarray,requests,seaborn,flask,astropy,caddy,node-express,golang-github-spf13-cobra"
GIT_ENV = dict(os.environ, GIT_AUTHOR_DATE="2020-01-01T00:00:00Z", GIT_COMMITTER_DATE="2020-01-01T00:00:00Z",
               GIT_AUTHOR_NAME="debian-fixes", GIT_AUTHOR_EMAIL="debian-fixes@localhost",
               GIT_COMMITTER_NAME="debian-fixes", GIT_COMMITTER_EMAIL="debian-fixes@localhost")


def log(*a):
    print("build-debian-fixes:", *a, file=sys.stderr, flush=True)


# The mirror's name is looked up once: tens of thousands of downloads, most of them 404s, made
# the resolver fail lookups ("Temporary failure in name resolution") and spent most of the
# run's time on them. A failed lookup is not cached (lru_cache keeps only answers).
socket.getaddrinfo = functools.lru_cache(maxsize=64)(socket.getaddrinfo)


def fetch(url, dest):
    """Download url to dest unless it is there; False on 404 and other HTTP errors. A refusal
    is remembered in dest.failed, so a re-run skips it; delete those files to ask again. A
    failure to connect (the resolver or the mirror busy under many parallel downloads) is
    tried again, and not remembered: it says nothing of the file."""
    if os.path.exists(dest):
        return True
    if os.path.exists(dest + ".failed"):
        return False
    for attempt in range(5):
        try:
            with urllib.request.urlopen(url, timeout=120) as r, open(dest + ".part", "wb") as f:
                shutil.copyfileobj(r, f)
            os.replace(dest + ".part", dest)
            return True
        except urllib.error.HTTPError as e:
            with open(dest + ".failed", "w") as f:
                f.write(f"{url}: {e}\n")
            return False
        except (urllib.error.URLError, OSError) as e:
            err = e
            time.sleep(0.5 * 2 ** attempt)
    log(f"{url}: {err} (not remembered; a re-run asks again)")
    return False


def stanzas(text):
    for block in text.split("\n\n"):
        d, key = {}, None
        for line in block.split("\n"):
            if line.startswith(" ") and key:
                d[key] += "\n" + line
            elif ":" in line:
                key, v = line.split(":", 1)
                d[key] = v.strip()
        if "Package" in d:
            yield d


def language(build_depends):
    """The marked language of a source package, "" for one no marker claims."""
    for name, (markers, _) in LANGS.items():
        if markers and any(m in build_depends for m in markers):
            return name
    return ""


def language_of(path):
    """The LANGS name of a case's file, by its ending ("c" for a .h file: C or C++)."""
    return next(name for name, (_, exts) in LANGS.items() if path.endswith(exts))


def code_ext(langs, lang):
    """The file endings that make a patch to a package of language lang a case source."""
    if lang:
        return LANGS[lang][1] if lang in langs else ()
    return tuple(e for l in langs if LANGS[l][0] is None for e in LANGS[l][1])


def packages(args):
    """Source packages of every suite named; a version two suites share is listed once."""
    out, seen = [], set()
    for suite in args.suite.split(","):
        path = os.path.join(args.work, f"Sources-{suite}.xz")
        if not fetch(f"{args.mirror}/dists/{suite}/main/source/Sources.xz", path):
            sys.exit(f"build-debian-fixes: cannot fetch {suite}'s Sources.xz from {args.mirror}")
        for d in stanzas(lzma.open(path, "rt", encoding="utf-8", errors="replace").read()):
            if "quilt" not in d.get("Format", ""):
                continue
            exts = code_ext(args.langs, language(d.get("Build-Depends", "")))
            if not exts:
                continue
            files = [f.split() for f in d.get("Files", "").split("\n") if f.strip()]
            deb = [f for f in files if f[2].endswith(".debian.tar.xz")]
            orig = [f for f in files if ".orig.tar." in f[2] and not f[2].endswith(".asc")]
            if deb and orig and deb[0][2] not in seen:
                seen.add(deb[0][2])
                out.append(dict(pkg=d["Package"], dir=d["Directory"], deb=deb[0][2], orig=orig[0][2],
                                orig_bytes=int(orig[0][1]), exts=exts))
    return out


def description(patch):
    """The DEP-3 Description (or a git format-patch Subject and body) of a patch."""
    fields, key, body, in_body = {}, None, [], False
    for line in patch.split("\n"):
        if line.startswith(("--- ", "diff ", "Index: ", "===")):
            break
        m = re.match(r"^([A-Za-z][A-Za-z-]*):\s?(.*)$", line)
        if m and not in_body:
            key = m.group(1).lower()
            fields[key] = m.group(2)
        elif key and line.startswith((" ", "\t")) and not in_body:
            v = line.strip()
            fields[key] += "\n" + ("" if v == "." else v)
        elif line.strip() == "" and fields:
            in_body, key = True, None
        elif in_body:
            body.append(line)
    d = re.sub(r"^\[PATCH[^\]]*\]\s*", "", (fields.get("description") or fields.get("subject") or "").strip())
    if "subject" in fields and not fields.get("description"):
        d += "\n\n" + "\n".join(b for b in body if not b.startswith("---"))
    lines = [l for l in d.split("\n") if not DEP3_FIELD.match(l) and not DIFFSTAT.match(l)]
    return "\n".join(lines).strip()


def fix_patches(debtar, exts):
    """The series' patches in order, as (name, bytes), and the descriptions of those that are
    case sources, by name."""
    with tarfile.open(debtar) as tf:
        try:
            series = tf.extractfile("debian/patches/series").read().decode("utf-8", "replace")
        except KeyError:
            return [], {}
        patches = []
        for name in [l.split()[0] for l in series.split("\n") if l.strip() and not l.startswith("#")]:
            try:
                patches.append((name, tf.extractfile("debian/patches/" + name).read()))
            except (KeyError, AttributeError):
                continue
    fixes = {}
    for name, body in patches:
        text = body.decode("utf-8", "replace")
        desc = description(text)
        touched = [p for p in re.findall(r"^\+\+\+ (\S+)", text, re.M) if p != "/dev/null"]
        code = [p for p in touched if p.endswith(exts) and not NOT_CODE.search(p)]
        first = desc.split("\n", 1)[0]
        if code and len(desc) >= 20 and FIX.search(desc) and not PACKAGING.search(first):
            fixes[name] = desc
    return patches, fixes


def touched(patches):
    """The paths, as `patch -p1` reads them, of every file the series' patches name."""
    need = set()
    for _, body in patches:
        for m in re.finditer(rb"^(?:---|\+\+\+) (\S+)", body, re.M):
            path = m.group(1).decode("utf-8", "replace")
            parts = path.split("/", 1)
            if path != "/dev/null" and len(parts) == 2 and parts[1]:
                need.add(parts[1])
    return need


def replay(args, p, patches, fixes):
    """The upstream files the series names, plus each patch as a commit; returns the
    repository's path or None. Only those files are unpacked: the cases are files a patch
    modifies, and a whole C project's tree made `git add` most of the run."""
    w = os.path.join(args.work, "trees", p["deb"])
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    need = sorted(touched(patches))
    # Upstream tarballs hold one top directory (pkg-1.0/) or none; no wildcard crosses a '/'.
    globs = [g for n in need for g in ("*/" + glob_escape(n), glob_escape(n))]
    listing = w + ".members"
    with open(listing, "w", encoding="utf-8") as f:
        f.write("\n".join(globs) + "\n")
    # tar exits 2 when a name matches nothing (a file a patch creates): judged by what it unpacked.
    subprocess.run(["tar", "--no-same-owner", "-xf", os.path.join(args.work, "orig", p["orig"]), "-C", w,
                    "--wildcards", "--no-wildcards-match-slash", "-T", listing], capture_output=True)
    os.remove(listing)
    root = None
    for n in need:
        if os.path.isfile(os.path.join(w, n)):
            root = w
            break
        tops = [d for d in os.listdir(w) if os.path.isfile(os.path.join(w, d, n))]
        if tops:
            root = os.path.join(w, tops[0])
            break
    if root is None:
        return None
    git = lambda *a: subprocess.run(["git", "-c", "safe.directory=*", *a], cwd=root, env=GIT_ENV, capture_output=True)
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", ".", "--no-verify")
    for name, body in patches:
        ok = subprocess.run(["patch", "-p1", "-N", "-s", "-f", "--no-backup-if-mismatch", "-r", "-"],
                            cwd=root, input=body, capture_output=True).returncode == 0
        git("add", "-A")
        git("commit", "-qm", fixes[name] if ok and name in fixes else ".", "--allow-empty", "--no-verify")
    return root


def glob_escape(name):
    """name as a tar --wildcards pattern that matches only itself."""
    return re.sub(r"([*?\[\\])", r"\\\1", name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pruner", required=True, help="a built pruner binary (go build -o /tmp/pruner ./cmd/pruner)")
    ap.add_argument("--out", required=True, help="case file to write (.jsonl.gz)")
    ap.add_argument("--work", default="/tmp/debian-fixes", help="download and scratch directory (default %(default)s)")
    ap.add_argument("--mirror", default="http://deb.debian.org/debian", help="Debian mirror (default %(default)s)")
    ap.add_argument("--suite", default="bookworm,trixie", help="Debian suites, comma-separated (default %(default)s)")
    ap.add_argument("--max-orig-mb", type=float, default=60, help="skip upstream tarballs larger than this (default %(default)s)")
    ap.add_argument("--per-package", type=int, default=8, help="cases kept per package, in file order (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=12, help="parallel downloads (default %(default)s)")
    ap.add_argument("--skip", default=DEV_PACKAGES,
                    help="source packages left out, comma-separated (default: the dev sets' own repositories, "
                         "so the set stays out of sample: %(default)s)")
    ap.add_argument("--langs", default=DEFAULT_LANGS,
                    help="languages, comma-separated, of " + ", ".join(LANGS) + " (default %(default)s); "
                         "c, cpp, csharp and shell are read from packages no other language's Build-Depends claim")
    args = ap.parse_args()
    args.langs = [l.strip() for l in args.langs.split(",") if l.strip()]
    unknown = [l for l in args.langs if l not in LANGS]
    if unknown or not args.langs:
        sys.exit(f"build-debian-fixes: --langs: unknown {', '.join(unknown) or '(none given)'}; known: {', '.join(LANGS)}")
    if not (os.path.isfile(args.pruner) and os.access(args.pruner, os.X_OK)):
        sys.exit(f"build-debian-fixes: --pruner {args.pruner} is not an executable; build it first: "
                 "go build -o /tmp/pruner ./cmd/pruner")
    for d in ("debs", "orig", "trees", "cases"):
        os.makedirs(os.path.join(args.work, d), exist_ok=True)

    skip = set(args.skip.split(","))
    pkgs = [p for p in packages(args) if p["pkg"] not in skip]
    log(len(pkgs), "source package versions in", args.suite, "for", ",".join(args.langs))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        got = list(ex.map(lambda p: fetch(f"{args.mirror}/{p['dir']}/{p['deb']}",
                                          os.path.join(args.work, "debs", p["deb"])), pkgs))
    pkgs = [p for p, ok in zip(pkgs, got) if ok]
    log(len(pkgs), "debian tarballs fetched (the mirror answered the rest with an error)")

    chosen = []
    for p in pkgs:
        try:
            patches, fixes = fix_patches(os.path.join(args.work, "debs", p["deb"]), p["exts"])
        except (tarfile.TarError, OSError, EOFError):
            continue
        if fixes and p["orig_bytes"] <= args.max_orig_mb * 1e6:
            chosen.append((p, patches, fixes))
    log(sum(len(c[2]) for c in chosen), "fix patches to code in", len(chosen), "packages")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        got = list(ex.map(lambda c: fetch(f"{args.mirror}/{c[0]['dir']}/{c[0]['orig']}",
                                          os.path.join(args.work, "orig", c[0]["orig"])), chosen))
    chosen = [c for c, ok in zip(chosen, got) if ok]
    log(len(chosen), "upstream tarballs fetched")

    def mine(c):
        """Replay one package and mine its fixes; the case file's path, or None."""
        p, patches, fixes = c
        root = replay(args, p, patches, fixes)
        if root is None:
            return None
        mined = os.path.join(args.work, "cases", p["deb"] + ".jsonl")
        r = subprocess.run([args.pruner, "bench", "build-commits", "--repo", root, "--out", mined, "--grep", r"\w{3}"],
                           capture_output=True, text=True, env=dict(os.environ, GIT_CONFIG_COUNT="1",
                                                                    GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*"))
        shutil.rmtree(os.path.join(args.work, "trees", p["deb"]), ignore_errors=True)
        if r.returncode:
            log(p["pkg"] + ":", r.stderr.strip()[:200])
            return None
        return mined

    # Replays run in parallel (git and patch are most of it); cases are then taken in package
    # order, so the file is the same whatever finished first.
    chosen.sort(key=lambda c: c[0]["deb"])
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        mined_files = list(ex.map(mine, chosen))
    cases, kept, seen = [], {}, set()
    for (p, _, _), mined in zip(chosen, mined_files):
        if mined is None:
            continue
        for line in open(mined, encoding="utf-8"):
            c = json.loads(line)
            if kept.get(p["pkg"], 0) >= args.per_package or not c["path"].endswith(p["exts"]) or NOT_CODE.search(c["path"]):
                continue
            if not c["gold_lines"] or c["text"].count("\n") < 30:
                continue
            key = (p["pkg"], c["path"], c["goal_hint"])  # the same patch in two suites' versions
            if key in seen:
                continue
            seen.add(key)
            c["id"] = "debian/" + p["pkg"] + "/" + c["id"]
            c["dataset"] = "debian-fix-" + language_of(c["path"])
            c.setdefault("meta", {})["debian_package"] = p["pkg"]
            cases.append(c)
            kept[p["pkg"]] = kept.get(p["pkg"], 0) + 1
    with gzip.open(args.out, "wt", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    log(len(cases), "cases from", len({c["meta"]["debian_package"] for c in cases}), "packages written to", args.out)


if __name__ == "__main__":
    main()
