// `sweep runners`: the pool of the service holding a database: each
// runner, what it runs and since when, and where it came from (its Slurm
// job); `--jobs` the launcher's runner jobs (pending ones too), `--launches`
// what the launcher did (from the database).
#include <cmath>

#include "cli/commands.h"
#include "cli/service_client.h"
#include "common/clock.h"
#include "storage/reader.h"

namespace sweep {

namespace {

class RunnersCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("runners", "List the runners of the service on a database");
    AddServiceOptions(c, &address_);
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    auto* jobs = c->add_flag("--jobs", jobs_,
                             "The runner jobs its launcher (--launcher slurm) keeps track of, "
                             "pending ones too");
    c->add_flag("--launches", launches_,
                "What its launcher did last: submissions, starts, cancellations, ends, refusals")
        ->excludes(jobs);
    return c;
  }
  int Run(const CommandContext&) override {
    if (launches_) return Launches();
    pb::ControlRequest request;
    request.set_list_runners(true);
    auto reply = CallService(address_, std::move(request));
    if (!reply.ok()) return Fail(reply.status());
    Table t;
    const double now = WallSeconds();
    auto tenths = [](double s) { return Cell(std::round(std::max(0.0, s) * 10) / 10); };
    if (jobs_) {
      t.columns = {"job", "gpus", "state", "reason", "for_s"};
      for (const pb::ServiceJob& j : reply->jobs())
        t.rows.push_back({j.job(), Cell(static_cast<int64_t>(j.gpus())), j.state(),
                          j.reason().empty() ? Cell(std::monostate{}) : Cell(j.reason()),
                          tenths(now - j.submitted_at())});
      return Print(t);
    }
    // for_s: how long it has run its trial (or, idle, since it joined);
    // idle_s: how long in all it had no trial since it joined.
    t.columns = {"name",  "host",  "device", "gpus",   "commands", "slurm_job",
                 "study", "trial", "for_s",  "idle_s", "state"};
    for (const pb::ServiceRunner& r : reply->runners()) {
      const bool busy = !r.study().empty();
      t.rows.push_back({r.name(), r.host(), r.device(), Cell(static_cast<int64_t>(r.gpus())),
                        Cell(std::string(r.commands() ? "yes" : "no")),
                        r.slurm_job().empty() ? Cell(std::monostate{}) : Cell(r.slurm_job()),
                        busy ? Cell(r.study()) : Cell(std::monostate{}),
                        r.trial_number() < 0 ? Cell(std::monostate{}) : Cell(r.trial_number()),
                        tenths(now - r.since()), tenths(r.idle_s()),
                        Cell(std::string(r.leaving() ? "leaving"
                                         : busy      ? "busy"
                                                     : "idle"))});
    }
    return Print(t);
  }

 private:
  int Print(const Table& t) {
    auto format = ParseFormat(format_);
    if (!format.ok()) return Fail(format.status());
    fputs(FormatRows(t, *format).c_str(), stdout);
    return 0;
  }

  int Launches() {
    return WithReader(address_.db, format_, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(std::vector<LaunchRecord> rows, r.RecentLaunches(kLaunchesShown));
      Table t;
      t.columns = {"at", "kind", "job", "gpus", "detail"};
      for (auto it = rows.rbegin(); it != rows.rend(); ++it)
        t.rows.push_back({Cell(it->at), it->kind,
                          it->job.empty() ? Cell(std::monostate{}) : Cell(it->job), it->gpus,
                          it->detail});
      return FormatRows(t, f);
    });
  }

  ServiceAddress address_;
  std::string format_ = "table";
  bool jobs_ = false;
  bool launches_ = false;
  static constexpr size_t kLaunchesShown = 50;
};

}  // namespace

std::unique_ptr<Command> NewRunnersCommand() { return std::make_unique<RunnersCommand>(); }

}  // namespace sweep
