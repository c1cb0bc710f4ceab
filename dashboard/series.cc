// Reports as chart series (see series.h).
#include "dashboard/series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sweep {

std::vector<XY> MergeAttempts(std::vector<ReportPoint>::const_iterator begin,
                              std::vector<ReportPoint>::const_iterator end) {
  if (begin == end) return {};
  auto value = [](const ReportPoint& p) {
    return p.value ? *p.value : std::numeric_limits<double>::quiet_NaN();
  };
  if (begin->attempt == (end - 1)->attempt) {  // one attempt: steps in order already
    std::vector<XY> out;
    out.reserve(static_cast<size_t>(end - begin));
    for (auto it = begin; it != end; ++it)
      out.push_back({static_cast<double>(it->step), value(*it)});
    return out;
  }
  std::map<int64_t, double> by_step;
  for (auto it = begin; it != end; ++it) by_step[it->step] = value(*it);
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
