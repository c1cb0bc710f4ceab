// One SWEEP_REPORT line of a command trial (docs/command.md): the JSON object
// after the prefix read into a step, the checkpoint flag and metrics. Pure
// parsing; what to do with it is command_task.cc's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

inline constexpr std::string_view kReportPrefix = "SWEEP_REPORT ";

struct ReportLine {
  std::optional<int64_t> step;  // absent: step-less (final) metrics
  bool checkpoint = false;
  std::vector<pb::Metric> metrics;  // null is NaN
  // Fields left out, each with the key it concerns: a bad metric name or a
  // metric that is not a number.
  std::vector<std::pair<std::string, std::string>> skipped;
};

// `json` is the text after kReportPrefix. An error (not a JSON object, a
// step that is not a positive integer) means the whole line is ignored; its
// message names the line.
Result<ReportLine> ParseReportLine(std::string_view json);

}  // namespace sweep
