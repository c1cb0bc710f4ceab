// `sweep dashboard`: serves the API (dashboard/api.h) and the built-in page
// over HTTP (handler.h on http_server.h). Read-only: GET and HEAD only, nothing writes.
// On loopback (the default) it answers requests whose Host is a loopback
// name, so a web page elsewhere cannot read it through DNS rebinding; bound
// beyond loopback it wants the token it prints, as `?token=`, a cookie it
// sets from that, or `Authorization: Bearer`.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

struct DashboardOptions {
  std::string db = "sweep.db";
  std::string bind = "127.0.0.1:8080";  // HOST:PORT; port 0 picks a free one
  std::string token;                    // required beyond loopback; made when empty
};

// Serves until SIGINT or SIGTERM; prints the address (with the token, when
// there is one) on stdout once it listens.
Status ServeDashboard(const DashboardOptions& options);

}  // namespace sweep
