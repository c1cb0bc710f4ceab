// The wire decoder, as the tuner and every runner call it on each frame: any
// bytes decode to an error or to an Envelope that encodes and decodes back
// to the same message.
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>

#include "bench/fuzz/fuzz_input.h"
#include "common/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto env = sweep::DecodeEnvelope(data, size);
  if (!env.ok()) return 0;
  std::string again = sweep::EncodeEnvelope(&*env);
  auto back = sweep::DecodeEnvelope(again.data(), again.size());
  sweep::fuzz::Check(back.ok(), "a decoded envelope re-encodes to one that decodes");
  // Field by field (maps as maps), a NaN equal to a NaN.
  google::protobuf::util::DefaultFieldComparator numbers;
  numbers.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer diff;
  diff.set_field_comparator(&numbers);
  sweep::fuzz::Check(diff.Compare(*env, *back), "an envelope survives a round trip");
  return 0;
}
