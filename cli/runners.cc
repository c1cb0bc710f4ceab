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
    t.columns = {"name", "host", "device", "gpus", "commands", "study", "trial", "for_s"};
    const double now = WallSeconds();
    for (const pb::ServiceRunner& r : reply->runners()) {
      t.rows.push_back({r.name(), r.host(), r.device(), Cell(static_cast<int64_t>(r.gpus())),
                        Cell(std::string(r.commands() ? "yes" : "no")),
                        r.study().empty() ? Cell(std::monostate{}) : Cell(r.study()),
                        r.trial_number() < 0 ? Cell(std::monostate{}) : Cell(r.trial_number()),
                        Cell(std::round(std::max(0.0, now - r.since()) * 10) / 10)});
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
