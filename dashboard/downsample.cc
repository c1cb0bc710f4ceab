// Largest-triangle-three-buckets downsampling (see downsample.h).
#include "dashboard/downsample.h"

#include <cmath>

namespace sweep {

std::vector<XY> Downsample(const std::vector<XY>& points, size_t max_points) {
  if (max_points < 3) max_points = 3;
  std::vector<XY> finite;
  finite.reserve(points.size());
  for (const XY& p : points)
    if (std::isfinite(p.y)) finite.push_back(p);
  if (finite.size() <= max_points) return finite;
  std::vector<XY> out;
  out.reserve(max_points);
  out.push_back(finite.front());
  // The points between the first and the last fall into max_points - 2
  // buckets of (nearly) equal counts.
  const size_t inner = finite.size() - 2, buckets = max_points - 2;
  auto bucket_begin = [&](size_t b) { return 1 + b * inner / buckets; };
  size_t picked = 0;
  for (size_t b = 0; b < buckets; ++b) {
    size_t begin = bucket_begin(b), end = bucket_begin(b + 1);
    // The next bucket's mean stands in for the pick not made yet.
    size_t nbegin = end, nend = b + 1 < buckets ? bucket_begin(b + 2) : finite.size();
    double mx = 0, my = 0;
    for (size_t i = nbegin; i < nend; ++i) {
      mx += finite[i].x;
      my += finite[i].y;
    }
    mx /= static_cast<double>(nend - nbegin);
    my /= static_cast<double>(nend - nbegin);
    const XY& a = finite[picked];
    double best = -1;
    size_t best_i = begin;
    for (size_t i = begin; i < end; ++i) {
      double area = std::fabs((a.x - mx) * (finite[i].y - a.y) - (a.x - finite[i].x) * (my - a.y));
      if (area > best) {
        best = area;
        best_i = i;
      }
    }
    out.push_back(finite[best_i]);
    picked = best_i;
  }
  out.push_back(finite.back());
  return out;
}

}  // namespace sweep
