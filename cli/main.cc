// `sweep`: one binary, CLI11 subcommands. Thin: parsing here, work in modules.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>

#include "cli/argv.h"
#include "cli/build_info.h"
#include "cli/dashboard.h"
#include "cli/format.h"
#include "cli/keys.h"
#include "cli/logs.h"
#include "cli/model_commands.h"
#include "cli/plan.h"
#include "cli/shell_help.h"
#include "cli/stop.h"
#include "cli/studies.h"
#include "cli/study_admin.h"
#include "cli/trial_ref.h"
#include "cli/validate.h"
#include "cli/watch.h"
#include "cli/why.h"
#include "common/log.h"
#include "nn/backend.h"
#include "search_spaces/validate.h"
#include "storage/reader.h"
#include "trial_runner/runner.h"
#include "tuner/tuner.h"

namespace {

using namespace sweep;

std::string SelfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

constexpr int kExitUsage = 2;

// The study's parameter names in its file's order: the trials table's
// columns, whichever rows it shows.
Result<std::vector<std::string>> ParameterOrder(Reader& r, const StudyRef& s) {
  ASSIGN_OR_RETURN(pb::Study spec, r.StudySpec(s.id));
  std::vector<std::string> names;
  for (const pb::Parameter& p : spec.parameters()) names.push_back(p.name());
  return names;
}

int Fail(const Status& st) {
  // Messages may quote a study file or a database: no raw escape sequences.
  // A validation failure lists one error per line: newlines stay.
  fprintf(stderr, "sweep: %s\n", EscapeControl(st.message(), /*keep_newlines=*/true).c_str());
  return 1;
}

int Plan(const std::string& path, const std::string& format) {  // format: checked by CLI11
  auto parsed = LoadStudyFile(path);
  if (!parsed.ok()) return Fail(parsed.status());
  Status st = ValidateStudy(&*parsed);
  if (!st.ok()) return Fail(st);
  auto out = FormatPlan(parsed->study, format == "json");
  if (!out.ok()) return Fail(out.status());
  fputs(out->c_str(), stdout);
  return 0;
}

struct QueryArgs {
  std::string db = "sweep.db";
  std::string study;
  std::string format = "table";
  std::string status;
  std::string sql;
  int top = 0;
};

int WithReader(const QueryArgs& a,
               const std::function<Result<std::string>(Reader&, Format)>& body) {
  auto format = ParseFormat(a.format);
  if (!format.ok()) return Fail(format.status());
  auto reader = Reader::Open(a.db);
  if (!reader.ok()) return Fail(reader.status());
  auto out = body(**reader, *format);
  if (!out.ok()) return Fail(out.status());
  fputs(out->c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  nn::StopIdleBlasThreads();
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    if (std::string(argv[i]) == "runner") nn::EnsureTrainingEnvironment(argv);
    break;
  }
  CLI::App app{"sweep: hyperparameter search on your own machines"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Debug logging");
  app.set_version_flag("--version",
                       std::string("sweep ") + SWEEP_VERSION + "\n" + SWEEP_BUILD_INFO);
  // -v after the subcommand too (sweep run study.yaml -v).
  app.fallthrough();

  TunerOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run (or resume) a study");
  run_cmd->add_option("study", run.study_path, "Study file (.yaml, .json or .pbtxt)")->required();
  run_cmd->add_option("--db", run.db_path, "Results database")
      ->envname("SWEEP_DB")
      ->capture_default_str();
  run_cmd->add_option("--bind", run.bind, "Endpoint the tuner listens on")->capture_default_str();
  run_cmd
      ->add_option("--local-runners", run.local_runners,
                   "Local runner processes (default: one per core)")
      ->check(CLI::Range(0, 4096));
  run_cmd
      ->add_option("--gpus", run.gpus,
                   "Start local runners on these CUDA devices, e.g. 0,1 (one set of "
                   "gpus_per_trial devices per runner)")
      ->delimiter(',');
  CLI::Option* trials_per_gpu =
      run_cmd
          ->add_option("--trials-per-gpu", run.trials_per_gpu,
                       "With --gpus: local runners (separate processes) per GPU set")
          ->check(CLI::Range(1, 64))
          ->capture_default_str();
  run_cmd->add_option("--keys", run.keys_dir,
                      "Folder with tuner.key and the *.pub keys of the runners it admits");
  run_cmd->add_option("--from", run.from,
                      "Start a new tpe study from another study's finished trials: DB[:STUDY]");
  run_cmd->add_flag("--insecure", run.insecure,
                    "No runner authentication: anyone who reaches --bind may join");
  run_cmd
      ->add_option("--max-connections", run.max_connections,
                   "Connections held open at most (default 4096, fewer where the process may "
                   "open fewer files)")
      ->check(CLI::Range(1, 1000000));
  run_cmd->add_option("--heartbeat-ms", run.heartbeat_ms, "Heartbeat interval")
      ->check(CLI::Range(50, 60000))
      ->capture_default_str();
  std::string progress = "auto";
  run_cmd->add_option("--progress", progress, "auto|live|plain")
      ->check(CLI::IsMember({"auto", "live", "plain"}));

  RunnerOptions runner;
  auto* runner_cmd = app.add_subcommand("runner", "Run trials for a tuner");
  runner_cmd->add_option("--connect", runner.endpoint, "Tuner endpoint, e.g. tcp://host:5555")
      ->required();
  runner_cmd->add_option("--name", runner.name, "Runner name (default: host-pid)");
  runner_cmd->add_option("--heartbeat-ms", runner.heartbeat_ms, "Heartbeat interval")
      ->check(CLI::Range(50, 60000));
  runner_cmd->add_option("--threads", runner.threads, "CPU threads per trial (default: all cores)")
      ->check(CLI::Range(0, 1024));
  runner_cmd->add_option("--give-up-after", runner.give_up_after_s,
                         "Exit after this many seconds without a tuner (0: never)");
  runner_cmd->add_option("--backend", runner.backend, "auto|cpu|cuda (auto: CUDA when visible)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  runner_cmd->add_option("--gpus", runner.gpus, "CUDA devices to use, e.g. 0,1 (default: all)")
      ->delimiter(',');
  std::string server_key_file, key_file;
  int key_fd = -1;
  runner_cmd->add_option("--server-key", server_key_file,
                         "The tuner's public key file (tuner.pub from `sweep keys new tuner`)");
  runner_cmd->add_flag("--allow-commands", runner.allow_commands,
                       "Run command trials (the study's own programs), only for a tuner "
                       "authenticated by --server-key");
  runner_cmd->add_option("--work-dir", runner.work_dir,
                         "Folder for command trials' files (default: $TMPDIR or /tmp)");
  runner_cmd->add_option("--key", key_file, "This runner's key file (NAME.key, mode 0600)");
  runner_cmd->add_option("--key-fd", key_fd, "Keys on an inherited descriptor (local runners)")
      ->group("");
  runner_cmd
      ->add_flag("--private-tuner", runner.private_tuner,
                 "--connect is the tuner's private ipc:// socket, in a folder only this user may "
                 "enter (local runners)")
      ->group("");
  runner_cmd
      ->add_option("--core-share-fd", runner.core_share_fd,
                   "The host's core share on an inherited descriptor (local runners)")
      ->group("");
  runner_cmd->add_option("--core-slot", runner.core_slot, "This runner's place in the core share")
      ->group("");
  runner_cmd->add_option("--core-slots", runner.core_slots, "Runners in the core share")->group("");

  auto* keys_cmd = app.add_subcommand("keys", "Make CURVE keys for a tuner and its runners");
  keys_cmd->require_subcommand(1);
  auto* keys_new_cmd = keys_cmd->add_subcommand("new", "Write NAME.key (secret) and NAME.pub");
  std::string key_name, key_dir = ".";
  keys_new_cmd->add_option("name", key_name, "tuner, or a runner's name")->required();
  keys_new_cmd->add_option("--dir", key_dir, "Folder for the key files")->capture_default_str();

  std::string validate_path;
  auto* validate_cmd =
      app.add_subcommand("validate", "Check a study file and print its search space");
  validate_cmd->add_option("study", validate_path, "Study file")->required();
  bool validate_print = false;
  validate_cmd->add_flag("--print", validate_print,
                         "Print the study as it will run, every default filled in (protobuf text)");

  QueryArgs q;
  auto add_db = [&](CLI::App* c) {
    c->add_option("--db", q.db, "Results database")->envname("SWEEP_DB")->capture_default_str();
  };
  std::string plan_path, plan_format = "table";
  auto* plan_cmd = app.add_subcommand(
      "plan", "Print what the algorithm will run (brackets, rungs, total steps)");
  plan_cmd->add_option("study", plan_path, "Study file")->required();
  plan_cmd->add_option("--format", plan_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));

  auto* studies_cmd = app.add_subcommand("studies", "List the studies in a database");
  add_db(studies_cmd);
  const auto formats = CLI::IsMember({"table", "csv", "json"});
  studies_cmd->add_option("--format", q.format, "table|csv|json")->check(formats);
  bool studies_names = false;  // for the shell completions: one name per line
  studies_cmd->add_flag("--names", studies_names, "Only the names, one per line")->group("");
  auto* trials_cmd = app.add_subcommand("trials", "List a study's trials");
  add_db(trials_cmd);
  trials_cmd->add_option("study", q.study, "Study name (optional when the database holds one)");
  trials_cmd->add_option("--status", q.status, "Only trials with this status")
      ->check(CLI::IsMember(TrialStatusNames()));
  trials_cmd->add_option("--top", q.top, "Only the K best completed trials")
      ->check(CLI::Range(1, INT_MAX));
  trials_cmd->add_option("--format", q.format, "table|csv|json")->check(formats);
  auto* best_cmd = app.add_subcommand("best", "Print the best trial");
  add_db(best_cmd);
  best_cmd->add_option("study", q.study, "Study name");
  best_cmd->add_option("--format", q.format, "table|csv|json")->check(formats);
  auto* query_cmd = app.add_subcommand("query", "Run a read-only SQL query");
  add_db(query_cmd);
  query_cmd->add_option("sql", q.sql, "One SQL statement")->required();
  // A query can have no end (a recursive WITH): the rows read are capped.
  size_t query_limit = 1000000;
  query_cmd->add_option("--limit", query_limit, "Read at most N rows (0: all of them)")
      ->capture_default_str();
  query_cmd->add_option("--format", q.format, "table|csv|json")->check(formats);
  auto* export_cmd = app.add_subcommand("export", "Export all trials of a study");
  add_db(export_cmd);
  export_cmd->add_option("study", q.study, "Study name");
  export_cmd->add_option("--format", q.format, "csv|json")
      ->required()
      ->check(CLI::IsMember({"csv", "json"}));

  std::vector<std::string> logs_trial;
  int logs_attempt = 0;
  bool logs_follow = false;
  auto* logs_cmd =
      app.add_subcommand("logs", "Print a command trial's log (its stdout and stderr)");
  add_db(logs_cmd);
  logs_cmd
      ->add_option("trial", logs_trial,
                   "[STUDY] TRIAL: the trial's number (the study's name when there are several)")
      ->required()
      ->expected(1, 2);
  logs_cmd->add_option("--attempt", logs_attempt, "Attempt (default: the latest)");
  logs_cmd->add_flag("--follow,-f", logs_follow, "Keep printing while the attempt runs");
  double stop_wait_s = 60;
  auto* stop_cmd = app.add_subcommand(
      "stop", "Stop the sweep running on a database, as Ctrl-C would (it resumes later)");
  add_db(stop_cmd);
  stop_cmd->add_option("study", q.study, "Study name (optional: the one that runs)");
  stop_cmd->add_option("--wait", stop_wait_s, "Seconds to wait for the tuner to stop")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  int gc_keep = 1;
  bool gc_dry = false;
  std::string gc_study;
  auto* gc_cmd = app.add_subcommand(
      "gc", "Remove the checkpoints of finished studies, keeping their best trials' models");
  add_db(gc_cmd);
  gc_cmd->add_option("study", gc_study, "Study name (default: every finished study)");
  gc_cmd->add_option("--keep-best", gc_keep, "Keep the checkpoints of this many best trials")
      ->check(CLI::Range(0, 1000000))
      ->default_val(1);
  gc_cmd->add_flag("--dry-run,-n", gc_dry, "Say what would be removed; change nothing");
  bool delete_yes = false;
  std::string delete_study;
  auto* delete_cmd =
      app.add_subcommand("delete", "Delete a study, its trials and their files (asks first)");
  add_db(delete_cmd);
  delete_cmd->add_option("study", delete_study, "Study name")->required();
  delete_cmd->add_flag("--yes,-y", delete_yes, "Do not ask: delete");
  std::string rename_from, rename_to;
  auto* rename_cmd = app.add_subcommand("rename", "Give a study a new name");
  add_db(rename_cmd);
  rename_cmd->add_option("study", rename_from, "The study's name now")->required();
  rename_cmd->add_option("name", rename_to, "Its new name")->required();
  WatchOptions watch;
  auto* watch_cmd = app.add_subcommand(
      "watch", "Follow a sweep that runs elsewhere (another terminal or machine), read-only");
  add_db(watch_cmd);
  watch_cmd->add_option("study", watch.study, "Study name (optional: the one that runs)");
  watch_cmd->add_option("--interval", watch.interval_s, "Seconds between reads")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  std::vector<std::string> why_trial;
  auto* why_cmd = app.add_subcommand("why", "Explain the decisions taken on a trial");
  add_db(why_cmd);
  why_cmd
      ->add_option("trial", why_trial,
                   "[STUDY] TRIAL: the trial's number (the study's name when there are several)")
      ->required()
      ->expected(1, 2);
  why_cmd->add_option("--format", q.format, "table|json")->check(CLI::IsMember({"table", "json"}));

  DashboardOptions dash;
  auto* dashboard_cmd = app.add_subcommand(
      "dashboard", "Serve a live, read-only web dashboard of every study in a database");
  dashboard_cmd->add_option("--db", dash.db, "Results database")
      ->envname("SWEEP_DB")
      ->capture_default_str();
  dashboard_cmd
      ->add_option("--bind", dash.bind,
                   "HOST:PORT to listen on (port 0: any free one); beyond loopback a token "
                   "is required")
      ->capture_default_str();
  dashboard_cmd
      ->add_option("--token", dash.token,
                   "The token requests must carry (default beyond loopback: a new "
                   "one, printed); prefer $SWEEP_DASHBOARD_TOKEN, which ps does not show")
      ->envname("SWEEP_DASHBOARD_TOKEN");
  std::string report_out;
  auto* report_cmd = app.add_subcommand(
      "report", "Write a study's dashboard as one self-contained HTML file (no server needed)");
  add_db(report_cmd);
  report_cmd->add_option("study", q.study, "Study name (optional when the database holds one)");
  report_cmd->add_option("-o,--output", report_out, "The HTML file to write")->required();

  ModelCommands model;  // export-model, predict
  AddModelCommands(&app, &model);
  std::string completion_shell;
  auto* completion_cmd = app.add_subcommand(
      "completion", "Print the shell completion script for bash or zsh (see docs/cli.md)");
  completion_cmd->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  auto* man_cmd = app.add_subcommand("man", "Print the man page (roff), made from this help");

  std::vector<char*> args = DbAfterCommand(argc, argv);
  try {
    app.parse(static_cast<int>(args.size() - 1), args.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, as POSIX
    // tools do (CLI11's own codes are 100 and up).
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (run_cmd->parsed() && trials_per_gpu->count() > 0 && run.gpus.empty()) {
    fprintf(stderr,
            "sweep: --trials-per-gpu does nothing without --gpus (it is how many trials "
            "share each GPU set); add --gpus LIST or drop it\n");
    return kExitUsage;
  }
  if (verbose) SetLogLevel(LogLevel::kDebug);

  if (run_cmd->parsed()) {
    run.exe = SelfExe(argv[0]);
    run.progress = progress == "live" ? 1 : progress == "plain" ? 0 : -1;
    return RunTuner(run);
  }
  if (runner_cmd->parsed()) {
    Status st = LoadRunnerKeys(server_key_file, key_file, key_fd, &runner);
    if (!st.ok()) return Fail(st);
    return RunRunner(runner);
  }
  if (keys_new_cmd->parsed()) return KeysNew(key_name, key_dir);
  if (completion_cmd->parsed()) {
    fputs((completion_shell == "bash" ? BashCompletion(app) : ZshCompletion(app)).c_str(), stdout);
    return 0;
  }
  if (man_cmd->parsed()) {
    fputs(ManPage(app, SWEEP_VERSION).c_str(), stdout);
    return 0;
  }
  if (validate_cmd->parsed()) {
    auto out = ValidateReport(validate_path, validate_print);
    if (!out.ok()) return Fail(out.status());
    fputs(out->c_str(), stdout);
    return 0;
  }
  if (plan_cmd->parsed()) return Plan(plan_path, plan_format);
  if (studies_cmd->parsed()) {
    return WithReader(q, [&](Reader& r, Format f) -> Result<std::string> {
      return studies_names ? StudyNames(r) : FormatStudies(r, q.db, f);
    });
  }
  if (trials_cmd->parsed() || export_cmd->parsed()) {
    return WithReader(q, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(StudyRef s, r.ResolveStudy(q.study));
      const std::optional<TrialStatus> status = ParseTrialStatus(q.status);
      ASSIGN_OR_RETURN(auto trials, r.Trials(s, status, q.top));
      if (trials.empty() && f == Format::kTable && (status || q.top > 0)) {
        // Say which filter left nothing.
        std::string why = "no trial of study '" + s.name + "'";
        if (status) why += std::string(" has status ") + TrialStatusName(*status);
        if (q.top > 0) {
          why += std::string(status ? ", and" : "") + " --top ranks completed trials only" +
                 (!status || *status == TrialStatus::kCompleted ? ": none has completed yet" : "");
        }
        return "(no rows: " + EscapeControl(why) + ")\n";
      }
      ASSIGN_OR_RETURN(std::vector<std::string> order, ParameterOrder(r, s));
      return FormatTrials(trials, f, s.metric, order);
    });
  }
  if (best_cmd->parsed()) {
    return WithReader(q, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(StudyRef s, r.ResolveStudy(q.study));
      ASSIGN_OR_RETURN(auto trials, r.Trials(s, std::nullopt, 1));
      if (trials.empty())
        return Status::NotFound("study '" + s.name + "' has no completed trial yet");
      ASSIGN_OR_RETURN(std::vector<std::string> order, ParameterOrder(r, s));
      if (f == Format::kJson) return TrialJson(trials[0]) + "\n";
      std::string table = FormatTrials(trials, f, s.metric, order);
      // For people, what "best" means: the study's goal and metric.
      if (f == Format::kTable)
        table = "study '" + EscapeControl(s.name) +
                "': " + (s.maximize ? "maximize " : "minimize ") + EscapeControl(s.metric) +
                "; its best completed trial:\n" + table;
      return table;
    });
  }
  if (dashboard_cmd->parsed()) return RunDashboard(SelfExe(argv[0]), dash);
  if (report_cmd->parsed()) return RunReport(q.db, q.study, report_out);
  if (stop_cmd->parsed()) return StopSweep(q.db, q.study, stop_wait_s);
  if (int rc = RunModelCommands(SelfExe(argv[0]), model); rc >= 0) return rc;
  if (delete_cmd->parsed()) return DeleteStudyCommand(q.db, delete_study, delete_yes);
  if (gc_cmd->parsed()) return GcCommand(q.db, gc_study, gc_keep, gc_dry);
  if (rename_cmd->parsed()) return RenameStudyCommand(q.db, rename_from, rename_to);
  if (watch_cmd->parsed()) {
    watch.db = q.db;
    return WatchStudy(watch);
  }
  if (logs_cmd->parsed()) return PrintTrialLog(q.db, logs_trial, logs_attempt, logs_follow);
  if (why_cmd->parsed()) {
    return WithReader(q, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(TrialRef t, ResolveTrial(r, why_trial));
      return f == Format::kJson ? ExplainTrialJson(r, t.id) : ExplainTrial(r, t.id);
    });
  }
  if (query_cmd->parsed()) {
    auto cut = [&] {
      fprintf(stderr,
              "sweep: the query has more than %zu rows; these are the first (--limit N for "
              "more, 0 for all)\n",
              query_limit);
    };
    return WithReader(q, [&](Reader& r, Format f) -> Result<std::string> {
      if (f == Format::kTable) {  // held: the columns' widths need every row
        ASSIGN_OR_RETURN(Table t, r.Query(q.sql, query_limit));
        if (t.truncated) cut();
        return FormatRows(t, f);
      }
      // CSV and JSON are written as SQLite steps: nothing is held.
      std::vector<std::string> columns;
      bool first = true;
      auto put = [](const std::string& s) { fwrite(s.data(), 1, s.size(), stdout); };
      ASSIGN_OR_RETURN(bool truncated,
                       r.QueryRows(
                           q.sql, query_limit,
                           [&](const std::vector<std::string>& c) {
                             columns = c;
                             put(StreamHead(columns, f));
                             return Status::Ok();
                           },
                           [&](std::vector<Cell> row) {
                             put(StreamRow(columns, row, f, first));
                             first = false;
                             // A closed pipe ends the query (as SIGPIPE would).
                             return ferror(stdout) ? Status::Unavailable("the output was closed")
                                                   : Status::Ok();
                           }));
      put(StreamEnd(f));
      if (fflush(stdout) != 0 || ferror(stdout))
        return Status::Unavailable("could not write the rows (a full disk or a closed pipe?)");
      if (truncated) cut();
      return std::string();
    });
  }
  return 0;
}
