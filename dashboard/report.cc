// Writes the HTML report (see report.h): the same paths the page asks the
// server for, answered by the same Api, embedded in the page.
#include "dashboard/report.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common/json.h"
#include "common/posix_error.h"
#include "dashboard/api.h"
#include "dashboard/assets.h"

namespace sweep {
namespace {

// JSON inside a <script> element: '<' appears only in strings, where
// \u003c means the same and cannot close the element or open a comment.
std::string ScriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

// The trials whose pages go in: all, or the best kReportTrialPages.
std::vector<int64_t> TrialPages(std::vector<TrialView> trials, bool maximize) {
  std::stable_sort(trials.begin(), trials.end(), [&](const TrialView& a, const TrialView& b) {
    bool av = a.status == TrialStatus::kCompleted && a.value,
         bv = b.status == TrialStatus::kCompleted && b.value;
    if (av != bv) return av;
    if (!av) return false;
    return maximize ? *a.value > *b.value : *a.value < *b.value;
  });
  std::vector<int64_t> ids;
  for (size_t i = 0; i < trials.size() && i < kReportTrialPages; ++i) ids.push_back(trials[i].id);
  return ids;
}

}  // namespace

Status WriteReport(const std::string& db, const std::string& study, const std::string& out) {
  ASSIGN_OR_RETURN(auto api, Api::Open(db));
  ASSIGN_OR_RETURN(StudyRef ref, api->reader().ResolveStudy(study));
  ASSIGN_OR_RETURN(auto trials, api->reader().Trials(ref, std::nullopt, 0));
  double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string base = "/api/studies/" + std::to_string(ref.id);
  std::vector<std::string> paths = {"/api/studies",       base,
                                    base + "/trials",     base + "/curves",
                                    base + "/importance", base + "/rungs",
                                    base + "/lineage",    base + "/front"};
  for (int64_t id : TrialPages(trials, ref.maximize))
    paths.push_back("/api/trials/" + std::to_string(id));
  std::string data = "{\"generated_at\":" + JsonNumber(now) +
                     ",\"study\":" + std::to_string(ref.id) +
                     ",\"trial_pages\":" + std::to_string(paths.size() - 8) +
                     ",\"trials\":" + std::to_string(trials.size()) + ",\"data\":{";
  for (size_t i = 0; i < paths.size(); ++i) {
    ASSIGN_OR_RETURN(std::string json, api->Get(paths[i], now));
    data += (i ? "," : "") + JsonString(paths[i]) + ":" + ScriptSafe(json);
  }
  data += "}}";
  std::string html =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>sweep report</title><link rel=\"icon\" href=\"data:,\"><style>\n" +
      std::string(FindAsset("style.css")->body) +
      "</style></head>\n<body><header><a href=\"#/\">sweep</a><span id=\"live\"></span>"
      "</header><main id=\"app\"></main>\n<script>window.SWEEP_REPORT = " +
      data + ";</script>\n";
  for (std::string_view name : ScriptOrder())
    html += "<script>\n" + std::string(FindAsset(name)->body) + "</script>\n";
  html += "</body></html>\n";
  std::string tmp = out + ".tmp" + std::to_string(getpid());
  FILE* f = fopen(tmp.c_str(), "wbx");
  if (!f) return PosixError("create", tmp, errno);
  bool written = fwrite(html.data(), 1, html.size(), f) == html.size();
  int err = errno;
  if (fclose(f) != 0 && written) written = false, err = errno;
  if (!written || rename(tmp.c_str(), out.c_str()) != 0) {
    if (written) err = errno;
    unlink(tmp.c_str());
    return PosixError("write", out, err);
  }
  return Status::Ok();
}

}  // namespace sweep
