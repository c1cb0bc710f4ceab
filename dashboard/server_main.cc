// sweep-dashboard: the server behind `sweep dashboard`, a binary of its own
// so that the HTTP server (Boost.Beast, dashboard/http_server.h) is in the
// dashboard alone, not in every tuner, runner and CLI read.
// Usage (from `sweep dashboard` only): sweep-dashboard DB HOST:PORT, the
// token in $SWEEP_DASHBOARD_TOKEN (never on a command line others can read).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dashboard/server.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: sweep dashboard [--db FILE] [--bind HOST:PORT] [--token TOKEN]\n");
    return 2;
  }
  sweep::DashboardOptions options;
  options.db = argv[1];
  options.bind = argv[2];
  if (const char* token = getenv("SWEEP_DASHBOARD_TOKEN")) options.token = token;
  unsetenv("SWEEP_DASHBOARD_TOKEN");
  sweep::Status st = sweep::ServeDashboard(options);
  if (!st.ok()) {
    std::string message = st.message();
    for (char& c : message)  // a path may hold escape sequences
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    fprintf(stderr, "sweep: %s\n", message.c_str());
    return 1;
  }
  return 0;
}
