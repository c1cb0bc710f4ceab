// The machine's measured SGEMM peak through OpenBLAS (large square
// matrices), the yardstick for bench/train's "fraction of peak".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                 float*, int);
void openblas_set_num_threads(int);
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  openblas_set_num_threads(threads);
  const int n = 2048;
  std::vector<float> a(static_cast<size_t>(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(101, 111, 111, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n * n * n / s / 1e9);
  }
  std::printf("{\"tool\": \"openblas-sgemm\", \"threads\": %d, \"gflops\": %.1f}\n", threads, best);
  return 0;
}
