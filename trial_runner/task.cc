// Task dispatch: one entry point per task kind in the study schema.
#include "trial_runner/task.h"

#include "trial_runner/command_task.h"
#include "trial_runner/synthetic.h"
#include "trial_runner/train_task.h"

namespace sweep {

TaskResult RunTask(const pb::Assign& assign, TaskContext* ctx) {
  if (assign.task().has_synthetic()) return RunSyntheticTask(assign, ctx);
  if (assign.task().has_train()) return RunTrainTask(assign, ctx);
  if (assign.task().has_command()) return RunCommandTask(assign, ctx);
  TaskResult r;
  r.outcome = pb::TRIAL_OUTCOME_FAILED;
  r.error = "this runner does not support the task kind in the study";
  return r;
}

bool RunsOnSocketThread(const pb::Assign& assign) { return IsInstantSyntheticTask(assign); }

}  // namespace sweep
