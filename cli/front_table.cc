// `sweep best` for a study with several objectives or with constraints.
#include "cli/front_table.h"

#include <map>

#include "common/json.h"
#include "common/objectives.h"
#include "common/values.h"

namespace sweep {

namespace {

std::string Goals(const StudyFront& front) {
  std::string out;
  for (const pb::Objective& o : front.objectives)
    out += (out.empty() ? "" : ", ") +
           std::string(o.goal() == pb::GOAL_MAXIMIZE ? "maximize " : "minimize ") + o.metric();
  return out;
}

// What the table's first line says the rows are.
std::string Heading(const StudyRef& study, const StudyFront& front) {
  std::string out = "study '" + EscapeControl(study.name) + "': " + EscapeControl(Goals(front));
  std::string constraints;
  for (const auto& c : front.constraints)
    constraints += (constraints.empty() ? "" : ", ") + ConstraintText(c);
  if (!constraints.empty()) out += " subject to " + EscapeControl(constraints);
  const size_t n = front.front.size();
  const bool several = front.objectives.size() > 1;
  if (front.feasible == 0 && !front.constraints.empty()) {
    return out + "\nno trial is feasible (of " + std::to_string(front.trials.size()) +
           " completed); the least infeasible:\n";
  }
  if (!several) return out + "; its best feasible trial:\n";
  return out + "\nits Pareto front: " + std::to_string(n) + " of " +
         std::to_string(front.trials.size()) + " completed trials" +
         (front.constraints.empty() ? "" : " (" + std::to_string(front.feasible) + " feasible)") +
         " are non-dominated" + (n == 1 ? " (one trial is best in every objective)" : "") + ":\n";
}

}  // namespace

Result<std::string> FormatFront(Reader& r, const StudyRef& study, const StudyFront& front,
                                Format format, const std::vector<std::string>& params) {
  std::vector<TrialView> views;
  for (size_t i : front.front) {
    ASSIGN_OR_RETURN(TrialDetail d, r.Trial(front.trials[i].id));
    views.push_back(std::move(d.trial));
  }
  if (format == Format::kJson) {
    std::string out = "[";
    for (size_t k = 0; k < views.size(); ++k) {
      const FrontTrial& t = front.trials[front.front[k]];
      out += std::string(k ? ",\n " : "") + "{\"trial\": " + std::to_string(t.number) +
             ", \"objectives\": {";
      for (size_t j = 0; j < t.objectives.size(); ++j)
        out += std::string(j ? ", " : "") + JsonString(front.objectives[j].metric()) + ": " +
               JsonNumber(t.objectives[j]);
      out += "}";
      if (!front.constraints.empty()) {
        out += ", \"constraints\": {";
        for (size_t j = 0; j < t.constraint_values.size(); ++j)
          out += std::string(j ? ", " : "") + JsonString(front.constraints[j].metric()) + ": " +
                 (t.constraint_values[j] ? JsonNumber(*t.constraint_values[j]) : "null");
        out += "}, \"feasible\": " + std::string(t.violation == 0 ? "true" : "false") +
               ", \"violation\": " + JsonNumber(t.violation);
      }
      out += ", \"params\": " + ParamsToJson(views[k].params.params()) + "}";
    }
    return out + "]\n";
  }
  Table table;
  table.columns.push_back("trial");
  for (const auto& o : front.objectives) table.columns.push_back(o.metric());
  std::map<std::string, bool> shown;
  for (const auto& o : front.objectives) shown[o.metric()] = true;
  std::vector<size_t> constraint_columns;  // constraints whose metric is not an objective
  for (size_t j = 0; j < front.constraints.size(); ++j) {
    if (shown[front.constraints[j].metric()]) continue;
    shown[front.constraints[j].metric()] = true;
    table.columns.push_back(front.constraints[j].metric());
    constraint_columns.push_back(j);
  }
  if (front.feasible == 0 && !front.constraints.empty()) table.columns.push_back("violation");
  for (const auto& p : params) table.columns.push_back(p);
  for (size_t k = 0; k < views.size(); ++k) {
    const FrontTrial& t = front.trials[front.front[k]];
    std::vector<Cell> row{t.number};
    for (double v : t.objectives) row.push_back(v);
    for (size_t j : constraint_columns)
      row.push_back(t.constraint_values[j] ? Cell(*t.constraint_values[j]) : Cell());
    if (front.feasible == 0 && !front.constraints.empty()) row.push_back(t.violation);
    std::map<std::string, const pb::Value*> values;
    for (const auto& p : views[k].params.params()) values[p.name()] = &p.value();
    for (const auto& p : params) {
      auto it = values.find(p);
      row.push_back(it == values.end() ? Cell() : ParamCell(*it->second));
    }
    table.rows.push_back(std::move(row));
  }
  std::string rows = FormatRows(table, format);
  return format == Format::kTable ? Heading(study, front) + rows : rows;
}

}  // namespace sweep
