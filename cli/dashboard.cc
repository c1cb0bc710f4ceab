// `sweep dashboard` runs the server as its own binary (see
// dashboard/server_main.cc for why); `sweep report` writes the HTML file.
#include "cli/dashboard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/format.h"
#include "common/posix_error.h"
#include "dashboard/report.h"

namespace sweep {

int RunDashboard(const std::string& self_exe, const DashboardOptions& options) {
  std::string dir = self_exe.substr(0, self_exe.rfind('/') + 1);
  std::string server = dir + "sweep-dashboard";
  if (!options.token.empty()) setenv("SWEEP_DASHBOARD_TOKEN", options.token.c_str(), 1);
  const char* argv[] = {server.c_str(), options.db.c_str(), options.bind.c_str(), nullptr};
  execv(server.c_str(), const_cast<char* const*>(argv));
  return Error(PosixError("cannot start " + server, errno, "it is built and installed beside sweep")
                   .message());
}

int RunReport(const std::string& db, const std::string& study, const std::string& out) {
  Status st = WriteReport(db, study, out);
  if (!st.ok()) return Error(st.message());
  struct stat info;
  long long bytes = stat(out.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) : 0;
  printf("wrote %s (%.1f MB): open it in a browser, no server needed\n", EscapeControl(out).c_str(),
         static_cast<double>(bytes) / 1e6);
  return 0;
}

namespace {

class DashboardCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "dashboard", "Serve a live, read-only web dashboard of every study in a database");
    AddDbOption(c, &o_.db);
    c->add_option("--bind", o_.bind,
                  "HOST:PORT to listen on (port 0: any free one); beyond loopback a token "
                  "is required")
        ->capture_default_str();
    c->add_option("--token", o_.token,
                  "The token requests must carry (default beyond loopback: a new "
                  "one, printed); prefer $SWEEP_DASHBOARD_TOKEN, which ps does not show")
        ->envname("SWEEP_DASHBOARD_TOKEN");
    return c;
  }
  int Run(const CommandContext& context) override { return RunDashboard(context.self_exe, o_); }

 private:
  DashboardOptions o_;
};

class ReportCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "report", "Write a study's dashboard as one self-contained HTML file (no server needed)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name (optional when the database holds one)");
    c->add_option("-o,--output", out_, "The HTML file to write")->required();
    return c;
  }
  int Run(const CommandContext&) override { return RunReport(db_, study_, out_); }

 private:
  std::string db_ = "sweep.db", study_, out_;
};

}  // namespace

std::unique_ptr<Command> NewDashboardCommand() { return std::make_unique<DashboardCommand>(); }
std::unique_ptr<Command> NewReportCommand() { return std::make_unique<ReportCommand>(); }

}  // namespace sweep
