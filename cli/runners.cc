// `sweep runners`: the pool of the service holding a database: each
// runner, what it runs and since when.
#include <cmath>

#include "cli/commands.h"
#include "cli/service_client.h"
#include "common/clock.h"

namespace sweep {

namespace {

class RunnersCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("runners", "List the runners of the service on a database");
    AddServiceOptions(c, &address_);
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    return c;
  }
  int Run(const CommandContext&) override {
    pb::ControlRequest request;
    request.set_list_runners(true);
    auto reply = CallService(address_, std::move(request));
    if (!reply.ok()) return Fail(reply.status());
    Table t;
    // for_s: how long it has run its trial (or, idle, since it joined);
    // idle_s: how long in all it had no trial since it joined.
    t.columns = {"name",  "host",  "device", "gpus",   "commands", "slurm_job",
                 "study", "trial", "for_s",  "idle_s", "state"};
    const double now = WallSeconds();
    auto tenths = [](double s) { return Cell(std::round(std::max(0.0, s) * 10) / 10); };
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
    auto format = ParseFormat(format_);
    if (!format.ok()) return Fail(format.status());
    fputs(FormatRows(t, *format).c_str(), stdout);
    return 0;
  }

 private:
  ServiceAddress address_;
  std::string format_ = "table";
};

}  // namespace

std::unique_ptr<Command> NewRunnersCommand() { return std::make_unique<RunnersCommand>(); }

}  // namespace sweep
