// The train task's knobs, one entry each: the single schema that study
// validation, the train task and PBT read. Immutable after start-up;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

enum class KnobType { kInt, kFloat, kBool, kWord };

struct TrainKnob {
  std::string_view name;  // as in task.train and under `parameters`
  KnobType type;
  double min = 0, max = 0;              // kInt, kFloat: the accepted range
  std::vector<std::string_view> words;  // kWord: accepted words; empty: any
  double default_number = 0;            // kInt, kFloat, kBool (0 or 1)
  std::string_view default_word;        // kWord
  // Shapes the model or its optimizer state: a PBT child inherits it with the
  // weights (a checkpoint only loads into the same architecture); never
  // perturbed or resampled.
  bool inherited = false;
  // Where the default above is not the whole story (read by the docs).
  std::string_view default_note;
  // The models it shapes: kAllModels, kNetworks (mlp and cnn) or kTrees (gbdt).
  int models = 3;
  // Set in task.train only, never searched: why, for validation's message.
  std::string_view not_searched;
};

inline constexpr int kNetworks = 1, kTrees = 2, kAllModels = kNetworks | kTrees;
// The models a `model` word names: mlp, cnn and auto are networks, gbdt trees.
int ModelsOf(std::string_view model);

// Every knob, in the order the docs and error messages list them.
const std::vector<TrainKnob>& TrainKnobs();

// nullptr for a name that is not a knob.
const TrainKnob* FindTrainKnob(std::string_view name);

// The knob's default as a parameter value.
pb::Value TrainKnobDefault(const TrainKnob& knob);

// The value fixed in task.train, or nullopt where the field is unset.
std::optional<pb::Value> FixedTrainKnob(const pb::TrainTask& task, const TrainKnob& knob);

// "" when `v` is acceptable for the knob, else why not (for error messages,
// e.g. "unknown value 'rmsprop' (expected one of: sgd, adam, adamw)").
std::string TrainKnobValueError(const TrainKnob& knob, const pb::Value& v);

// "a, b, c": a knob's words, or the names of all knobs.
std::string TrainKnobWordList(const TrainKnob& knob);
std::string TrainKnobNameList();

}  // namespace sweep
