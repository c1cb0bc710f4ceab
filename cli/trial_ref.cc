// [STUDY] TRIAL from the command line to a trial of the database.
#include "cli/trial_ref.h"

#include <charconv>

namespace sweep {

Result<TrialRef> ResolveTrial(Reader& reader, const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2)
    return Status::InvalidArgument("name a trial: [STUDY] TRIAL, e.g. 7 or my-study 7");
  const std::string& text = args.back();
  int64_t number = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size() || number < 0) {
    return Status::InvalidArgument(
        "'" + text + "' is not a trial number (a trial is named by its number in its study, " +
        "as `sweep trials` shows it: [STUDY] TRIAL)");
  }
  TrialRef ref;
  auto study = reader.ResolveStudy(args.size() == 2 ? args[0] : "");
  if (!study.ok() && args.size() == 1 && study.status().IsInvalidArgument())
    return Status::InvalidArgument(study.status().message() + " (before the trial: STUDY " + text +
                                   ")");  // several studies
  ASSIGN_OR_RETURN(ref.study, std::move(study));
  ref.number = number;
  ASSIGN_OR_RETURN(ref.id, reader.TrialId(ref.study, number));
  return ref;
}

}  // namespace sweep
