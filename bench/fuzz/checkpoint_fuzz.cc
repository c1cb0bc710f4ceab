// A training checkpoint as a runner reads it back to resume a trial (from
// its own tuner, which checksums it but cannot vouch for what a runner sent
// before). The fuzzer's bytes are the body after a valid header, with a
// valid CRC appended, so it explores the parse past the checksum.
#include <zlib.h>

#include <memory>

#include "bench/fuzz/fuzz_input.h"
#include "nn/trainer.h"

namespace {

using namespace sweep::nn;

struct Fixture {
  std::unique_ptr<Backend> backend = MakeCpuBackend(1);
  Splits data;
  std::unique_ptr<Trainer> trainer;
  std::string header;  // magic, version and architecture of a real checkpoint
  Fixture() {
    for (ImageSet* s : {&data.train, &data.validation, &data.test}) {
      s->n = 8;
      s->h = s->w = 8;
      s->pixels.assign(8 * 64, 100);
      s->labels.assign(8, 1);
    }
    TrainConfig c;
    c.model = "mlp";
    c.epochs = 1;
    c.batch_size = 4;
    c.hidden_units = 4;
    c.seed = 1;
    trainer = std::make_unique<Trainer>(c, backend.get(), &data);
    header = trainer->SaveCheckpoint().substr(0, 16);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* f = new Fixture;
  std::string in = f->header + std::string(reinterpret_cast<const char*>(data), size);
  uint32_t crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(in.data()), in.size()));
  in.append(reinterpret_cast<const char*>(&crc), 4);
  (void)f->trainer->LoadCheckpoint(in);
  return 0;
}
