// Reports as chart series: one curve per (trial, metric), a later attempt's
// report at a step replacing an earlier one's (a retried trial goes on from
// its checkpoint), shortened with Downsample.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "dashboard/downsample.h"
#include "storage/reader.h"

namespace sweep {

// `reports` of one trial and one metric, in (attempt, step) order; a report
// without a value (NaN) is kept as NaN.
std::vector<XY> MergeAttempts(std::vector<ReportPoint>::const_iterator begin,
                              std::vector<ReportPoint>::const_iterator end);

// Writes `"series": {metric: {"reports": N, "points": [[step, value], ...]}}`
// for one trial's reports (in metric, attempt, step order), at most
// `max_points` per metric.
void WriteSeries(JsonWriter& w, const std::vector<ReportPoint>& reports, size_t max_points);

// Writes [[x, y], ...].
void WritePoints(JsonWriter& w, const std::vector<XY>& points);

}  // namespace sweep
