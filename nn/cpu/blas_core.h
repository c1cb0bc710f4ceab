// Which OpenBLAS kernels a training process should ask for. OpenBLAS picks
// its kernels by the CPU's model, and an OpenBLAS older than the CPU (or a
// VM that hides the model, as the H200 machine's did) falls back to
// generic SSE3 kernels ("Prescott"), 3.2-3.9x slower for our MLP on an AVX2
// machine (bench/RESULTS.md) than the kernels it has. OpenBLAS reads OPENBLAS_CORETYPE only
// when it loads, so EnsureTrainingEnvironment (nn/backend.h) sets it before
// its one re-execution.
#pragma once

namespace sweep::nn::cpu {

// The core type to ask for, or nullptr to leave OpenBLAS's choice: a
// pre-AVX2 core picked on a CPU with AVX2 and FMA gets "Haswell" (AVX2
// kernels, which OpenBLAS also uses on Zen); a choice the user made in
// OPENBLAS_CORETYPE (`user_choice`, may be null) is never overridden.
const char* BlasCoreToRequest(const char* picked, bool avx2_and_fma, const char* user_choice);

// The same for this process: OpenBLAS's pick (nn::BlasCoreName), the
// CPU's features and the environment.
const char* BlasCoreToRequest();

}  // namespace sweep::nn::cpu
