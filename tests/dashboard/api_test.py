#!/usr/bin/env python3
"""The dashboard's JSON API checked against the database and the CLI, with
real sweeps, a real `sweep dashboard` and real HTTP: every view's numbers,
the read-only and token rules, and live change detection.
Usage: api_test.py SWEEP_BINARY
"""

import concurrent.futures
import json
import math
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helpers  # noqa: E402

SWEEP = sys.argv.pop(1) if len(sys.argv) > 1 else "build/cli/sweep"


class ApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = helpers.temp_folder()
        cls.db = os.path.join(cls.tmp.name, "s.db")
        for yaml in (helpers.ASHA, helpers.HYPERBAND, helpers.PBT):
            helpers.run_study(SWEEP, cls.tmp.name, yaml, cls.db)
        cls.dash = helpers.Dashboard(SWEEP, cls.db)
        cls.ids = {name: i for i, name in helpers.query(cls.db, "SELECT id, name FROM studies")}

    @classmethod
    def tearDownClass(cls):
        cls.dash.stop()
        cls.tmp.cleanup()

    def test_studies_match_the_database(self):
        studies = self.dash.json("/api/studies")["studies"]
        self.assertEqual([s["name"] for s in studies], ["asha", "hb", "pbt"])
        for s in studies:
            counts = dict(helpers.query(self.db, "SELECT status, count(*) FROM trials WHERE "
                                        "study_id=? GROUP BY status", s["id"]))
            for k in ("completed", "failed", "stopped", "running", "queued", "paused"):
                self.assertEqual(s[k], counts.get(k, 0), (s["name"], k))
            self.assertEqual(s["trials"], sum(counts.values()))
            best = json.loads(helpers.run(SWEEP, "best", s["name"], "--db", self.db,
                                          "--format", "json").stdout)
            self.assertEqual(s["best"], best["value"])
            self.assertEqual(s["state"], "completed")  # no tuner holds the database
            self.assertIsNone(s["tuner_pid"])
            self.assertGreater(s["trials_per_s"], 0)

    def test_a_study_names_its_parameters_and_best_trial(self):
        s = self.dash.json("/api/studies/%d" % self.ids["asha"])
        self.assertEqual(s["algorithm"], "asha")
        self.assertEqual(s["max_trials"], 60)
        params = {p["name"]: p for p in s["parameters"]}
        self.assertEqual(set(params), {"x1", "x2", "opt", "momentum"})
        self.assertTrue(params["x2"]["log"])
        self.assertEqual(params["x2"]["min"], 0.001)
        self.assertEqual(params["opt"]["values"], ["sgd", "adam", helpers.HOSTILE])
        self.assertTrue(params["momentum"]["conditional"])
        best = json.loads(helpers.run(SWEEP, "best", "asha", "--db", self.db, "--format",
                                      "json").stdout)
        self.assertEqual(s["best_trial"]["id"], best["id"])
        self.assertEqual(s["best_trial"]["params"], best["params"])

    def test_trials_are_what_sweep_trials_prints(self):
        for name, sid in self.ids.items():
            api = self.dash.json("/api/studies/%d/trials" % sid)["trials"]
            cli = helpers.trials_json(SWEEP, self.db, name)
            self.assertEqual(len(api), len(cli))
            for a, c in zip(api, cli):
                for k, v in c.items():
                    self.assertEqual(a[k], v, (name, c["id"], k))
                started, ended = helpers.query(self.db, "SELECT started_at, ended_at FROM "
                                               "trials WHERE id=?", a["id"])[0]
                self.assertEqual((a["started_at"], a["ended_at"]), (started, ended))
        # The conditional parameter is absent where its branch was not taken.
        asha = self.dash.json("/api/studies/%d/trials" % self.ids["asha"])["trials"]
        for t in asha:
            self.assertEqual("momentum" in t["params"], t["params"]["opt"] == "sgd")

    def test_curves_are_the_reports_shortened_with_decisions_marked(self):
        sid = self.ids["asha"]
        c = self.dash.json("/api/studies/%d/curves" % sid)
        total, = helpers.query(self.db, "SELECT count(*) FROM reports r JOIN trials t ON "
                               "t.id=r.trial_id WHERE t.study_id=? AND r.metric='value'", sid)[0]
        self.assertEqual(c["reports"], total)
        self.assertEqual(c["trials"], len(c["curves"]))
        for curve in c["curves"]:
            reports = dict(helpers.query(self.db, "SELECT step, value FROM reports WHERE "
                                         "trial_id=? AND metric='value' ORDER BY attempt",
                                         curve["id"]))
            self.assertLessEqual(len(curve["points"]), c["points_per_trial"])
            for step, value in curve["points"]:
                self.assertEqual(reports[step], value)
            decisions = helpers.query(self.db, "SELECT step, reason FROM decisions WHERE "
                                      "trial_id=? AND reason != '' ORDER BY id", curve["id"])
            self.assertEqual([(m[0], m[3]) for m in curve["marks"]], decisions)
            for step, value, kind, reason in curve["marks"]:
                self.assertEqual(value, reports.get(step))
                self.assertIn(kind, ("stop", "promote", "pause", "continue", "exploit"))

    def test_rungs_count_what_asha_and_hyperband_decided(self):
        asha = self.dash.json("/api/studies/%d/rungs" % self.ids["asha"])["brackets"]
        self.assertEqual(len(asha), 1)
        self.assertIsNone(asha[0]["bracket"])
        rungs = asha[0]["rungs"]
        self.assertEqual([r["step"] for r in rungs], [1, 3, 9])
        self.assertEqual(rungs[0]["entered"], 60)
        for r in rungs:
            self.assertEqual(r["promoted"] + r["stopped"] + r["waiting"], r["entered"])
            stopped, = helpers.query(
                self.db, "SELECT count(DISTINCT d.trial_id) FROM decisions d JOIN trials t ON "
                "t.id=d.trial_id WHERE t.study_id=? AND d.step=? AND d.decision='stop'",
                self.ids["asha"], r["step"])[0]
            self.assertEqual(r["stopped"], stopped)
        for a, b in zip(rungs, rungs[1:]):
            self.assertEqual(b["entered"], a["promoted"])
        hb = self.dash.json("/api/studies/%d/rungs" % self.ids["hb"])["brackets"]
        self.assertGreater(len(hb), 1)
        self.assertTrue(all(b["bracket"] is not None for b in hb))

    def test_lineage_names_each_exploit(self):
        ln = self.dash.json("/api/studies/%d/lineage" % self.ids["pbt"])["trials"]
        rows = helpers.query(self.db, "SELECT id, parent_id, parent_step FROM trials WHERE "
                             "study_id=? ORDER BY id", self.ids["pbt"])
        self.assertEqual([(t["id"], t["parent"], t["parent_step"]) for t in ln], rows)
        children = [t for t in ln if t["parent"]]
        self.assertTrue(children)
        for t in children:
            reason, = helpers.query(self.db, "SELECT reason FROM decisions WHERE trial_id=? AND "
                                    "decision='exploit'", t["id"])[0]
            self.assertEqual(t["reason"], reason)
        # A study without exploits has no lineage.
        self.assertEqual(self.dash.json("/api/studies/%d/lineage" % self.ids["asha"])["trials"], [])

    def test_importance_covers_every_parameter_and_sums_to_one(self):
        imp = self.dash.json("/api/studies/%d/importance" % self.ids["hb"])
        completed, = helpers.query(self.db, "SELECT count(*) FROM trials WHERE study_id=? AND "
                                   "status='completed'", self.ids["hb"])[0]
        self.assertEqual(imp["method"], "ped-anova")
        self.assertEqual(imp["trials"], completed)
        self.assertEqual({p["name"] for p in imp["params"]}, {"x1", "x2"})
        self.assertAlmostEqual(sum(p["importance"] for p in imp["params"]), 1.0)

    def test_a_trial_page_has_its_decisions_events_and_reports(self):
        tid, = helpers.query(self.db, "SELECT id FROM trials WHERE study_id=? AND "
                             "status='stopped' LIMIT 1", self.ids["asha"])[0]
        t = self.dash.json("/api/trials/%d" % tid)
        decisions = helpers.query(self.db, "SELECT step, decision, reason FROM decisions "
                                  "WHERE trial_id=? ORDER BY id", tid)
        self.assertEqual([(d["step"], d["decision"], d["reason"]) for d in t["decisions"]],
                         decisions)
        n, = helpers.query(self.db, "SELECT count(*) FROM reports WHERE trial_id=?", tid)[0]
        self.assertEqual(t["series"]["value"]["reports"], n)
        self.assertEqual(t["study_name"], "asha")

    def test_unknown_paths_are_404_and_nothing_writes(self):
        before = helpers.file_bytes(self.db)
        for path in ("/api/nope", "/api/studies/999", "/api/studies/1/nope", "/api/trials/abc",
                     "/api/trials/99999", "/etc/passwd", "/assets/../../etc/passwd",
                     "/assets/nope.js", "/api/studies/1/trials/extra/parts"):
            status, headers, body = self.dash.get(path)
            self.assertEqual(status, 404, path)
            self.assertIn("error", json.loads(body))
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            for path in ("/api/studies", "/api/studies/1", "/"):
                status, headers, _ = self.dash.get(path, method=method)
                self.assertEqual(status, 405, (method, path))
        self.assertEqual(helpers.file_bytes(self.db), before)

    def test_assets_are_served_with_a_strict_policy(self):
        status, headers, body = self.dash.get("/")
        self.assertEqual(status, 200)
        self.assertIn(b"assets/app.js", body)
        self.assertIn("script-src 'self'", headers["Content-Security-Policy"])
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        for name in ("boot.js", "app.js", "plot.js", "views.js", "study.js", "style.css"):
            status, headers, body = self.dash.get("/assets/" + name)
            self.assertEqual(status, 200, name)
            self.assertGreater(len(body), 500)
            self.assertNotIn(b"http://", body.replace(b"http://127.0.0.1", b""))
            self.assertNotIn(b"https://", body)

    def test_a_foreign_host_is_refused_on_loopback(self):
        # A page on another site reaching 127.0.0.1 through DNS rebinding
        # sends its own name as Host.
        for host in ("evil.example:80", "127.0.0.1.evil.example:8080", "localhost.evil.example",
                     "127.0.0.1.evil.example"):
            status, _, _ = self.dash.get("/api/studies", headers={"Host": host})
            self.assertEqual(status, 403, host)
        status, _, _ = self.dash.get("/api/studies", headers={"Host": "localhost"})
        self.assertEqual(status, 200)

    def test_a_token_is_required_when_there_is_one(self):
        token = "t0k3n-for-the-test-0123456789"
        env = dict(os.environ, SWEEP_DASHBOARD_TOKEN=token)
        with helpers.Dashboard(SWEEP, self.db, env=env) as d:
            # The token is not on its command line, where ps shows it.
            with open("/proc/%d/cmdline" % d.proc.pid, "rb") as f:
                self.assertNotIn(token.encode(), f.read())
            self.assertIn("?token=" + token, d.line)
            cookie = "sweep_token_" + d.url.rstrip("/").rsplit(":", 1)[1]
            for headers in ({}, {"Authorization": "Bearer wrong"},
                            {"Cookie": cookie + "=wrong"}):
                for path in ("/", "/api/studies", "/assets/app.js", "/nope"):
                    status, _, _ = d.get(path, headers)
                    self.assertEqual(status, 401, (path, headers))
            self.assertEqual(d.get("/api/studies", {"Authorization": "Bearer " + token})[0], 200)
            self.assertEqual(d.get("/api/studies", {"Cookie": cookie + "=" + token})[0], 200)
            # Named after the port: browsers share cookies across a host's ports.
            self.assertEqual(d.get("/api/studies", {"Cookie": "sweep_token=" + token})[0], 401)
            status, headers, _ = d.get("/?token=" + token)
            self.assertEqual(status, 200)
            self.assertIn("HttpOnly", headers["Set-Cookie"])
            self.assertTrue(headers["Set-Cookie"].startswith(cookie + "=" + token + ";"))
            self.assertEqual(d.get("/?token=" + token[:-1])[0], 401)

    def test_bad_arguments_are_named(self):
        r = helpers.run(SWEEP, "dashboard", "--db", self.db, "--bind", "nowhere", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--bind nowhere: expected HOST:PORT", r.stderr)
        r = helpers.run(SWEEP, "dashboard", "--db", self.db + ".missing", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no such database", r.stderr)
        r = helpers.run(SWEEP, "dashboard", "--db", self.db, "--bind", "0.0.0.0:0", "--token",
                        "short", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("at least 16 characters", r.stderr)

    def test_a_commit_changes_the_version_and_shows_up(self):
        db = os.path.join(self.tmp.name, "live.db")
        helpers.run_study(SWEEP, self.tmp.name, helpers.HYPERBAND, db)
        with helpers.Dashboard(SWEEP, db) as d:
            v1 = d.json("/api/version")["version"]
            self.assertEqual(d.json("/api/version")["version"], v1)
            trials_before = d.json("/api/studies/1/trials")["trials"]
            helpers.run_study(SWEEP, self.tmp.name, helpers.PBT, db)
            self.assertNotEqual(d.json("/api/version")["version"], v1)
            self.assertEqual([s["name"] for s in d.json("/api/studies")["studies"]], ["hb", "pbt"])
            # A cached answer is not served after the commit.
            self.assertEqual(d.json("/api/studies/1/trials")["trials"], trials_before)
            self.assertEqual(len(d.json("/api/studies/2/trials")["trials"]),
                             len(helpers.trials_json(SWEEP, db, "pbt")))
            self.assertEqual(d.stop(), 0)  # SIGTERM ends it cleanly

    def test_no_request_is_answered_from_before_a_commit(self):
        # Answers are cached for every Reader in the pool together: after a
        # commit by another connection, none of them may answer from before.
        db = os.path.join(self.tmp.name, "cache.db")
        helpers.run_study(SWEEP, self.tmp.name, helpers.HYPERBAND, db)
        path = "/api/studies/1/trials"
        with helpers.Dashboard(SWEEP, db) as d:
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                first = list(pool.map(lambda _: d.json(path)["trials"][0]["runner"], range(16)))
                self.assertEqual(len(set(first)), 1)
                with sqlite3.connect(db) as con:
                    con.execute("UPDATE trials SET runner = 'moved' WHERE id = ?",
                                (d.json(path)["trials"][0]["id"],))
                after = list(pool.map(lambda _: d.json(path)["trials"][0]["runner"], range(16)))
                self.assertEqual(after, ["moved"] * 16)
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
