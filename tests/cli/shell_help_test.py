#!/usr/bin/env python3
"""Shell completion and the man page (issue 16), from the real binary:
bash completes commands, flags, a flag's choices, study files and the study
names of a real database, driven through bash's own completion variables;
zsh loads the script and binds it to `sweep`; the man page renders with no
groff warning and names every command and flag `--help` does.
Usage: shell_help_test.py SWEEP_BINARY
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SWEEP = os.path.abspath(sys.argv[1])
del sys.argv[1]
# A study name that would run a command if a completion evaluated it.
HOSTILE = "x $(touch pwned) `touch pwned`"

STUDY = """name: {name}
objective: {{metric: value, goal: minimize}}
task: {{synthetic: {{function: branin, steps: 1}}}}
algorithm: {{type: random, max_trials: 2}}
parameters:
  x1: {{type: float, min: -5, max: 10}}
  x2: {{type: float, min: 0, max: 15}}
"""


def sweep(*args, **kw):
    return subprocess.run([SWEEP, *args], capture_output=True, text=True, timeout=120, **kw)


def commands():
    """The commands `sweep --help` lists."""
    out = sweep("--help").stdout
    return re.findall(r"^  ([\w-]+)\s{2,}", out.split("Subcommands:")[1], re.M)


class BashTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="sweep-complete-")
        cls.dir = cls.tmp.name
        cls.script = os.path.join(cls.dir, "sweep.bash")
        r = sweep("completion", "bash")
        assert r.returncode == 0, r.stderr
        with open(cls.script, "w") as f:
            f.write(r.stdout)
        for name in ("lr-search", "wide", HOSTILE):
            path = os.path.join(cls.dir, "%d.yaml" % len(name))
            with open(path, "w") as f:
                f.write(STUDY.format(name=json.dumps(name)))
            r = sweep("run", path, "--db", os.path.join(cls.dir, "two.db"), "--local-runners",
                      "1", "--progress", "plain")
            assert r.returncode == 0, r.stderr
        os.mkdir(os.path.join(cls.dir, "sub"))
        open(os.path.join(cls.dir, "notes.txt"), "w").close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def complete(self, *words):
        """COMPREPLY for the command line `words`, the last one being completed."""
        words = [SWEEP] + list(words)
        quoted = " ".join("'%s'" % w for w in words)
        program = ('source "%s"\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_sweep\n'
                   'printf "%%s\\n" "${COMPREPLY[@]}"\n' % (self.script, quoted, len(words) - 1))
        r = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True,
                           cwd=self.dir, timeout=60,
                           env=dict(os.environ, SWEEP_DB="", HOME=self.dir))
        self.assertEqual(r.returncode, 0, r.stderr)
        return sorted(x for x in r.stdout.split("\n") if x)

    def test_commands(self):
        self.assertEqual(self.complete("tr"), ["trials"])
        self.assertEqual(self.complete("-v", "wa"), ["watch"])
        self.assertEqual(sorted(self.complete("")), sorted(commands() + [
            "--help", "-h", "--verbose", "-v", "--version"]))

    def test_flags_and_their_choices(self):
        self.assertEqual(self.complete("trials", "--fo"), ["--format"])
        self.assertEqual(self.complete("trials", "--format", ""), ["csv", "json", "table"])
        self.assertEqual(self.complete("trials", "--status", "c"), ["completed"])
        self.assertEqual(self.complete("runner", "--backend", ""), ["auto", "cpu", "cuda"])
        self.assertEqual(self.complete("keys", ""), ["new"])
        self.assertIn("--dir", self.complete("keys", "new", "--"))

    def test_study_files_and_study_names(self):
        self.assertEqual(self.complete("run", ""),
                         sorted(["%d.yaml" % len(n) for n in ("lr-search", "wide", HOSTILE)] + ["sub"]))
        # A name is text: offered quoted for the shell, never run.
        quoted = subprocess.run(["bash", "-c", 'printf %q "$1"', "_", HOSTILE],
                                capture_output=True, text=True).stdout
        self.assertEqual(self.complete("trials", "--db", "two.db", ""),
                         sorted(["lr-search", "wide", quoted]))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "pwned")))
        # --db before the command, and --db=FILE as bash splits it.
        self.assertEqual(self.complete("--db", "two.db", "tri"), ["trials"])
        self.assertEqual(self.complete("--db", "two.db", "trials", "l"), ["lr-search"])
        self.assertEqual(self.complete("trials", "--db", "=", "two.db", "w"), ["wide"])
        self.assertEqual(self.complete("trials", "--db", "~/two.db", "w"), ["wide"])  # HOME
        self.assertEqual(self.complete("why", "--db", "two.db", "w"), ["wide"])
        # No database there: nothing is offered, and nothing fails.
        self.assertEqual(self.complete("trials", "--db", "missing.db", ""), [])


# Types LINE and a TAB into an interactive zsh on a pseudo-terminal (zpty),
# and prints "found" once EXPECT appears in what zsh writes back.
ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PATH=$2:\$PATH; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; PROMPT='> '"
zpty -w -n z "$3"$'\t'
zpty -r -m z out "*$4*" && print -r -- found
zpty -d z
"""


