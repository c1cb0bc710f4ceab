// Reports as chart series (see series.h).
#include "dashboard/series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sweep {

std::vector<XY> MergeAttempts(std::vector<ReportPoint>::const_iterator begin,
                              std::vector<ReportPoint>::const_iterator end) {
  std::map<int64_t, double> by_step;
  for (auto it = begin; it != end; ++it)
    by_step[it->step] = it->value ? *it->value : std::numeric_limits<double>::quiet_NaN();
  std::vector<XY> out;
  out.reserve(by_step.size());
  for (const auto& [step, value] : by_step) out.push_back({static_cast<double>(step), value});
  return out;
}

void WritePoints(JsonWriter& w, const std::vector<XY>& points) {
  w.BeginArray();
  for (const XY& p : points) w.BeginArray().Number(p.x).Number(p.y).EndArray();
  w.EndArray();
}

void WriteSeries(JsonWriter& w, const std::vector<ReportPoint>& reports, size_t max_points) {
  w.Key("series").BeginObject();
  for (auto begin = reports.begin(); begin != reports.end();) {
    auto end = std::find_if(begin, reports.end(),
                            [&](const ReportPoint& p) { return p.metric != begin->metric; });
    w.Key(begin->metric).BeginObject().Key("reports").Int(static_cast<int64_t>(end - begin));
    w.Key("points");
    WritePoints(w, Downsample(MergeAttempts(begin, end), max_points));
    w.EndObject();
    begin = end;
  }
  w.EndObject();
}

}  // namespace sweep
