#!/usr/bin/env python3
"""Checks the repository's citations of its own documents.

A citation is a path ending in `.md` in any text file: in a comment, a BUILD file, a document. Rules:
  (a) the cited file exists. A path whose first component is a top-level directory of the
      repository is read from the repository root (`loader/DESIGN.md`, `tests/gpu/RESULTS.md`);
      one that starts with `../`, and a bare capitalised name (`RESULTS.md`, `README.md`), from the
      citing file's directory. Other paths (`out/summary.md`, `share/doc/cudyn/README.md`) name
      files the code writes or installs, not documents of the repository, and are not checked.
  (b) a section quoted after the path, `DESIGN.md, "X"` or `DESIGN.md "X"` (the path may be in
      backticks; the quote may continue on the next line of a comment), is the text of a markdown
      heading of that file: leading #'s, backticks and ** ignored, whitespace collapsed. A link's
      anchor (`README.md#json-schema`) is the GitHub anchor of one of its headings.
  (c) loader/DESIGN.md has at most 300 lines.
The files of tests/docs/ are not read: they quote wrong citations on purpose.

Usage:
  check_citations.py ROOT            every file under ROOT (what a Bazel test's runfiles hold)
  check_citations.py --git ROOT      the files `git ls-files` lists (the whole repository); also
                                     reports a package tests/source_files.bzl does not list
Prints one line per problem (`path:line: ...`); exit 0 when there is none, 1 when there are, 2 for
a usage error. Python 3 standard library only.
"""

import os
import re
import subprocess
import sys

DESIGN = "loader/DESIGN.md"
MAX_DESIGN_LINES = 300
NOT_READ = "tests/docs/"

# A path ending in .md that does not start inside a word, a path or a shell variable; then maybe a
# closing backtick, a link anchor, and a quoted section after a comma or whitespace.
CITATION = re.compile(
    r'(?<![A-Za-z0-9_./$-])'
    r'((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md)(?![A-Za-z0-9_])'
    r'(?:#([A-Za-z0-9_-]+))?'
    r'(?:`?(?:\s*,\s*|\s+)"([^"\n]{1,200})")?'
)
BARE_DOCUMENT = re.compile(r'^[A-Z0-9_]+\.md$')
# What starts a comment line in the code files (joined lines lose it, so a quote may go on).
COMMENT_LEADER = re.compile(r'^\s*(?://+|#+|\*+(?!/)|/\*+)?\s?')
HEADING = re.compile(r'^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^ {0,3}(```|~~~)')


def normalize(text):
    """A heading or a quoted section as compared: no backticks or **, links as their text, one
    space between words."""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = text.replace('`', '').replace('**', '')
    return ' '.join(text.split())


def anchor(heading):
    """GitHub's anchor of a heading (without the -1, -2 of repeated ones)."""
    return re.sub(r'[^\w\- ]', '', normalize(heading).lower()).replace(' ', '-')


def headings(text):
    """The headings of a markdown text, outside fenced code blocks."""
    found = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            found.append(m.group(1))
    return found


