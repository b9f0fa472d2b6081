#!/usr/bin/python3
"""The long kill -9 loop of `trove sync`: N trials of killing the feeder at a
random point (mid-snapshot, mid-batch, between a batch and its checkpoint,
inside a streamed transaction) under a random concurrent workload, then one
last run and the exact oracle (every key, every document's md5 read back by
PostgreSQL). `make test` runs 20 trials; this runs as many as asked:

    tests/sync/crash_loop.py --trials 200
"""
import argparse
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

ap = argparse.ArgumentParser()
ap.add_argument("--trials", type=int, default=200)
a = ap.parse_args()
env = dict(os.environ, TROVE_SYNC_KILLS=str(a.trials))
sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE / "test_sync.py"),
                          "-k", "kill_9"], env=env))
