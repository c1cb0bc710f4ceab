// Realistic SWEEP_REPORT payloads, as Python's json.dumps writes them
// (", " and ": " separators; NaN/Infinity for non-finite floats).
#pragma once

#include <string>
#include <vector>

namespace bench {
struct Line {
  const char* name;
  std::string text;
};

inline std::vector<Line> ReportLines() {
  return {
      {"small (5 fields)",
       R"({"step": 3, "val_loss": 0.2513708472251892, "accuracy": NaN, "lr": 0.0003, "checkpoint": true})"},
      {"medium (12 fields)",
       R"({"step": 1200, "epoch": 4, "train_loss": 0.18734216690063477, "val_loss": 0.2513708472251892, )"
       R"("val_accuracy": 0.9123000502586365, "grad_norm": Infinity, "lr": 0.00029999999999999997, )"
       R"("momentum": 0.9, "weight_decay": 5e-05, "throughput": 1523.4377, "loss_scale": -Infinity, "checkpoint": false})"},
      {"large (20 fields, nested)",
       R"({"step": 25000, "epoch": 17, "phase": "val", "train_loss": 0.04126539453864098, )"
       R"("val_loss": 0.3346021771430969, "val_accuracy": 0.9388999938964844, "top5": 0.9981, )"
       R"("per_class_acc": [0.95, 0.97, 0.91, 0.88, 0.93, 0.92, 0.96, 0.94, 0.97, 0.95], )"
       R"("confusion": [[981, 0, 1], [0, 1129, 3], [6, 2, 1004]], "grad_norm": NaN, )"
       R"("lr": 1.2345678901234567e-05, "ema_loss": 0.041002, "gpu_mem_gb": 13.75, )"
       R"("wall_s": 8412.023, "samples_per_s": 2291.5, "bleu": null, "extra": {"note": "ok", "k": [1, 2]}, )"
       R"("param_count": 11689512, "loss_scale": 65536.0, "checkpoint": true})"},
  };
}
}  // namespace bench
