#include "metal/metal_routes.h"

#include <algorithm>
#include <cmath>

#include "metal/metal_tables.h"

namespace jax_apple_fft::metal_routes {

namespace {

// `radices` followed by n's in the kernels' order: 16s where `sixteens` (the
// radix-2^k kernel's), else 8s; then 4, 2, 9s and odd primes ascending; or
// nothing if n has a prime factor above 13.
std::optional<std::vector<std::uint32_t>> radices_after(std::vector<std::uint32_t> radices,
                                                        std::uint64_t n, bool sixteens) {
  if (sixteens) {
    while (n % 16 == 0) radices.push_back(16), n /= 16;
  }
  while (n % 8 == 0) radices.push_back(8), n /= 8;
  if (n % 4 == 0) radices.push_back(4), n /= 4;
  if (n % 2 == 0) radices.push_back(2), n /= 2;
  while (n % 9 == 0) radices.push_back(9), n /= 9;
  for (std::uint32_t p : {3u, 5u, 7u, 11u, 13u}) {
    while (n % p == 0) radices.push_back(p), n /= p;
  }
  if (n != 1) return std::nullopt;
  return radices;
}

}  // namespace

std::optional<std::vector<std::uint32_t>> stockham_radices(std::uint64_t n) {
  return radices_after({}, n, (n & (n - 1)) == 0);
}

bool fits_one_group(std::uint64_t n) {
  return n <= kThreadgroupElements && stockham_radices(n).has_value();
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> four_step_split(std::uint64_t n,
                                                                       std::uint64_t longest) {
  if (n > longest * longest) return std::nullopt;
  for (std::uint64_t n1 = std::uint64_t(std::sqrt(double(n))) + 1; n1 >= 2; --n1) {
    if (n % n1 != 0) continue;
    if (n / n1 > longest) break;
    if (fits_one_group(n1) && fits_one_group(n / n1)) {
      return std::pair{std::uint32_t(n1), std::uint32_t(n / n1)};
    }
  }
  return std::nullopt;
}

std::optional<std::array<std::uint32_t, 3>> three_pass_split(std::uint64_t n,
                                                            std::uint64_t longest) {
  std::optional<std::array<std::uint32_t, 3>> best;
  for (std::uint64_t n1 = 2; n1 * n1 * n1 <= n; ++n1) {
    if (n % n1 != 0 || !fits_one_group(n1)) continue;
    const auto rest = four_step_split(n / n1, longest);
    if (rest && rest->first >= n1) best = {std::uint32_t(n1), rest->first, rest->second};
  }
  return best;
}

std::optional<std::uint64_t> bluestein_length(std::uint64_t n) {
  std::uint64_t power_of_two = 1;
  while (power_of_two < 2 * n - 1) power_of_two *= 2;
  auto smooth = [](std::uint64_t m) {
    for (std::uint64_t p : {2, 3, 5, 7}) {
      while (m % p == 0) m /= p;
    }
    return m == 1;
  };
  auto takes = [](std::uint64_t m) { return fits_one_group(m) || four_step_split(m).has_value(); };
  std::uint64_t best = power_of_two;
  for (std::uint64_t m = 2 * n - 1; 5 * m < 4 * power_of_two; ++m) {
    if (smooth(m) && takes(m)) {
      best = m;
      break;
    }
  }
  if (!takes(best)) return std::nullopt;
  return best;
}

namespace {

std::vector<std::uint64_t> prime_factors(std::uint64_t n) {
  std::vector<std::uint64_t> primes;
  for (std::uint64_t p = 2; p * p <= n; ++p) {
    if (n % p != 0) continue;
    primes.push_back(p);
    while (n % p == 0) n /= p;
  }
  if (n > 1) primes.push_back(n);
  return primes;
}

}  // namespace

std::optional<std::uint64_t> rader_generator(std::uint64_t n) {
  if (n < 3) return std::nullopt;
  const std::vector<std::uint64_t> factors = prime_factors(n - 1);
  const bool prime = prime_factors(n) == std::vector<std::uint64_t>{n};
  const std::optional<std::uint64_t> m = bluestein_length(n);
  if (!prime || !four_step_split(n - 1) || (m && fits_one_group(*m))) return std::nullopt;
  for (std::uint64_t g = 2;; ++g) {
    if (std::all_of(factors.begin(), factors.end(),
                    [&](std::uint64_t q) { return metal_tables::power_mod(g, (n - 1) / q, n) != 1; })) {
      return g;
    }
  }
}

const char* stockham_kernel(const std::vector<std::uint32_t>& radices) {
  const bool pow2 =
      std::all_of(radices.begin(), radices.end(), [](std::uint32_t r) { return (r & (r - 1)) == 0; });
  if (pow2) return "fft_stockham_pow2";
  if (std::none_of(radices.begin(), radices.end(), [](std::uint32_t r) { return r > 10; })) {
    return "fft_stockham_smooth7";
  }
  return "fft_stockham";
}

namespace {

// Butterflies of radix R one thread holds in a stage (FFT_STAGE_HELD).
std::uint32_t stage_held(std::uint32_t radix) {
  return (FFT_MAX_THREAD_VALUES + radix - 1) / radix;
}

std::uint32_t threads_per_transform(std::uint32_t n, const std::vector<std::uint32_t>& radices,
                                    std::uint32_t most_threads, bool ends_without_walks) {
  if (radices.empty()) return 1;
  // Fewest threads that hold any stage: no thread loads or stores more than
  // FFT_MAX_THREAD_VALUES elements, and FFT_STAGE_HELD(R) butterflies of
  // radix R hold ceil(FFT_MAX_THREAD_VALUES / R) * R >= FFT_MAX_THREAD_VALUES values.
  const std::uint32_t fewest = (n + FFT_MAX_THREAD_VALUES - 1) / FFT_MAX_THREAD_VALUES;
  const std::uint32_t most = std::max<std::uint32_t>(fewest, std::min<std::uint32_t>(n, most_threads));
  const std::uint32_t first = n / radices.front();
  const std::uint32_t last = n / radices.back();
  std::uint32_t first_only = 0, last_only = 0;
  for (std::uint32_t t = fewest; t <= most; ++t) {
    const bool divides_first = first % t == 0, divides_last = last % t == 0;
    if (divides_first && divides_last) return t;
    if (divides_first && first_only == 0) first_only = t;
    if (divides_last && last_only == 0) last_only = t;
  }
  if (ends_without_walks) {
    // Where both ends divide, no walk loads or stores: the stages' held
    // butterflies alone bound the threads from below.
    std::uint32_t fewest_held = kAlongThreads;
    for (std::uint32_t radix : radices) {
      fewest_held = std::max(fewest_held, (n / radix + stage_held(radix) - 1) / stage_held(radix));
    }
    for (std::uint32_t t = fewest_held; t < fewest; ++t) {
      if (first % t == 0 && last % t == 0) return t;
    }
  }
  if (first_only != 0) return first_only;
  if (last_only != 0) return last_only;
  // Without a direct end, the threads that give no stage more than
  // FFT_MAX_THREAD_VALUES / R butterflies of radix R (fewer registers), where
  // that many fit a group.
  std::uint32_t threads = fewest;
  for (std::uint32_t radix : radices) {
    const std::uint32_t held = std::max<std::uint32_t>(1, FFT_MAX_THREAD_VALUES / radix);
    threads = std::max<std::uint32_t>(threads, (n / radix + held - 1) / held);
  }
  return std::min(threads, most);
}

}  // namespace

bool StockhamShape::first_stage_divides() const {
  return !radices.empty() && (n / radices.front()) % threads == 0;
}

bool StockhamShape::last_stage_divides() const {
  return !radices.empty() && (n / radices.back()) % threads == 0;
}

int StockhamShape::ends_in_registers() const {
  return int(first_stage_divides()) + int(last_stage_divides());
}

namespace {

// The shape of `radices` in the order that suits it: even radices first or
// odd ones first (metal_routes.h).
StockhamShape ordered_shape(std::uint32_t n, std::vector<std::uint32_t> radices,
                            std::uint32_t most_threads, bool ends_without_walks) {
  StockhamShape shape;
  shape.n = n;
  shape.radices = std::move(radices);
  shape.threads = threads_per_transform(n, shape.radices, most_threads, ends_without_walks);
  const auto odd = [](std::uint32_t r) { return r % 2 == 1; };
  if (std::any_of(shape.radices.begin(), shape.radices.end(), odd) &&
      !std::all_of(shape.radices.begin(), shape.radices.end(), odd)) {
    StockhamShape odd_first = shape;
    std::stable_partition(odd_first.radices.begin(), odd_first.radices.end(), odd);
    odd_first.threads = threads_per_transform(n, odd_first.radices, most_threads, ends_without_walks);
    const int ends = shape.ends_in_registers(), odd_first_ends = odd_first.ends_in_registers();
    const bool scatters_apart = shape.radices.front() >= 4;  // not a lone radix 2
    if (odd_first_ends > ends ||
        (odd_first_ends == ends && odd_first.threads == shape.threads && scatters_apart)) {
      shape = odd_first;
    }
  }
  return shape;
}

// n's radices with every pair of factors 2 and 5 taken as one radix 10, or
// nothing where n has no such pair.
std::optional<std::vector<std::uint32_t>> radices_with_tens(std::uint32_t n) {
  std::uint32_t rest = n, tens = 0;
  while (rest % 10 == 0) rest /= 10, ++tens;
  if (tens == 0) return std::nullopt;
  // No 16s: the kernels with radix 10 have none.
  return radices_after(std::vector<std::uint32_t>(tens, 10), rest, false);
}

}  // namespace

StockhamShape stockham_shape(std::uint32_t n, std::uint32_t most_threads,
                             std::uint32_t least_threads, bool tens_where_more_ends,
                             bool ends_without_walks) {
  StockhamShape shape = ordered_shape(n, *stockham_radices(n), most_threads, ends_without_walks);
  if (const auto tens = tens_where_more_ends ? radices_with_tens(n) : std::nullopt) {
    StockhamShape with_tens = ordered_shape(n, *tens, most_threads, ends_without_walks);
    if (with_tens.ends_in_registers() > shape.ends_in_registers()) shape = with_tens;
  }
  const bool power_of_two = (n & (n - 1)) == 0;
  if (shape.threads < least_threads && power_of_two && n >= 16 && n >= least_threads * least_threads) {
    std::uint32_t largest = std::min<std::uint32_t>(16, n / least_threads);
    shape.radices.clear();
    std::uint32_t rest = n;
    for (std::uint32_t radix = largest; rest > 1; radix = std::min(radix, rest)) {
      while (rest % radix == 0 && rest > 1) shape.radices.push_back(radix), rest /= radix;
    }
    shape.threads = least_threads;
  }
  return shape;
}

}  // namespace jax_apple_fft::metal_routes
