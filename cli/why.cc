// `sweep why`: explaining a trial from the decisions and events tables.
#include "cli/why.h"

#include <algorithm>
#include <optional>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/human_cells.h"
#include "cli/trial_ref.h"
#include "common/json.h"
#include "common/json_writer.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/values.h"
#include "dashboard/views.h"

namespace sweep {

namespace {
std::string Num(int64_t v) { return std::to_string(v); }
std::string Opt(const std::optional<int64_t>& v) { return v ? Num(*v) : "-"; }
std::string Opt(const std::optional<double>& v) { return v ? ScreenNumber(*v) : "-"; }

// Several objectives or constraints: a completed trial's objectives, the
// constraints it broke, and whether it is on the study's front; "" else.
Result<std::string> FrontLine(Reader& reader, const TrialDetail& d) {
  if (d.trial.status != TrialStatus::kCompleted) return std::string();
  ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(d.study.id));
  if (!TracksTrialValues(spec)) return std::string();
  ASSIGN_OR_RETURN(StudyFront f, reader.Front(d.study));
  for (size_t i = 0; i < f.trials.size(); ++i) {
    const FrontTrial& t = f.trials[i];
    if (t.id != d.trial.id) continue;
    std::string out = "objectives:";
    for (size_t k = 0; k < t.objectives.size(); ++k)
      out += std::string(k ? "," : "") + " " + f.objectives[k].metric() + " " +
             ScreenNumber(t.objectives[k]);
    for (size_t k = 0; k < t.violations.size(); ++k)
      if (!(t.violations[k] == 0)) out += "; breaks " + ConstraintText(f.constraints[k]);
    const bool on = f.feasible > 0 && std::find(f.front.begin(), f.front.end(), i) != f.front.end();
    out += t.violation == 0 ? (on ? "; on the Pareto front" : "; feasible, not on the front")
                            : "; infeasible";
    if (f.objectives.size() == 1 && on) out = out.substr(0, out.rfind(';')) + "; the best feasible";
    return EscapeControl(out) + "\n";
  }
  return std::string();
}
}  // namespace

Result<std::string> ExplainTrial(Reader& reader, int64_t id) {
  ASSIGN_OR_RETURN(TrialDetail d, reader.Trial(id));
  const TrialView& t = d.trial;
  std::string out = "trial " + Num(t.number) + " of study '" + EscapeControl(d.study.name) +
                    "': " + TrialStatusName(t.status) + " at step " + Opt(t.step) + " after " +
                    Num(t.attempts) + " attempt(s); " + EscapeControl(d.study.metric) + " = " +
                    Opt(t.value) + "\n";
  out += "params " + EscapeControl(d.params_json) + "\n";
  ASSIGN_OR_RETURN(std::string front, FrontLine(reader, d));
  out += front;
  if (!t.failure.empty())
    out += "failure: " + EscapeControl(t.failure, /*keep_newlines=*/true) + "\n";
  if (t.parent) {
    out +=
        "parent: trial " + Opt(t.parent_number) + ", copied at step " + Opt(t.parent_step) + "\n";
  }
  ASSIGN_OR_RETURN(std::vector<TrialView> kids, reader.Children(id));
  for (const TrialView& k : kids) {
    out += "child: trial " + Num(k.number) + ", copied at step " + Opt(k.parent_step) + "\n";
  }
  ASSIGN_OR_RETURN(std::vector<DecisionView> decisions, reader.Decisions(id));
  if (decisions.empty()) {
    out += "decisions: none (the algorithm let it run to its end)\n";
  } else {
    out += "decisions:\n";
    for (const DecisionView& dv : decisions)
      out += "  step " + Num(dv.step) + "  " + EscapeControl(dv.decision) + ": " +
             EscapeControl(dv.reason) + "\n";
  }
  ASSIGN_OR_RETURN(std::vector<EventView> events, reader.Events(id));
  if (!events.empty()) {
    out += "events:\n";
    for (const EventView& e : events)
      out += "  " + EscapeControl(e.kind) + ": " + EscapeControl(e.detail) + "\n";
  }
  return out;
}

