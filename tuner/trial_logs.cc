// Appending command trials' log batches, once each.
#include "tuner/trial_logs.h"

#include <sys/stat.h>

#include "common/log.h"
#include "storage/log_files.h"

namespace sweep {

std::optional<LogRow> TrialLogs::Append(int64_t trial_id, int64_t number, int attempt,
                                        uint64_t lease, const pb::Log& log) {
  if (log.text().empty()) return std::nullopt;
  Cursor& c = cursors_[trial_id];
  // A batch sent again after a re-attach is appended once.
  if (c.lease != lease) c.lease = lease, c.seq = 0;
  if (log.seq() != 0 && log.seq() <= c.seq) return std::nullopt;
  c.seq = log.seq();
  std::string text = log.text();
  LogRow row;
  row.path = LogFilePath(dir_, number, attempt);
  if (c.attempt != attempt) {
    c.attempt = attempt;
    c.tail.clear();
    c.dropped = 0;
    // An attempt number is used again when its run never counted (Ctrl-C,
    // a tuner restart): say where the new run begins.
    struct stat st;
    if (stat(row.path.c_str(), &st) == 0 && st.st_size > 0)
      text = "[sweep] attempt " + std::to_string(attempt) + " runs again from here\n" + text;
  }
  auto r = AppendLogFile(dir_, number, attempt, text);
  if (!r.ok()) {
    if (c.dropped == 0) LOG_WARN << "trial " << number << ": " << r.status().message();
    c.dropped += static_cast<int64_t>(text.size());
  } else {
    c.dropped += r->dropped;
    row.bytes = r->bytes;
  }
  c.tail += text;
  if (c.tail.size() > kLogTailBytes) c.tail.erase(0, c.tail.size() - kLogTailBytes);
  row.dropped = c.dropped;
  row.tail = c.tail;
  return row;
}

}  // namespace sweep
