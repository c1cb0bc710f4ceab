// Study files (YAML, JSON, protobuf text) through everything `sweep
// validate` and `sweep plan` do before a sweep runs: parse, validate, check
// the plan's size, build the algorithm and its plan, and draw a few points.
#include "bench/fuzz/fuzz_input.h"
#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/scheduler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > (1 << 20)) return 0;  // LoadStudyFile refuses over 1 MiB
  // The first byte picks the reader; the rest is the file.
  bool text_format = data[0] & 1;
  std::string file(reinterpret_cast<const char*>(data + 1), size - 1);
  auto parsed = text_format ? sweep::ParseStudyTextProto(file, "fuzz.textproto")
                            : sweep::ParseStudyYaml(file, "fuzz.yaml");
  if (!parsed.ok()) return 0;
  if (!sweep::ValidateStudy(&*parsed).ok()) return 0;
  if (!sweep::CheckPlan(parsed->study).ok()) return 0;
  (void)sweep::PlannedTrialCount(parsed->study, 0);  // builds the algorithm's plan
  auto space = sweep::SearchSpace::Create(parsed->study);
  if (!space.ok()) return 0;
  (void)space->Describe();
  auto sampler = sweep::MakeSampler(parsed->study, *space);
  for (int64_t i = 0; i < 4; ++i) (void)sampler->Point(i);
  return 0;
}
