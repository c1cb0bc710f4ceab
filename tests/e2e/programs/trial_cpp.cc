// A command trial in C++ through clients/cpp/sweep_trial.h: loss at step s is
// (x - 0.3)^2 + 1/s, with checkpoints where the tuner decides.
#include <fstream>

#include "sweep_trial.h"

int main() {
  sweep_trial::Trial trial;
  double x = trial.Number("x", 0.5);
  // A text parameter with every kind of escape sweep writes: a quote, a
  // backslash, a tab, DEL and a C1 control (\u escapes), and a non-ASCII
  // letter.
  if (trial.Text("word", "") != "na\u00efve \"q\" \\ \t \x7f \u0085") return 5;
  int64_t start = trial.resume_step() + 1;
  if (!trial.resume_dir().empty()) {
    std::ifstream in(trial.resume_dir() + "/state.txt");
    int64_t saved = 0;
    in >> saved;
    if (saved != trial.resume_step()) return 4;  // the wrong checkpoint
  }
  for (int64_t step = start; step <= trial.steps(); ++step) {
    double loss = (x - 0.3) * (x - 0.3) + 1.0 / static_cast<double>(step);
    if (trial.ShouldCheckpoint(step)) {
      std::ofstream(trial.CheckpointFolder(step) + "/state.txt") << step << "\n";
      trial.Report(step, {{"loss", loss}}, true);
    } else {
      trial.Report(step, {{"loss", loss}});
    }
  }
  trial.Final({{"final_x", x}, {"odd \"name\"", 1}});
  return 0;
}
