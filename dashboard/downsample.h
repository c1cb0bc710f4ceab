// Shortens a long series for a chart while keeping its shape: the
// largest-triangle-three-buckets method (Steinarsson 2013) keeps the first
// and last points and, from each bucket between, the point that spans the
// largest triangle with its neighbours' picks, so peaks and dips survive.
#pragma once

#include <cstddef>
#include <vector>

namespace sweep {

struct XY {
  double x = 0, y = 0;
};

// `points` in x order; returns at most `max_points` (>= 3) of them, all of
// them when there are no more than that. Points with a non-finite y are kept
// out of the buckets' picks but never invented.
std::vector<XY> Downsample(const std::vector<XY>& points, size_t max_points);

}  // namespace sweep
