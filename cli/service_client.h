// How a client (`sweep submit`, `pause`, `resume`, `cancel`, `set`,
// `studies`, `runners`) reaches a service: on this machine, through the
// database it holds (its service row: pid and private control endpoint,
// trusted only while that pid holds the database's lock: a killed
// service's row stays behind, naming a pid that holds nothing); from
// another machine, at its --control endpoint with CURVE keys (--server,
// --key, --server-key).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "storage/reader.h"

namespace sweep {

struct ServiceAddress {
  std::string db = "sweep.db";
  std::string server;      // tcp://HOST:PORT: the service's --control endpoint
  std::string key;         // this client's key file (NAME.key)
  std::string server_key;  // the service's public key file (tuner.pub)
};

// --db, --server, --key and --server-key.
void AddServiceOptions(CLI::App* command, ServiceAddress* address);

// The service that holds `db` now, or none (no lock holder, or the holder
// is a `sweep run`).
Result<std::optional<ServiceRow>> RunningService(const std::string& db);
// Sends `request` to the service and waits up to `timeout_ms` for its
// reply. No service: kFailedPrecondition saying how to start one; a key
// the service refuses: kFailedPrecondition saying so. A refused request
// (reply.ok false) is an error carrying the service's words.
Result<pb::ControlReply> CallService(const ServiceAddress& address, pb::ControlRequest request,
                                     int timeout_ms = 30000);

}  // namespace sweep
