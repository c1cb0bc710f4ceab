"""The trial program of bench/command: a stand-in for a user's training script.

Usage: program.py --x VALUE
Prints 10 report lines, SWEEP_REPORT {"step": s, "loss": (x-0.3)**2 + 1/s}
for s = 1..10 (flushed one by one), and exits 0. No sleeping, standard library
only, and nothing read from the environment: sweep (a command task) and the
peers (subprocess.run, objective from the last report) run it the same way.
"""
import json
import sys


def main():
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--x":
        sys.exit("usage: program.py --x VALUE")
    x = float(args[1])
    for s in range(1, 11):
        # One write per line: print() writes the text and its newline
        # separately, which interleaves the lines of the baseline's two
        # workers on their shared pipe.
        sys.stdout.write("SWEEP_REPORT " + json.dumps({"step": s, "loss": (x - 0.3) ** 2 + 1 / s}) + "\n")
        sys.stdout.flush()


main()
