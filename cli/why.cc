// Explaining a trial from the decisions and events tables.
#include "cli/why.h"

#include <optional>

#include "cli/format.h"
#include "common/json.h"

namespace sweep {

namespace {
std::string Num(int64_t v) { return std::to_string(v); }
std::string Opt(const std::optional<int64_t>& v) { return v ? Num(*v) : "-"; }
std::string Opt(const std::optional<double>& v) { return v ? FormatDouble(*v) : "-"; }
}  // namespace

Result<std::string> ExplainTrial(Reader& reader, int64_t id) {
  ASSIGN_OR_RETURN(TrialDetail d, reader.Trial(id));
  const TrialView& t = d.trial;
  std::string out = "trial " + Num(id) + " (number " + Num(t.number) + ") of study '" +
                    EscapeControl(d.study.name) + "': " + EscapeControl(t.status) + " at step " +
                    Opt(t.step) + " after " + Num(t.attempts) + " attempt(s); " +
                    EscapeControl(d.study.metric) + " = " + Opt(t.value) + "\n";
  out += "params " + EscapeControl(d.params_json) + "\n";
  if (!t.failure.empty()) out += "failure: " + EscapeControl(t.failure) + "\n";
  if (t.parent) {
    out += "parent: trial " + Num(*t.parent) + " (number " + Opt(d.parent_number) +
           "), copied at step " + Opt(t.parent_step) + "\n";
  }
  ASSIGN_OR_RETURN(std::vector<TrialView> kids, reader.Children(id));
  for (const TrialView& k : kids) {
    out += "child: trial " + Num(k.id) + " (number " + Num(k.number) + "), copied at step " +
           Opt(k.parent_step) + "\n";
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

}  // namespace sweep
