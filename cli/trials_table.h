// A study's trials as `sweep trials`, `sweep best` and `sweep export` show
// them: a table for people, CSV and JSON for programs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cli/format.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// {"id": 3, "status": "completed", "params": {...}, "value": 1.25, "step": 1, "attempts": 1,
//  "number": 2, ..., "started_at": 1796190013.953, "ended_at": ...}: `number` is the trial's
// name in its study, `id` the database's key.
std::string TrialJson(const TrialView& t);

// Which columns a table or CSV shows.
struct TrialColumns {
  // `sweep trials --columns`: these, in this order, named as the format
  // names them (the table's objective column bears the metric's name, CSV's
  // is `value`); an unknown name is an error naming the nearest. Empty: CSV
  // has every column; the table has trial, status, the objective, step,
  // attempts (when a trial had more than one), parent (PBT), the
  // parameters, the other final metrics, duration and failure.
  std::vector<std::string> names;
  // The default table drops other metrics, last first, until it fits this
  // many columns, and says below it what it left out (0: no limit).
  size_t width = 0;
  // `sweep trials --pareto`: a column (after status) marking the trials of
  // the study's front, these trial ids; JSON's rows get "pareto".
  bool mark_pareto = false;
  std::set<int64_t> pareto;
};

// Table and CSV put each parameter, and each final metric other than the
// objective, in a column of its own. `params`, the study's parameters in
// its file's order, come first, each with its column even when no row has
// it, so the columns do not depend on the rows shown.
Result<std::string> FormatTrials(const std::vector<TrialView>& trials, Format format,
                                 const std::string& objective,
                                 const std::vector<std::string>& params = {},
                                 const TrialColumns& columns = {});

}  // namespace sweep
