// How a client (`sweep submit`, `pause`, `resume`, `cancel`, `set`,
// `studies`, `runners`) reaches the service that holds a database: the
// database names it (its service row: pid and control endpoint), and the
// row counts only while that pid holds the database's lock (a killed
// service's row stays behind, naming a pid that holds nothing).
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "storage/reader.h"

namespace sweep {

// The service that holds `db` now, or none (no lock holder, or the holder
// is a `sweep run`).
Result<std::optional<ServiceRow>> RunningService(const std::string& db);
// Sends `request` to the service holding `db` and waits up to
// `timeout_ms` for its reply. No service: kFailedPrecondition saying how
// to start one. A refused request (reply.ok false) is an error carrying
// the service's words.
Result<pb::ControlReply> CallService(const std::string& db, pb::ControlRequest request,
                                     int timeout_ms = 30000);

}  // namespace sweep