Result<std::string> ExplainTrialJson(Reader& reader, int64_t id) {
  ASSIGN_OR_RETURN(TrialDetail d, reader.Trial(id));
  ASSIGN_OR_RETURN(std::vector<TrialView> kids, reader.Children(id));
  ASSIGN_OR_RETURN(std::vector<DecisionView> decisions, reader.Decisions(id));
  ASSIGN_OR_RETURN(std::vector<EventView> events, reader.Events(id));
  const TrialView& t = d.trial;
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).Key("number").Int(t.number);
  w.Key("study").String(d.study.name).Key("status").String(TrialStatusName(t.status));
  w.Key("step").Int(t.step).Key("attempts").Int(static_cast<int64_t>(t.attempts));
  w.Key("metric").String(d.study.metric).Key("value").Number(t.value);
  w.Key("params").Raw(ParamsToJson(t.params.params()));
  w.Key("failure");
  t.failure.empty() ? w.Null() : w.String(t.failure);
  w.Key("parent");
  if (t.parent) {
    w.BeginObject().Key("id").Int(*t.parent).Key("number").Int(t.parent_number);
    w.Key("step").Int(t.parent_step).EndObject();
  } else {
    w.Null();
  }
  w.Key("children").BeginArray();
  for (const TrialView& k : kids) {
    w.BeginObject().Key("id").Int(k.id).Key("number").Int(k.number);
    w.Key("step").Int(k.parent_step).EndObject();
  }
  w.EndArray();
  WriteDecisionsAndEvents(w, decisions, events);  // as the dashboard's trial page has them
  w.EndObject();
  return w.Take() + "\n";
}

Result<std::string> ExplainStudy(Reader& reader, const std::string& name, Format format) {
  ASSIGN_OR_RETURN(StudyRef ref, reader.ResolveStudy(name));
  ASSIGN_OR_RETURN(std::vector<EventView> events, reader.StudyEvents(ref.id));
  if (format == Format::kJson) {
    JsonWriter w;
    w.BeginObject();
    w.Key("study").String(ref.name);
    w.Key("events").BeginArray();
    for (const EventView& e : events) {
      w.BeginObject();
      w.Key("at").Number(e.at);
      w.Key("kind").String(e.kind);
      w.Key("detail").String(e.detail);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return w.Take() + "\n";
  }
  std::string out = "study '" + EscapeControl(ref.name) + "':\n";
  if (events.empty()) out += "  no events of its own\n";
  for (const EventView& e : events)
    out += "  " + LocalTime(e.at) + "  " + EscapeControl(e.kind) + ": " + EscapeControl(e.detail) +
           "\n";
  return out;
}

namespace {

class WhyCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("why", "Explain the decisions taken on a trial");
    AddDbOption(c, &db_);
    AddTrialArgument(c, &trial_)->required(false);
    c->add_option("--study", study_,
                  "Instead of a trial: the study's own events (paused, resumed, cancelled, its "
                  "share changed, interrupted, completed)");
    AddFormatOption(c, &format_, {"table", "json"});
    return c;
  }
  int Run(const CommandContext&) override {
    if (study_.empty() == trial_.empty()) {
      fprintf(stderr, "sweep: why: name a trial ([STUDY] TRIAL) or --study STUDY, not both\n");
      return kExitUsage;
    }
    return WithReader(db_, format_, [&](Reader& r, Format f) -> Result<std::string> {
      if (!study_.empty()) return ExplainStudy(r, study_, f);
      ASSIGN_OR_RETURN(TrialRef t, ResolveTrial(r, trial_));
      return f == Format::kJson ? ExplainTrialJson(r, t.id) : ExplainTrial(r, t.id);
    });
  }

 private:
  std::string db_ = "sweep.db", format_ = "table";
  std::vector<std::string> trial_;
  std::string study_;
};

}  // namespace

std::unique_ptr<Command> NewWhyCommand() { return std::make_unique<WhyCommand>(); }

}  // namespace sweep
