// A SWEEP_REPORT line's JSON object into a step, the checkpoint flag and
// metrics.
#include "trial_runner/report_line.h"

#include <cmath>

#include "common/json.h"
#include "common/json_reader.h"

namespace sweep {

Result<ReportLine> ParseReportLine(std::string_view json) {
  // The line as the program wrote it, its first 200 bytes.
  std::string shown =
      (std::string(kReportPrefix) + std::string(json.substr(0, 200))).substr(0, 200);
  auto fields = ParseJsonObject(json);
  if (!fields.ok()) {
    return Status::InvalidArgument("ignored a SWEEP_REPORT line that is not a JSON object (" +
                                   fields.status().message() + "): " + shown);
  }
  ReportLine out;
  for (const auto& f : *fields) {
    if (f.key == "step") {
      if (f.kind != JsonField::Kind::kNumber || !(f.number >= 1) || f.number > 1e15 ||
          f.number != std::floor(f.number)) {
        return Status::InvalidArgument(
            "ignored a SWEEP_REPORT line whose step is not a positive integer: " + shown);
      }
      out.step = static_cast<int64_t>(f.number);
    } else if (f.key == "checkpoint") {
      out.checkpoint = f.kind == JsonField::Kind::kBool && f.flag;
    } else if (f.key.empty() || f.key.size() > 256 || ValidUtf8(f.key) != f.key) {
      out.skipped.emplace_back(f.key,
                               "metric name '" + ValidUtf8(f.key.substr(0, 256)) +
                                   "' is empty, longer than 256 bytes or not UTF-8; ignored");
    } else if (f.kind == JsonField::Kind::kNumber || f.kind == JsonField::Kind::kNull) {
      pb::Metric m;
      m.set_name(f.key);
      m.set_value(f.kind == JsonField::Kind::kNumber ? f.number : std::nan(""));
      out.metrics.push_back(std::move(m));
    } else {
      out.skipped.emplace_back(f.key, "metric '" + f.key + "' is not a number; ignored");
    }
  }
  return out;
}

}  // namespace sweep
