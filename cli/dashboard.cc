// `sweep dashboard` runs the server as its own binary (see
// dashboard/server_main.cc for why); `sweep report` writes the HTML file.
#include "cli/dashboard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/format.h"
#include "dashboard/report.h"

namespace sweep {

int RunDashboard(const std::string& self_exe, const DashboardOptions& options) {
  std::string dir = self_exe.substr(0, self_exe.rfind('/') + 1);
  std::string server = dir + "sweep-dashboard";
  if (!options.token.empty()) setenv("SWEEP_DASHBOARD_TOKEN", options.token.c_str(), 1);
  const char* argv[] = {server.c_str(), options.db.c_str(), options.bind.c_str(), nullptr};
  execv(server.c_str(), const_cast<char* const*>(argv));
  fprintf(stderr, "sweep: cannot start %s: %s (it is built and installed beside sweep)\n",
          EscapeControl(server).c_str(), strerror(errno));
  return 1;
}

int RunReport(const std::string& db, const std::string& study, const std::string& out) {
  Status st = WriteReport(db, study, out);
  if (!st.ok()) {
    fprintf(stderr, "sweep: %s\n", EscapeControl(st.message()).c_str());
    return 1;
  }
  struct stat info;
  long long bytes = stat(out.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) : 0;
  printf("wrote %s (%.1f MB): open it in a browser, no server needed\n", EscapeControl(out).c_str(),
         static_cast<double>(bytes) / 1e6);
  return 0;
}

}  // namespace sweep
