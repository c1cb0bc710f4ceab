// The resource a task runs (defaults match the task runners').
#include "search_spaces/task_resource.h"

namespace sweep {

int64_t TaskResource(const pb::Task& task) {
  if (task.has_synthetic()) return task.synthetic().has_steps() ? task.synthetic().steps() : 1;
  if (task.has_train()) return task.train().has_epochs() ? task.train().epochs() : 10;
  return 1;
}

}  // namespace sweep
