// Rebuilding a trial's network from the database and its checkpoint.
#include "cli/trial_model.h"

#include <charconv>

#include "nn/data/data_source.h"
#include "storage/checkpoint_files.h"
#include "trial_runner/fold_checkpoint.h"
#include "trial_runner/train_task.h"

namespace sweep {

Result<TrialRef> ResolveModelTrial(Reader& reader, const std::vector<std::string>& args) {
  bool last_is_number = false;
  if (!args.empty()) {
    int64_t n;
    const std::string& s = args.back();
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    last_is_number = ec == std::errc() && end == s.data() + s.size();
  }
  if (last_is_number) return ResolveTrial(reader, args);
  if (args.size() > 1) return Status::InvalidArgument("name a trial: [STUDY] [TRIAL]");
  ASSIGN_OR_RETURN(StudyRef study, reader.ResolveStudy(args.empty() ? "" : args[0]));
  ASSIGN_OR_RETURN(std::vector<TrialView> best, reader.Trials(study, TrialStatus::kCompleted, 1));
  if (best.empty()) {
    return Status::NotFound("study '" + study.name +
                            "' has no completed trial yet; name one: [STUDY] TRIAL");
  }
  TrialRef ref;
  ref.study = study;
  ref.number = best[0].number;
  ref.id = best[0].id;
  return ref;
}

Result<std::unique_ptr<TrialModel>> LoadTrialModel(Reader& reader, const TrialRef& ref) {
  auto m = std::make_unique<TrialModel>();
  m->ref = ref;
  ASSIGN_OR_RETURN(m->study, reader.StudySpec(ref.study.id));
  const std::string name =
      "trial " + std::to_string(ref.number) + " of study '" + ref.study.name + "'";
  if (!m->study.task().has_train()) {
    return Status::FailedPrecondition(name +
                                      " did not train a network (only train tasks have one)");
  }
  ASSIGN_OR_RETURN(TrialDetail detail, reader.Trial(ref.id));
  ASSIGN_OR_RETURN(std::optional<CheckpointView> ck, reader.Checkpoint(ref.id));
  if (!ck) {
    return Status::NotFound(name + " has no checkpoint: it never finished an epoch (" +
                            TrialStatusName(detail.trial.status) + ")");
  }
  const std::string& path = ck->path;
  ASSIGN_OR_RETURN(std::string bytes, ReadCheckpointFile(path));
  if (static_cast<int64_t>(Checksum(bytes)) != ck->checksum)
    return Status::Corruption(path + ": does not match the checksum the tuner committed for it");
  m->step = ck->step;

  // The trial's assignment, as the tuner sent it (tuner/study_run.cc).
  pb::Assign a;
  a.set_seed(m->study.seed());
  *a.mutable_task() = m->study.task();
  *a.mutable_params() = detail.trial.params.params();
  TrialSetup setup;
  ASSIGN_OR_RETURN(nn::TrainConfig config, TrainConfigFor(a, &setup));
  config.data_parallel = 1;
  ASSIGN_OR_RETURN(nn::Splits pool, nn::LoadData(setup.data));
  // Only the kept model is rebuilt: of a cross-validated trial, the one
  // that trained on the whole pool, the first of its checkpoint's models.
  ASSIGN_OR_RETURN(m->data, KeptSplitsFor(setup, pool, config.seed));
  auto parts = UnpackCheckpoints(bytes, setup.models());
  if (!parts.ok()) return Status::Corruption(path + ": " + parts.status().message());
  bytes = std::move(parts->front());
  ResolveModel(m->data, &config);
  if (config.model == "gbdt") {
    ASSIGN_OR_RETURN(m->trees, nn::Booster::ForPrediction(m->data));
    Status st = m->trees->LoadCheckpoint(bytes);
    if (!st.ok()) return Status::Corruption(path + ": " + st.message());
    return m;
  }
  m->backend = nn::MakeCpuBackend(1);
  m->trainer = std::make_unique<nn::Trainer>(config, m->backend.get(), &m->data);
  Status st = m->trainer->LoadCheckpoint(bytes);
  if (!st.ok()) return Status::Corruption(path + ": " + st.message());
  return m;
}

Result<std::unique_ptr<TrialModel>> LoadTrialModel(const std::string& db,
                                                   const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, Reader::Open(db));
  ASSIGN_OR_RETURN(TrialRef ref, ResolveModelTrial(*reader, args));
  return LoadTrialModel(*reader, ref);
}

}  // namespace sweep
