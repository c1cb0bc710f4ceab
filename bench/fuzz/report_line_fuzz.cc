// A SWEEP_REPORT line, the JSON that untrusted programs print, as the runner
// reads it (trial_runner/report_line.cc over common/json_reader.cc): any
// bytes parse to an error or to a report whose step is positive and whose
// metric names and values come from the line (nothing decoded outgrows it).
#include "bench/fuzz/fuzz_input.h"
#include "common/json_reader.h"
#include "trial_runner/report_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fields = sweep::ParseJsonObject(text);
  if (fields.ok()) {
    size_t decoded = 0;
    for (const auto& f : *fields) decoded += f.key.size() + f.text.size();
    // Escapes only shrink text (\u0041 is 6 bytes for 1; a surrogate pair 12
    // for 4), so what was decoded fits in what was read.
    sweep::fuzz::Check(decoded <= size, "decoded keys and strings fit in the line");
  }
  auto line = sweep::ParseReportLine(text);
  if (!line.ok()) return 0;
  sweep::fuzz::Check(fields.ok(), "a report line is a JSON object");
  sweep::fuzz::Check(!line->step || *line->step > 0, "a report's step is positive");
  for (const auto& m : line->metrics)
    sweep::fuzz::Check(!m.name().empty() && m.name().size() <= size, "a metric is named");
  return 0;
}
