#pragma once

#include <cstdint>

namespace unl {

// x[i] = exp(-gamma * max(x[i], 0)): squared distances to rbf kernel values, vectorised.
void neg_exp_scaled(double* x, int64_t n, double gamma);

}  // namespace unl
