#!/usr/bin/env python3
"""hide_symbols.py on archives built here by the system's gcc and ar: what it hides (every global
and weak definition), what it leaves (locals, undefined references, non-ELF members), and what it
refuses (a truncated archive or object, not an archive, an STB_GNU_UNIQUE symbol)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "hide_symbols.py")

SOURCE = r"""
int defined_function(void) { return 1; }
int defined_data;
static int local_function(void) { return 2; }
__attribute__((weak)) int weak_function(void) { return local_function(); }
__attribute__((visibility("protected"))) int protected_function(void) { return 3; }
extern int undefined_function(void);
int calls_undefined(void) { return undefined_function(); }
"""

UNIQUE_SOURCE = r"""
inline int& counter() { static int n = 0; return n; }
int use() { return ++counter(); }
"""


def run(*argv, **kw):
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def symbols(archive):
    """{name: (bind, vis, ndx)} from readelf -sW."""
    out = {}
    # (readelf exits 1 on an archive with a member that is no object; the objects are listed.)
    for line in run("readelf", "-sW", archive).stdout.splitlines():
        f = line.split()
        if len(f) == 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            out[f[7]] = (f[4], f[5], f[6])
    return out


class HideSymbolsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def build(self, source, name, lang="c", extra=()):
        src = os.path.join(self.dir, name + "." + lang)
        with open(src, "w") as f:
            f.write(source)
        obj = os.path.join(self.dir, name + ".o")
        compiler = "gcc" if lang == "c" else "g++"
        run(compiler, "-fPIC", *extra, "-c", src, "-o", obj, check=True)
        return obj

    def archive(self, *members):
        out = os.path.join(self.dir, "lib%d.a" % len(os.listdir(self.dir)))
        run("ar", "rcsD", out, *members, check=True)
        return out

    def hide(self, archive):
        out = archive + ".hidden.a"
        return run(sys.executable, TOOL, archive, out), out

    def test_hides_every_definition_and_nothing_else(self):
        text = os.path.join(self.dir, "notes.txt")
        with open(text, "w") as f:
            f.write("not an object\n")
        archive = self.archive(self.build(SOURCE, "a"), text)
        before = symbols(archive)
        self.assertEqual(before["defined_function"][:2], ("GLOBAL", "DEFAULT"))
        result, out = self.hide(archive)
        self.assertEqual(result.returncode, 0, result.stderr)
        after = symbols(out)
        for name in ("defined_function", "defined_data", "calls_undefined"):
            self.assertEqual(after[name][:2], ("GLOBAL", "HIDDEN"), name)
        self.assertEqual(after["weak_function"][:2], ("WEAK", "HIDDEN"))
        self.assertEqual(after["protected_function"][:2], ("GLOBAL", "HIDDEN"))
        self.assertEqual(after["local_function"], before["local_function"])
        self.assertEqual(after["undefined_function"], ("GLOBAL", "DEFAULT", "UND"))
        # Same size, same members: only visibility bits changed; the non-ELF member is intact.
        self.assertEqual(os.path.getsize(out), os.path.getsize(archive))
        self.assertEqual(run("ar", "p", out, "notes.txt").stdout, "not an object\n")
        # Still links, and a shared object made from it exports none of it.
        main = self.build("extern int calls_undefined(void);\nint undefined_function(void)"
                          " { return 7; }\nint entry(void) { return calls_undefined(); }\n", "m")
        so = os.path.join(self.dir, "libm.so")
        link = run("gcc", "-shared", main, out, "-o", so)
        self.assertEqual(link.returncode, 0, link.stderr)
        exported = {line.split()[-1] for line in
                    run("nm", "-D", "--defined-only", so, check=True).stdout.splitlines()}
        self.assertIn("entry", exported)
        self.assertIn("undefined_function", exported)  # the shared object's own
        self.assertFalse(exported & {"defined_function", "defined_data", "weak_function",
                                     "protected_function", "calls_undefined"}, exported)

    def test_refuses_gnu_unique(self):
        archive = self.archive(self.build(UNIQUE_SOURCE, "u", "cc", ["-fgnu-unique"]))
        if not any(s[0] == "UNIQUE" for s in symbols(archive).values()):
            self.fail("g++ made no STB_GNU_UNIQUE symbol: the refusal is not exercised")
        result, out = self.hide(archive)
        self.assertEqual(result.returncode, 1)
        self.assertIn("STB_GNU_UNIQUE", result.stderr)
        self.assertFalse(os.path.exists(out))

    def test_refuses_what_is_not_an_archive(self):
        obj = self.build(SOURCE, "b")
        result, out = self.hide(obj)
        self.assertEqual(result.returncode, 1)
        self.assertIn("not an ar archive", result.stderr)
        self.assertFalse(os.path.exists(out))

    def test_refuses_truncated(self):
        archive = self.archive(self.build(SOURCE, "c"))
        with open(archive, "rb") as f:
            data = f.read()
        for cut in (len(data) // 2, 8 + 30):
            short = os.path.join(self.dir, "short%d.a" % cut)
            with open(short, "wb") as f:
                f.write(data[:cut])
            result, out = self.hide(short)
            self.assertEqual(result.returncode, 1, cut)
            self.assertTrue("runs past the end" in result.stderr or "bad member" in
                            result.stderr, result.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