def read_text(path):
    """The file's text, or None for a binary file."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError:
        return None
    if b'\0' in data[:8192]:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def joined(text, is_markdown):
    """The lines of `text` joined by single spaces, comment leaders removed in code files, and the
    offset each line starts at (for line numbers)."""
    parts = []
    starts = []
    offset = 0
    for line in text.splitlines():
        if not is_markdown:
            line = COMMENT_LEADER.sub('', line, count=1)
        line = line.strip()
        starts.append(offset)
        parts.append(line)
        offset += len(line) + 1
    return ' '.join(parts), starts


def line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def resolve(cited, citing, files, top_dirs):
    """The repository path a citation names, or None when it is not a document of the repository
    (not checked)."""
    if cited.startswith('./'):
        cited = cited[2:]
    here = os.path.dirname(citing)
    if cited.startswith('../'):
        return os.path.normpath(os.path.join(here, cited))
    if '/' not in cited:
        return os.path.normpath(os.path.join(here, cited)) if BARE_DOCUMENT.match(cited) else None
    if cited.split('/', 1)[0] not in top_dirs:
        return None
    relative = os.path.normpath(os.path.join(here, cited))
    return relative if relative in files and cited not in files else cited


def check(root, paths):
    """Problems of the files `paths` (relative to `root`), as 'path:line: text' lines."""
    files = set(paths)
    top_dirs = {p.split('/', 1)[0] for p in files if '/' in p}
    texts = {}

    def text_of(path):
        if path not in texts:
            texts[path] = read_text(os.path.join(root, path))
        return texts[path]

    heading_cache = {}

    def headings_of(path):
        if path not in heading_cache:
            heading_cache[path] = headings(text_of(path) or '')
        return heading_cache[path]

    problems = []
    for path in sorted(files):
        if path.startswith(NOT_READ):
            continue
        text = text_of(path)
        if text is None or '.md' not in text:
            continue
        flat, starts = joined(text, path.endswith('.md'))
        for m in CITATION.finditer(flat):
            cited, fragment, section = m.group(1), m.group(2), m.group(3)
            target = resolve(cited, path, files, top_dirs)
            if target is None:
                continue
            where = '%s:%d' % (path, line_of(starts, m.start(1)))
            if target not in files:
                problems.append('%s: cites %s, which does not exist' % (where, cited))
                continue
            if section is not None:
                wanted = normalize(section)
                if wanted not in {normalize(h) for h in headings_of(target)}:
                    problems.append('%s: cites %s "%s", which has no such section'
                                    % (where, cited, section))
            if fragment is not None and fragment not in {anchor(h) for h in headings_of(target)}:
                problems.append('%s: cites %s#%s, which has no such heading' % (where, cited, fragment))
    if DESIGN in files:
        count = len((text_of(DESIGN) or '').splitlines())
        if count > MAX_DESIGN_LINES:
            problems.append('%s: %d lines, more than %d' % (DESIGN, count, MAX_DESIGN_LINES))
    return problems


def walk(root):
    """Every file under root, relative to it (symlinks followed, as in a runfiles tree)."""
    found = []
    for directory, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = [d for d in dirs if d != '.git']
        for name in names:
            full = os.path.join(directory, name)
            if os.path.isfile(full):
                found.append(os.path.relpath(full, root).replace(os.sep, '/'))
    return found


def unlisted_packages(root, paths):
    """With the whole repository in sight (--git): packages of the workspace whose :all_files
    tests/source_files.bzl does not list (their files would not be inputs of the Bazel test)."""
    build = read_text(os.path.join(root, 'tests/source_files.bzl'))
    if build is None:
        return []
    listed = set(re.findall(r'"//([^":]*):all_files"', build))
    # Not packages of this workspace: .bazelignore's directories and other workspaces (a directory
    # with a WORKSPACE file: examples/, the local_repository stand-ins in third_party/).
    other = (read_text(os.path.join(root, '.bazelignore')) or '').split()
    other += [os.path.dirname(p) for p in paths if '/' in p and os.path.basename(p) == 'WORKSPACE']
    problems = []
    for path in sorted(paths):
        package = os.path.dirname(path)
        if os.path.basename(path) not in ('BUILD', 'BUILD.bazel') or package == 'tests/docs':
            continue
        if any(package == d or package.startswith(d + '/') for d in other):
            continue
        if package not in listed:
            problems.append('tests/source_files.bzl: lists no "//%s:all_files": the Bazel test does not '
                            'read that package' % package)
    return problems


def main(argv):
    use_git = '--git' in argv
    args = [a for a in argv if a != '--git']
    if len(args) != 1 or args[0].startswith('-'):
        sys.stderr.write('usage: check_citations.py [--git] ROOT\n')
        return 2
    root = args[0]
    if use_git:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], stdout=subprocess.PIPE,
                             check=True).stdout.decode('utf-8')
        paths = [p for p in out.split('\0') if p]
    else:
        paths = walk(root)
    problems = check(root, paths)
    if use_git:
        problems += unlisted_packages(root, paths)
    for p in problems:
        print(p)
    print('check_citations: %d files, %d problem(s)' % (len(paths), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
