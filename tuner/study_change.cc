// Differences between two study definitions, field by field.
#include "tuner/study_change.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <set>

#include "common/json.h"
#include "tuner/scheduler.h"

namespace sweep {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Difference {
  std::string path;  // "parameters.lr.max"
  std::string from, to;
};

// Changes to how trials run: they leave every recorded result valid.
const std::set<std::string>& RunOnly() {
  static const std::set<std::string> paths = {"algorithm.max_concurrent",
                                              "algorithm.max_retries",
                                              "algorithm.fail_fast",
                                              "algorithm.time_limit.after",
                                              "algorithm.time_limit.hard",
                                              "task.stall_timeout_s",
                                              "task.synthetic.step_ms",
                                              "task.train.threads",
                                              "task.train.data_dir",
                                              "task.command.timeout_s",
                                              "task.command.grace_s",
                                              "resources.max_checkpoint_mb",
                                              "resources.checkpoint_budget_mb",
                                              "resources.checkpoint_every_s"};
  return paths;
}

// Limits that may only rise: more trials of the same search.
bool RaiseOnly(const std::string& path) {
  return path == "algorithm.max_trials" || path == "algorithm.budget";
}

std::string Text(const Message& m) {
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  std::string out;
  p.PrintToString(m, &out);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return "{" + out + "}";
}

std::string FieldText(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  if (!f->is_repeated() && !r->HasField(m, f) && f->has_presence()) return "(unset)";
  std::string out;
  google::protobuf::TextFormat::Printer p;
  p.SetSingleLineMode(true);
  p.PrintFieldValueToString(m, f, index, &out);
  return out;
}

void Walk(const Message& a, const Message& b, const std::string& prefix,
          std::vector<Difference>* out);

// `parameters` are compared by name, so a difference names the parameter.
void WalkParameters(const pb::Study& a, const pb::Study& b, std::vector<Difference>* out) {
  std::vector<std::string> names_a, names_b;
  for (const auto& p : a.parameters()) names_a.push_back(p.name());
  for (const auto& p : b.parameters()) names_b.push_back(p.name());
  for (const auto& p : a.parameters()) {
    const pb::Parameter* q = nullptr;
    for (const auto& x : b.parameters())
      if (x.name() == p.name()) q = &x;
    if (!q)
      out->push_back({"parameters." + p.name(), Text(p), "(removed)"});
    else
      Walk(p, *q, "parameters." + p.name(), out);
  }
  for (const auto& q : b.parameters()) {
    if (std::find(names_a.begin(), names_a.end(), q.name()) == names_a.end())
      out->push_back({"parameters." + q.name(), "(none)", Text(q)});
  }
  if (out->empty() && names_a != names_b) {
    std::string x, y;
    for (const auto& n : names_a) x += (x.empty() ? "" : ", ") + n;
    for (const auto& n : names_b) y += (y.empty() ? "" : ", ") + n;
    out->push_back({"parameters (their order)", x, y});
  }
}

void Walk(const Message& a, const Message& b, const std::string& prefix,
          std::vector<Difference>* out) {
  const auto* d = a.GetDescriptor();
  const Reflection* ra = a.GetReflection();
  const Reflection* rb = b.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    std::string path = (prefix.empty() ? "" : prefix + ".") + std::string(f->name());
    if (path == "parameters") {
      std::vector<Difference> params;
      WalkParameters(static_cast<const pb::Study&>(a), static_cast<const pb::Study&>(b), &params);
      out->insert(out->end(), params.begin(), params.end());
      continue;
    }
    if (f->is_repeated()) {
      // A map's entries come in no fixed order: compared sorted.
      auto entries = [&](const Message& m, const Reflection* r) {
        std::vector<std::string> v;
        for (int k = 0; k < r->FieldSize(m, f); ++k) v.push_back(FieldText(m, f, k));
        if (f->is_map()) std::sort(v.begin(), v.end());
        std::string text;
        for (const auto& e : v) text += (text.empty() ? "" : ", ") + e;
        return "[" + text + "]";
      };
      std::string x = entries(a, ra), y = entries(b, rb);
      if (x != y) out->push_back({path, x, y});
      continue;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      bool ha = ra->HasField(a, f), hb = rb->HasField(b, f);
      if (f->containing_oneof() && ha != hb) {
        out->push_back({path, ha ? Text(ra->GetMessage(a, f)) : "(none)",
                        hb ? Text(rb->GetMessage(b, f)) : "(none)"});
        continue;
      }
      Walk(ra->GetMessage(a, f), rb->GetMessage(b, f), path, out);
      continue;
    }
    std::string x = FieldText(a, f, -1), y = FieldText(b, f, -1);
    if (x != y) out->push_back({path, x, y});
  }
}

}  // namespace

Result<std::vector<std::string>> CompareStudies(const pb::Study& stored, const pb::Study& now,
                                                bool results) {
  std::vector<Difference> diffs;
  Walk(stored, now, "", &diffs);
  std::vector<std::string> accepted, refused;
  for (const Difference& x : diffs) {
    std::string line = x.path + ": " + x.from + " -> " + x.to;
    const bool what_is_measured =
        x.path.rfind("objective.", 0) == 0 || x.path.rfind("task.", 0) == 0;
    if (RunOnly().count(x.path) || (!results && what_is_measured)) {
      accepted.push_back(line);

    } else if (RaiseOnly(x.path) && TraitsOf(now).decisions_depend_on_max_trials &&
               x.path == "algorithm.max_trials") {
      // PBT decided its past generations knowing the cap ("not exploited:
      // max_trials reached"); replayed with another, they would differ.
      refused.push_back(line +
                        " (PBT decided its generations so far by this cap; a new cap "
                        "would change those decisions)");
    } else if (RaiseOnly(x.path)) {
      const pb::Algorithm& a = stored.algorithm();
      const pb::Algorithm& b = now.algorithm();
      bool budget = x.path == "algorithm.budget";
      bool was = budget ? a.has_budget() : a.has_max_trials();
      bool is = budget ? b.has_budget() : b.has_max_trials();
      int64_t from = budget ? a.budget() : a.max_trials();
      int64_t to = budget ? b.budget() : b.max_trials();
      if (was && is && to > from)
        accepted.push_back(line);
      else
        refused.push_back(line +
                          " (it may only be raised, from a value to a larger one; "
                          "`sweep stop` ends a sweep early)");
    } else {
      refused.push_back(line);
    }
  }
  if (refused.empty()) return accepted;
  std::string msg = "study '" + now.name() +
                    "' already exists in this database with a different definition, and these "
                    "changes would make its recorded trials mean something else:";
  for (const auto& r : refused) msg += "\n  " + r;
  msg +=
      "\nResume with the original study file, or start over under another study name or --db "
      "(`sweep delete " +
      now.name() +
      "` removes this one). A study resumes with changes only to: algorithm.max_trials and "
      "algorithm.budget (raised), algorithm.max_concurrent, algorithm.max_retries, "
      "algorithm.fail_fast, algorithm.time_limit, "
      "task.stall_timeout_s, task.synthetic.step_ms, task.train.threads, task.train.data_dir, "
      "task.command.timeout_s, task.command.grace_s, resources.max_checkpoint_mb and "
      "resources.checkpoint_budget_mb.";
  return Status::FailedPrecondition(msg);
}

}  // namespace sweep
