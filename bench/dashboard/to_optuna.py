#!/usr/bin/env python3
"""Copies every study of a sweep database into an Optuna 5 RDB storage, for
the side-by-side dashboard benchmark (bench/dashboard/run.sh): the same
trials, parameters (distributions from the study's parameter ranges), final
values and intermediate values (the objective metric's reports, one per step).

Usage: to_optuna.py [--api] SWEEP.db OPTUNA.db   (needs optuna; OPTUNA.db is replaced)

Optuna makes the storage and the studies; the trials go in with one SQL
transaction written with Optuna's own serialisers (models.py), since
study.add_trials costs ~70 ms a trial (one ORM query per intermediate value:
12 minutes for 10,000 trials). --api uses study.add_trials instead; both give
the same study.trials (checked on 100 and 1,000 trials; the SQL dumps are identical).
"""

import datetime
import json
import os
import sqlite3
import sys
import time

import optuna
from optuna.distributions import (CategoricalDistribution, FloatDistribution,
                                  IntDistribution)
from optuna.storages._rdb import models
from optuna.trial import TrialState

STATES = {"completed": TrialState.COMPLETE, "failed": TrialState.FAIL,
          "stopped": TrialState.PRUNED, "running": TrialState.RUNNING,
          "paused": TrialState.RUNNING, "queued": TrialState.WAITING}


def scalar(v):
    """A pb Value as JSON (a one-key object) to a plain value."""
    return next(iter(v.values())) if isinstance(v, dict) and v else v


def distributions(spec):
    out = {}
    for p in spec.get("parameters", []):
        t, lo, hi = p.get("type"), p.get("min"), p.get("max")
        if t == "PARAM_TYPE_FLOAT":
            out[p["name"]] = FloatDistribution(lo, hi, log=p.get("log", False), step=p.get("step"))
        elif t == "PARAM_TYPE_INT":
            out[p["name"]] = IntDistribution(int(lo), int(hi), log=p.get("log", False),
                                             step=int(p.get("step", 1)))
        elif t == "PARAM_TYPE_CATEGORICAL":
            out[p["name"]] = CategoricalDistribution([scalar(v) for v in p.get("values", [])])
        elif t == "PARAM_TYPE_CONSTANT":
            out[p["name"]] = CategoricalDistribution([scalar(p.get("value"))])
    return out


def fmt(dt):                             # SQLAlchemy's SQLite DATETIME text
    return dt.strftime("%Y-%m-%d %H:%M:%S.%f") if dt else None


def insert(dst, study_id, trials):
    """Writes FrozenTrials as study.add_trials would, in one transaction."""
    db = sqlite3.connect(dst)
    with db:
        first = db.execute("SELECT COALESCE(MAX(number), -1) + 1 FROM trials WHERE study_id = ?",
                           (study_id,)).fetchone()[0]
        for i, t in enumerate(trials):
            tid = db.execute("INSERT INTO trials(number, study_id, state, datetime_start,"
                             " datetime_complete) VALUES (?, ?, ?, ?, ?)",
                             (first + i, study_id, t.state.name, fmt(t.datetime_start),
                              fmt(t.datetime_complete))).lastrowid
            db.executemany("INSERT INTO trial_params(trial_id, param_name, param_value,"
                           " distribution_json) VALUES (?, ?, ?, ?)",
                           [(tid, k, t.distributions[k].to_internal_repr(v),
                             optuna.distributions.distribution_to_json(t.distributions[k]))
                            for k, v in t.params.items()])
            if t.values is not None:
                db.executemany("INSERT INTO trial_values(trial_id, objective, value, value_type)"
                               " VALUES (?, ?, ?, ?)",
                               [(tid, k, *(lambda v, ty: (v, ty.name))(
                                   *models.TrialValueModel.value_to_stored_repr(v)))
                                for k, v in enumerate(t.values)])
            db.executemany("INSERT INTO trial_intermediate_values(trial_id, step,"
                           " intermediate_value, intermediate_value_type) VALUES (?, ?, ?, ?)",
                           [(tid, step, *(lambda v, ty: (v, ty.name))(
                               *models.TrialIntermediateValueModel
                               .intermediate_value_to_stored_repr(v)))
                            for step, v in t.intermediate_values.items()])
    db.close()


def main(src, dst, api=False):
    t0 = time.monotonic()
    for f in (dst, dst + "-journal", dst + "-wal", dst + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.RDBStorage("sqlite:///" + os.path.abspath(dst))
    db = sqlite3.connect("file:%s?mode=ro" % os.path.abspath(src), uri=True)
    for sid, name, metric, goal, spec_json in db.execute(
            "SELECT id, name, objective_metric, goal, spec_json FROM studies ORDER BY id"):
        dists = distributions(json.loads(spec_json))
        steps = {}                       # trial id -> {step: value}, the last attempt's
        for tid, step, value in db.execute(
                "SELECT r.trial_id, r.step, r.value FROM reports r JOIN trials t ON t.id = r.trial_id"
                " WHERE t.study_id = ? AND r.metric = ? ORDER BY r.trial_id, r.attempt",
                (sid, metric)):
            if value is not None:
                steps.setdefault(tid, {})[step] = value
        trials = []
        for tid, status, params, value, created, started, ended in db.execute(
                "SELECT id, status, params, value, created_at, started_at, ended_at FROM trials"
                " WHERE study_id = ? ORDER BY number", (sid,)):
            params = json.loads(params)
            state = STATES[status]
            t = optuna.trial.create_trial(
                state=state, value=value if state == TrialState.COMPLETE else None,
                params=params, distributions={k: dists[k] for k in params if k in dists},
                intermediate_values=steps.get(tid, {}))
            t.datetime_start = datetime.datetime.fromtimestamp(started or created)
            if state.is_finished():
                t.datetime_complete = datetime.datetime.fromtimestamp(ended or started or created)
            trials.append(t)
        study = optuna.create_study(storage=storage, study_name=name,
                                    direction="minimize" if goal == "minimize" else "maximize")
        if api:
            study.add_trials(trials)
        else:
            insert(os.path.abspath(dst), study._study_id, trials)
        print("%s: study %r, %d trials, %d intermediate values (%.1f s)"
              % (dst, name, len(trials), sum(len(v) for v in steps.values()),
                 time.monotonic() - t0))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--api"]
    if len(args) != 2:
        sys.exit(__doc__)
    main(args[0], args[1], api="--api" in sys.argv)
