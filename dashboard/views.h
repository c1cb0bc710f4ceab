// The JSON of each dashboard view, read through the typed Reader. Each
// function answers one /api path (docs/dashboard.md lists them); Api routes
// and caches them, and `sweep report` embeds the same text.
#pragma once

#include <string>
#include <vector>

#include "common/json_writer.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// views_study.cc: the studies, one study, its trials, one trial.
Result<std::string> StudiesJson(Reader& reader, double now);
Result<std::string> StudyJson(Reader& reader, int64_t study_id, double now);
Result<std::string> TrialsJson(Reader& reader, int64_t study_id);
Result<std::string> TrialJson(Reader& reader, int64_t trial_id);
// A trial's "decisions" and "events" keys, as the trial's page and `sweep
// why --format json` both show them: written once, so the two never differ.
void WriteDecisionsAndEvents(JsonWriter& w, const std::vector<DecisionView>& decisions,
                             const std::vector<EventView>& events);

// views_series.cc: learning curves (downsampled, with the decisions marked),
// parameter importance, Hyperband/ASHA rungs, PBT lineage.
Result<std::string> CurvesJson(Reader& reader, int64_t study_id);
Result<std::string> ImportanceJson(Reader& reader, int64_t study_id);
Result<std::string> RungsJson(Reader& reader, int64_t study_id);
Result<std::string> LineageJson(Reader& reader, int64_t study_id);

// views_front.cc: several objectives or constraints: the completed trials'
// objectives, feasibility, front membership and broken constraints, and the
// front's hypervolume as trials came in (empty lists for other studies).
Result<std::string> FrontJson(Reader& reader, int64_t study_id);

// views_pool.cc: a service's pool: studies with owner, priority, runners
// and share, the latest runs on each runner, the latest preemptions, and
// the runner jobs its launcher got from Slurm.
Result<std::string> PoolJson(Reader& reader, double now);
// The pool's `jobs`: each runner job of `launches` (newest first) with its
// state, when it ran, and how long of that its runner (slurm-JOB, busy in
// `runs`) had no trial.
void WriteLaunchedJobs(JsonWriter& w, const std::vector<LaunchRecord>& launches,
                       const std::vector<RunnerRun>& runs, double now);
inline constexpr size_t kPoolRuns = 2000;
inline constexpr size_t kPoolPreemptions = 500;
// The launcher's latest events the pool view reads (its runner jobs).
inline constexpr size_t kPoolLaunches = 1000;

// Learning curves send at most this many points in all (a study of 10,000
// trials of 50 reports gets 6 per trial), and a trial's page this many per
// metric.
inline constexpr size_t kCurvePointBudget = 60000;
inline constexpr size_t kTrialSeriesPoints = 500;

}  // namespace sweep
