#!/usr/bin/env python3
"""`cmake --install` puts a working sweep on PATH: into a temporary prefix,
`sweep --version` runs from there, `sweep dashboard` finds the
sweep-dashboard installed beside it (it serves a real database), a CNN
trains on the oneDNN module installed in ../lib, and the man page and the
bash and zsh completions are where their tools look.
Usage: install_test.py CMAKE BUILD_DIR SWEEP_BINARY
"""

import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

CMAKE, BUILD, SWEEP = sys.argv[1:4]
del sys.argv[1:4]

STUDY = """name: inst
objective: {metric: value, goal: minimize}
task: {synthetic: {function: branin, steps: 1}}
algorithm: {type: random, max_trials: 3}
seed: 1
parameters:
  x1: {type: float, min: -5, max: 10}
  x2: {type: float, min: 0, max: 15}
"""


CNN_STUDY = """name: cnn
objective: {metric: val_accuracy, goal: maximize}
task:
  train: {data_dir: %s, model: cnn, epochs: 1, validation: 16, batch_size: 16, conv_blocks: 1,
          kernel_size: 3}
algorithm: {type: random, max_trials: 1}
seed: 1
parameters:
  lr: {type: float, min: 0.01, max: 0.1, log: true}
"""


def write_idx(folder, prefix, n, side, rng):
    """n random side x side images and labels 0..9, as IDX files."""
    with open(os.path.join(folder, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, side, side))
        f.write(bytes(rng.randrange(256) for _ in range(n * side * side)))
    with open(os.path.join(folder, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 0x801, n))
        f.write(bytes(rng.randrange(10) for _ in range(n)))


class InstallTest(unittest.TestCase):
    def test_the_installed_sweep_runs_and_finds_its_dashboard(self):
        with tempfile.TemporaryDirectory(prefix="sweep-install-") as tmp:
            prefix = os.path.join(tmp, "prefix")
            r = subprocess.run([CMAKE, "--install", BUILD, "--prefix", prefix],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            sweep = os.path.join(prefix, "bin", "sweep")
            self.assertTrue(os.access(os.path.join(prefix, "bin", "sweep-dashboard"), os.X_OK))
            self.assertTrue(os.access(os.path.join(prefix, "bin", "sweep-export-model"), os.X_OK))
            # `sweep export-model` runs the helper installed beside it: what
            # answers is the helper's own error about the missing database.
            r = subprocess.run([sweep, "export-model", "--db", os.path.join(tmp, "none.db"),
                                "-o", os.path.join(tmp, "m.onnx")],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertNotIn("cannot start", r.stderr)
            self.assertIn("none.db", r.stderr)
            # The man page and the completions, where man, bash-completion and
            # zsh look, the same as the installed binary prints.
            for path, args in (("share/man/man1/sweep.1", ["man"]),
                               ("share/bash-completion/completions/sweep",
                                ["completion", "bash"]),
                               ("share/zsh/site-functions/_sweep", ["completion", "zsh"])):
                with open(os.path.join(prefix, path)) as f:
                    printed = subprocess.run([sweep] + args, capture_output=True, text=True,
                                             timeout=60).stdout
                    self.assertEqual(f.read(), printed, path)
            env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ["PATH"])
            r = subprocess.run(["sweep", "--version"], capture_output=True, text=True, env=env,
                               timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("sweep", r.stdout)
            study = os.path.join(tmp, "s.yaml")
            with open(study, "w") as f:
                f.write(STUDY)
            db = os.path.join(tmp, "s.db")
            r = subprocess.run(["sweep", "run", study, "--db", db, "--local-runners", "1",
                                "--progress", "plain"], capture_output=True, text=True, env=env,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            # The CPU convolutions are a module the installed sweep opens
            # from ../lib the first time a runner trains a CNN.
            self.assertTrue(os.path.isfile(os.path.join(prefix, "lib", "libsweep_nn_dnnl.so")))
            data = os.path.join(tmp, "idx")
            os.mkdir(data)
            rng = random.Random(7)
            write_idx(data, "train", 64, 12, rng)
            write_idx(data, "t10k", 16, 12, rng)
            cnn = os.path.join(tmp, "cnn.yaml")
            with open(cnn, "w") as f:
                f.write(CNN_STUDY % data)
            # The loader's log of each process says which file was opened:
            # the installed one, not the build tree's (which still exists).
            ld_log = os.path.join(tmp, "ld")
            r = subprocess.run(["sweep", "run", cnn, "--db", os.path.join(tmp, "cnn.db"),
                                "--local-runners", "1", "--progress", "plain"],
                               capture_output=True, text=True, timeout=120,
                               env=dict(env, LD_DEBUG="files", LD_DEBUG_OUTPUT=ld_log))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 completed", r.stdout)
            opened = ""
            for name in os.listdir(tmp):
                if name.startswith("ld."):
                    with open(os.path.join(tmp, name), errors="replace") as f:
                        opened += "".join(l for l in f if "libsweep_nn_dnnl" in l)
            installed = os.path.join(prefix, "bin", "..", "lib", "libsweep_nn_dnnl.so")
            self.assertIn("file=" + installed, opened)
            self.assertNotIn(os.path.join(BUILD, "nn"), opened)
            dash = subprocess.Popen(["sweep", "dashboard", "--db", db, "--bind", "127.0.0.1:0"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env=env)
            try:
                line = dash.stdout.readline()
                self.assertIn("sweep dashboard of", line, dash.stderr.read() if not line else "")
                url = line.split(" at ")[1].strip()
                for _ in range(100):
                    try:
                        with urllib.request.urlopen(url + "api/studies", timeout=5) as resp:
                            self.assertIn(b'"inst"', resp.read())
                            break
                    except OSError:
                        time.sleep(0.05)
                else:
                    self.fail("the installed dashboard did not answer")
            finally:
                dash.terminate()
                dash.wait(timeout=30)


if __name__ == "__main__":
    unittest.main(verbosity=2)
