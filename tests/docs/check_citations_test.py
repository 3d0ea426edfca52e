#!/usr/bin/env python3
"""//tests/docs:citations_test: the repository's citations hold (check_citations.py), and the check
fails where one does not.

1. The files of every package (the test's data, at their repository paths in the runfiles) have no
   problem.
2. A copy of them with three planted mistakes (a section loader/DESIGN.md does not have, a file
   that does not exist, loader/DESIGN.md grown past 300 lines) makes check_citations.py exit 1
   and name each one with its file and line.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import check_citations

HERE = os.path.dirname(os.path.abspath(__file__))


def repository_root():
    return os.path.join(os.environ['TEST_SRCDIR'], os.environ['TEST_WORKSPACE'])


def fail(message):
    print('FAIL: ' + message)
    sys.exit(1)


def append(path, text):
    """Appends `text` to a copy's file (a real file there, never the source) and returns the line
    number of its first line."""
    with open(path) as f:
        lines = len(f.read().splitlines())
    with open(path, 'a') as f:
        f.write(text)
    return lines + 1


def test_repository(root):
    paths = check_citations.walk(root)
    for needed in ['README.md', 'loader/DESIGN.md', 'loader/core.h', 'tools/README.md',
                   'tests/gpu/RESULTS.md', 'bench/RESULTS.md', 'tests/RESULTS.md']:
        if needed not in paths:
            fail('%s is not among the test\'s inputs (%d files): is its package\'s :all_files '
                 'in tests/source_files.bzl?' % (needed, len(paths)))
    problems = check_citations.check(root, paths)
    for p in problems:
        print(p)
    if problems:
        fail('%d citation problem(s) in the repository (above)' % len(problems))
    print('ok: %d files, every citation names an existing file and section' % len(paths))
    return paths


def test_planted_mistakes(root, paths):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'repo')
        for path in paths:
            os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
            shutil.copyfile(os.path.join(root, path), os.path.join(copy, path))
        # A comment citing a section DESIGN.md does not have, over two comment lines as they wrap.
        section_line = append(os.path.join(copy, 'loader/core.h'),
                              '// planted: see loader/DESIGN.md, "A section that\n'
                              '// does not exist".\n')
        # A BUILD comment citing a file that does not exist.
        file_line = append(os.path.join(copy, 'tools/BUILD'),
                           '# planted: measured in tests/nowhere/RESULTS.md.\n')
        # DESIGN.md one line past its limit.
        design = os.path.join(copy, 'loader/DESIGN.md')
        with open(design) as f:
            design_lines = len(f.read().splitlines())
        append(design, '\n' * (check_citations.MAX_DESIGN_LINES + 1 - design_lines))

        run = subprocess.run([sys.executable, os.path.join(HERE, 'check_citations.py'), copy],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        print('--- check_citations.py on a copy with three planted mistakes (exit %d):'
              % run.returncode)
        print(run.stdout, end='')
        print('---')
        expected = [
            'loader/core.h:%d: cites loader/DESIGN.md "A section that does not exist", which has '
            'no such section' % section_line,
            'tools/BUILD:%d: cites tests/nowhere/RESULTS.md, which does not exist' % file_line,
            'loader/DESIGN.md: %d lines, more than %d' % (check_citations.MAX_DESIGN_LINES + 1,
                                                         check_citations.MAX_DESIGN_LINES),
        ]
        reported = run.stdout.splitlines()
        for line in expected:
            if line not in reported:
                fail('the planted mistake was not reported as expected:\n  ' + line)
        problems = [l for l in reported if not l.startswith('check_citations:')]
        if len(problems) != len(expected):
            fail('expected exactly the %d planted problems, got %d' % (len(expected), len(problems)))
        if run.returncode != 1:
            fail('check_citations.py exited %d, not 1' % run.returncode)
    print('ok: each planted mistake reported with its file and line, exit 1')


def main():
    root = repository_root()
    paths = test_repository(root)
    test_planted_mistakes(root, paths)
    print('PASS')


if __name__ == '__main__':
    main()
