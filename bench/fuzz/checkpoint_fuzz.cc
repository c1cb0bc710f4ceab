// A training checkpoint as a runner reads it back to resume a trial (from
// its own tuner, which checksums it but cannot vouch for what a runner sent
// before). Two modes, by the first byte: 'P' patches a real checkpoint of
// the target's model (a 4-byte offset, a flag byte, then bytes written over
// its body there), so the deep parse is reached; anything else is the
// whole body after a valid header. A valid CRC is appended either way, so the
// parse past the checksum is explored. A checkpoint that loads must save back
// to the same bytes.
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
  std::string header, body;  // of a real checkpoint: magic, version, architecture; the rest
  Fixture() {
    for (Examples* s : {&data.train, &data.validation, &data.test}) {
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
    std::string real = trainer->SaveCheckpoint();
    header = real.substr(0, 16);
    body = real.substr(16, real.size() - 20);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* f = new Fixture;
  std::string body;
  if (size >= 6 && data[0] == 'P') {
    // 'P', a 4-byte offset, a flag byte (1: cut after the patch), the patch.
    uint32_t at;
    std::memcpy(&at, data + 1, 4);
    bool cut = data[5] & 1;
    data += 6, size -= 6;
    body = f->body;
    size_t offset = at % (body.size() + 1);
    body.replace(offset, std::min(size, body.size() - offset), reinterpret_cast<const char*>(data),
                 size);
    if (cut) body.resize(offset + size);
  } else {
    body.assign(reinterpret_cast<const char*>(data), size);
  }
  std::string in = f->header + body;
  uint32_t crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(in.data()), in.size()));
  in.append(reinterpret_cast<const char*>(&crc), 4);
  if (f->trainer->LoadCheckpoint(in).ok())
    sweep::fuzz::Check(f->trainer->SaveCheckpoint() == in, "a checkpoint that loads saves back");
  return 0;
}