class ZshTest(unittest.TestCase):
    def setUp(self):
        """A folder with the completion script as _sweep, for $fpath."""
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed (scripts/test.sh installs it)")
        tmp = tempfile.TemporaryDirectory(prefix="sweep-zsh-")
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        with open(os.path.join(self.dir, "_sweep"), "w") as f:
            f.write(sweep("completion", "zsh").stdout)

    def test_completions_in_a_real_zsh(self):
        d = self.dir
        for k, name in enumerate(("lr-search", HOSTILE)):
            study = os.path.join(d, "s%d.yaml" % k)
            with open(study, "w") as f:
                f.write(STUDY.format(name=json.dumps(name)))
            r = sweep("run", study, "--db", os.path.join(d, "z.db"), "--local-runners", "1",
                      "--progress", "plain")
            self.assertEqual(r.returncode, 0, r.stderr)
        os.symlink(SWEEP, os.path.join(d, "sweep"))
        for line, expect in (("sweep tri", "trials"),
                             ("sweep trials --fo", "--format"),
                             ("sweep trials --format ", "table"),
                             ("sweep trials --db z.db l", "lr-search"),
                             ("sweep --db z.db why l", "lr-search"),
                             ("sweep trials --db ~/z.db l", "lr-search")):
            r = subprocess.run(["zsh", "-f", "-c", ZSH_DRIVER, "_", d, d, line, expect],
                               capture_output=True, text=True, cwd=d, timeout=60,
                               env=dict(os.environ, HOME=d))
            self.assertIn("found", r.stdout, (line, r.stdout[-400:], r.stderr[-400:]))
        # Both names were offered as text; the hostile one ran nothing.
        self.assertFalse(os.path.exists(os.path.join(d, "pwned")))

    def test_the_script_loads_and_completes_sweep(self):
        d = self.dir
        self.assertEqual(subprocess.run(["zsh", "-n", os.path.join(d, "_sweep")]).returncode, 0)
        r = subprocess.run(["zsh", "-f", "-c",
                            'fpath=(%s $fpath); autoload -U compinit; compinit -u -d %s/dump;'
                            ' print -r -- ${_comps[sweep]}' % (d, d)],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.stdout.strip(), "_sweep", r.stderr)
        with open(os.path.join(d, "_sweep")) as f:
            text = f.read()
        for c in commands():
            self.assertIn("'%s:" % c, text)


class ManTest(unittest.TestCase):
    def test_the_page_renders_and_names_every_command_and_flag(self):
        page = sweep("man").stdout
        self.assertTrue(page.startswith(".\\\""), page[:80])
        if shutil.which("groff"):
            r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=page,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual((r.returncode, r.stderr), (0, ""))
        for c in commands():
            self.assertIn(".SS %s\n" % c.replace("-", "\\-"), page)
            help_text = sweep(c, "--help").stdout
            for flag in re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", help_text, re.M):
                self.assertIn(flag.replace("-", "\\-"), page, (c, flag))
        for section in ("EXIT STATUS", "ENVIRONMENT", "SWEEP_DB"):
            self.assertIn(section, page)


if __name__ == "__main__":
    unittest.main(verbosity=2)
