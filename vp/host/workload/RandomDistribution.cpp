// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/workload/RandomDistribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "vp/core/Quote.hpp"
#include "vp/host/workload/FioJob.hpp"

namespace vp::host {

namespace {

using Kind = RandomDistribution::Kind;

constexpr const char* kSyntax =
    "random, zipf[:theta[:center]], pareto[:h[:center]], normal[:dev[:center]], zoned:A/R[:A/R...][,...], "
    "zoned_abs:A/SIZE[:A/SIZE...][,...]";
constexpr size_t kMaxZones = 256;  // fio's ZONESPLIT_MAX

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + 1) out.push_back(s.substr(from, at - from));
  out.push_back(s.substr(from));
  return out;
}

// A number, blanks around it allowed (fio strips them after the name's ':').
std::optional<double> to_double(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<uint64_t> to_u64(const std::string& s) { return fio_number(s); }

// Bytes with an optional unit, as the job file's sizes (fio's kb_base=1024).
std::optional<uint64_t> to_bytes(const std::string& s) {
  size_t n = s.find_first_not_of("0123456789");
  auto num = to_u64(s.substr(0, n));
  if (!num) return std::nullopt;
  std::string u = n == std::string::npos ? std::string() : s.substr(n);
  for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t m = fio_size_factor(u);
  if (!m || *num > UINT64_MAX / m) return std::nullopt;
  return *num * m;
}

// "" for the one list of all directions, else which direction's list.
std::string set_name(size_t i, size_t sets) {
  static const char* const kDir[] = {" in the reads' zones", " in the writes' zones", " in the trims' zones"};
  return sets == 1 ? "" : kDir[i];
}

// One direction's zones: "A/R:A/R..." (zoned) or "A/SIZE:..." (zoned_abs).
std::vector<RandomDistribution::Zone> parse_zones(const std::string& set, bool absolute, const std::string& name) {
  std::vector<RandomDistribution::Zone> zones;
  if (set.empty()) return zones;  // fio: this direction stays uniform
  unsigned access = 0, range = 0, missing = 0;
  for (const std::string& z : split(set, ':')) {
    if (z.empty()) bad(fmt::format("has an empty zone{} (zones are A/R separated by ':')", name));
    if (zones.size() == kMaxZones) bad(fmt::format("has more than fio's {} zones{}", kMaxZones, name));
    size_t slash = z.find('/');
    std::string a = z.substr(0, slash), r = slash == std::string::npos ? "" : z.substr(slash + 1);
    auto acc = to_u64(a);
    if (!acc || *acc > 100)
      bad(fmt::format("has access percentage {} in zone {}: a whole number 0..100 is needed", vp::quoted(a),
                      vp::quoted(z)));
    RandomDistribution::Zone zone;
    zone.access = static_cast<unsigned>(*acc);
    access += zone.access;
    if (absolute) {
      auto b = to_bytes(r);
      if (r.empty()) bad(fmt::format("has zone {} without a size (zoned_abs zones are A/SIZE)", vp::quoted(z)));
      if (!b) bad(fmt::format("has size {} in zone {}: bytes with an optional unit (k, m, g, t) are needed",
                              vp::quoted(r), vp::quoted(z)));
      if (*b == 0) bad(fmt::format("has zone {} of no size", vp::quoted(z)));
      zone.range = *b;
    } else {
      auto p = r.empty() ? std::optional<uint64_t>(0) : to_u64(r);
      if (!p || *p > 100)
        bad(fmt::format("has range percentage {} in zone {}: a whole number 0..100 is needed", vp::quoted(r),
                        vp::quoted(z)));
      // fio: a zone without a range (or 0) shares out what the others leave.
      zone.range = *p;
      range += static_cast<unsigned>(*p);
      missing += *p == 0;
    }
    zones.push_back(zone);
  }
  if (access != 100) bad(fmt::format("has access percentages adding up to {}{}, not 100", access, name));
  if (range > 100) bad(fmt::format("has range percentages adding up to {}{}, more than 100", range, name));
  if (missing)
    for (auto& zone : zones)
      if (!zone.range) zone.range = (100 - range) / missing;
  return zones;
}

std::string zones_text(const std::vector<RandomDistribution::Zone>& zones) {
  std::string s;
  for (const auto& z : zones) s += fmt::format("{}{}/{}", s.empty() ? "" : ":", z.access, z.range);
  return s;
}

}  // namespace

RandomDistribution RandomDistribution::parse(const std::string& text) {
  RandomDistribution d;
  size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const bool has_rest = colon != std::string::npos;
  const std::string rest = has_rest ? text.substr(colon + 1) : "";
  if (name == "random") {
    if (has_rest) bad("takes nothing after random");
    return d;
  }
  if (name == "zipf" || name == "pareto" || name == "normal") {
    d.kind = name == "zipf" ? Kind::Zipf : name == "pareto" ? Kind::Pareto : Kind::Normal;
    d.value = name == "zipf" ? 1.1 : name == "pareto" ? 0.2 : 0.0;  // fio's FIO_DEF_ZIPF, FIO_DEF_PARETO
    if (has_rest) {
      auto parts = split(rest, ':');
      if (parts.size() > 2) bad(fmt::format("has more than a value and a center after {}:", name));
      const char* what = name == "zipf" ? "theta" : name == "pareto" ? "h" : "deviation";
      auto v = to_double(parts[0]);
      if (!v) bad(fmt::format("has {} where {}'s {} (a number) belongs", vp::quoted(parts[0]), name, what));
      d.value = *v;
      if (parts.size() == 2) {
        auto c = to_double(parts[1]);
        if (!c) bad(fmt::format("has {} where the center (a number from 0 to 1) belongs", vp::quoted(parts[1])));
        if (*c < 0 || *c > 1) bad(fmt::format("has center {}: it must be from 0 to 1", *c));
        d.center = *c;
      }
    }
    if (d.kind == Kind::Zipf && !(d.value > 0 && d.value != 1))
      bad(fmt::format("has zipf theta {}: it must be above 0 and other than 1", d.value));
    if (d.kind == Kind::Pareto && !(d.value > 0 && d.value < 1))
      bad(fmt::format("has pareto h {}: it must be above 0 and below 1", d.value));
    if (d.kind == Kind::Normal && !(d.value >= 0 && d.value < 100))
      bad(fmt::format("has normal deviation {}: it must be from 0 up to, not including, 100 (percent of the region)",
                      d.value));
    return d;
  }
  if (name == "zoned" || name == "zoned_abs") {
    d.kind = name == "zoned" ? Kind::Zoned : Kind::ZonedAbs;
    if (!has_rest || rest.empty()) bad(fmt::format("has no zones after {}: (for example {}:60/{}:40/{})", name, name,
                                                   name == "zoned" ? "10" : "1g", name == "zoned" ? "90" : "9g"));
    auto sets = split(rest, ',');
    if (sets.size() > 3) bad("has more than three zone lists (reads, writes, trims)");
    for (size_t i = 0; i < sets.size(); ++i)
      d.zones[i] = parse_zones(sets[i], d.kind == Kind::ZonedAbs, set_name(i, sets.size()));
    // fio: one list applies to all directions; with two, trims take the writes'.
    if (sets.size() == 1) d.zones[1] = d.zones[2] = d.zones[0];
    if (sets.size() == 2) d.zones[2] = d.zones[1];
    if (d.zones[0].empty() && d.zones[1].empty() && d.zones[2].empty()) bad("has no zones in any list");
    return d;
  }
  if (name == "sequence") bad(fmt::format("is fio's sequence distribution, which the model does not have ({})", kSyntax));
  bad(fmt::format("is not a distribution the model has: {}", kSyntax));
}

std::string RandomDistribution::text() const {
  switch (kind) {
    case Kind::Random: return "random";
    case Kind::Zipf:
    case Kind::Pareto:
    case Kind::Normal: {
      std::string s = fmt::format("{}:{}", kind == Kind::Zipf ? "zipf" : kind == Kind::Pareto ? "pareto" : "normal", value);
      return center < 0 ? s : s + fmt::format(":{}", center);
    }
    case Kind::Zoned:
    case Kind::ZonedAbs: {
      std::string s = kind == Kind::Zoned ? "zoned:" : "zoned_abs:";
      s += zones_text(zones[0]);
      if (zones[1] != zones[0] || zones[2] != zones[1]) s += "," + zones_text(zones[1]);
      if (zones[2] != zones[1]) s += "," + zones_text(zones[2]);
      return s;
    }
  }
  return "random";
}

uint64_t RandomDistribution::zoned_abs_bytes() const {
  uint64_t most = 0;
  if (kind != Kind::ZonedAbs) return 0;
  for (const auto& set : zones) {
    unsigned __int128 sum = 0;
    for (const auto& z : set) sum += z.range;
    most = std::max<uint64_t>(most, sum > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(sum));
  }
  return most;
}

bool RandomDistribution::operator==(const RandomDistribution& o) const {
  return kind == o.kind && value == o.value && center == o.center && zones == o.zones;
}

double OffsetSampler::zipf_norm(uint64_t n, double theta) {
  // Small terms first, so none is lost against the large ones.
  constexpr uint64_t kDirect = 4096;
  auto f = [theta](double x) { return std::pow(x, -theta); };
  if (n <= kDirect) {
    double s = 0;
    for (uint64_t k = n; k >= 1; --k) s += f(double(k));
    return s;
  }
  // sum_{k=a..n} f(k) = integral_a^n f + (f(a) + f(n)) / 2 + (f'(n) - f'(a)) / 12
  //                     - (f'''(n) - f'''(a)) / 720 + O(a^(-theta-5)).
  const double a = double(kDirect), b = double(n);
  auto d1 = [theta](double x) { return -theta * std::pow(x, -theta - 1); };
  auto d3 = [theta](double x) { return -theta * (theta + 1) * (theta + 2) * std::pow(x, -theta - 3); };
  // integral_a^b x^-theta dx = a^(1-theta) (e^((1-theta) ln(b/a)) - 1) / (1 - theta), without cancellation near 1.
  double integral = std::pow(a, 1 - theta) * std::expm1((1 - theta) * std::log(b / a)) / (1 - theta);
  double tail = integral + (f(a) + f(b)) / 2 + (d1(b) - d1(a)) / 12 - (d3(b) - d3(a)) / 720;
  double head = 0;
  for (uint64_t k = kDirect - 1; k >= 1; --k) head += f(double(k));
  return head + tail;
}

OffsetSampler::OffsetSampler(const RandomDistribution& d, uint64_t blocks, uint64_t bs, Rng& rng, bool scatter)
    : kind_(d.kind), n_(std::max<uint64_t>(1, blocks)), scatter_(scatter) {
  const double n = double(n_);
  switch (kind_) {
    case Kind::Random: break;
    case Kind::Zipf:
    case Kind::Pareto:
      // fio's rand_off: a random rotation (its generators draw 32 bits), or
      // blocks x center.
      off_ = d.center < 0 ? rng.next() >> 32 : static_cast<uint64_t>(n * d.center);
      if (kind_ == Kind::Zipf) {
        theta_ = d.value;
        zetan_ = zipf_norm(n_, theta_);
        zeta2_ = 1 + std::pow(0.5, theta_);
        alpha_ = 1 / (1 - theta_);
        eta_ = n_ > 2 ? (1 - std::pow(2 / n, 1 - theta_)) / (1 - zeta2_ / zetan_) : 0;
      } else {
        pareto_pow_ = std::log(d.value) / std::log(1 - d.value);
      }
      break;
    case Kind::Normal:
      if (d.value > 0) gauss_width_ = std::min<uint64_t>(static_cast<uint64_t>(std::ceil(n * d.value / 100)), n_ / 2);
      // fio: blocks x (center - 0.5) added to the value; here a shift modulo the region either way.
      if (d.center >= 0.5) off_ = static_cast<uint64_t>(n * (d.center - 0.5)) % n_;
      else if (d.center >= 0) off_ = (n_ - static_cast<uint64_t>(n * (0.5 - d.center)) % n_) % n_;
      break;
    case Kind::Zoned:
    case Kind::ZonedAbs:
      for (size_t dir = 0; dir < 3; ++dir) {
        const auto& zones = d.zones[dir];
        unsigned aprev = 0;
        unsigned __int128 prev = 0;  // percent (zoned) or bytes (zoned_abs) before this zone
        for (size_t i = 0; i < zones.size(); ++i) {
          unsigned __int128 end = prev + zones[i].range;
          uint64_t first, last;  // [first, last) in blocks
          if (kind_ == Kind::Zoned) {
            // fio: the zone starts at prev% of the blocks and spans range% of them.
            first = static_cast<uint64_t>(prev * n_ / 100);
            last = first + static_cast<uint64_t>((unsigned __int128)n_ * zones[i].range / 100);
          } else {
            first = static_cast<uint64_t>(std::min<unsigned __int128>(prev / bs, n_));
            last = static_cast<uint64_t>(std::min<unsigned __int128>(end / bs, n_));
          }
          // A zone of no whole block gets its first block, as in fio; none lies past the region.
          first = std::min(first, n_ - 1);
          last = std::min(std::max(last, first + 1), n_);
          zone_[dir].push_back({first, last - first});
          for (unsigned a = aprev; a < aprev + zones[i].access; ++a) zone_of_[dir][a] = static_cast<uint8_t>(i);
          aprev += zones[i].access;
          prev = end;
        }
      }
      break;
  }
}

uint64_t OffsetSampler::zipf_rank(Rng& rng) {
  // Gray et al., "Quickly generating billion-record synthetic databases"
  // (SIGMOD'94), as fio's zipf_next: ranks 1 and 2 exactly, the rest by an
  // inverted approximation of the cumulative distribution.
  double u = rng.unit(), z = u * zetan_;
  if (z < 1.0) return 0;
  if (n_ <= 2 || z < zeta2_) return std::min<uint64_t>(1, n_ - 1);
  double r = double(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_);
  return r >= double(n_ - 1) ? n_ - 1 : static_cast<uint64_t>(r);
}

uint64_t OffsetSampler::pareto_rank(Rng& rng) {
  // fio's pareto_next: (blocks - 1) x u^(log h / log(1 - h)): a share h of
  // the ranks takes 1 - h of the draws (h = 0.2: the 80/20 rule).
  return static_cast<uint64_t>(double(n_ - 1) * std::pow(rng.unit(), pareto_pow_));
}

uint64_t OffsetSampler::gauss_value(Rng& rng) {
  // fio's gauss_next: the mean (rounded up) of 12 uniform draws from
  // 0..blocks, then a uniform jitter of width ceil(blocks x dev / 100),
  // halved until the result stays inside the region. In [0, blocks].
  uint64_t sum = 0;
  for (int i = 0; i < 12; ++i) sum += rng.below(n_ + 1);
  sum = (sum + 11) / 12;
  if (gauss_width_) {
    const int64_t w = static_cast<int64_t>(gauss_width_), s = static_cast<int64_t>(sum);
    int64_t dev = static_cast<int64_t>(double(w) * rng.unit()) - w / 2;
    while (dev != 0 && (s + dev >= static_cast<int64_t>(n_) || s + dev < 0)) dev /= 2;
    sum = static_cast<uint64_t>(s + dev);
  }
  return sum;
}

uint64_t OffsetSampler::land(uint64_t v) const {
  // fio computes (hash + off) % blocks in 64 bits; reducing first differs
  // only when that sum would wrap (one draw in 2^32 at most).
  return scatter_ ? place(v, off_, n_) : (v % n_ + off_ % n_) % n_;
}

uint64_t OffsetSampler::next(Rng& rng, unsigned ddir) {
  switch (kind_) {
    case Kind::Random: return rng.below(n_);
    case Kind::Zipf: return land(zipf_rank(rng));
    case Kind::Pareto: return land(pareto_rank(rng));
    case Kind::Normal: return land(gauss_value(rng));
    case Kind::Zoned:
    case Kind::ZonedAbs: {
      const auto& zones = zone_[ddir];
      if (zones.empty()) return rng.below(n_);  // fio: no zones for this direction
      const ZoneRange& z = zones[zone_of_[ddir][rng.below(100)]];
      return z.first + rng.below(z.count);
    }
  }
  return rng.below(n_);
}

}  // namespace vp::host
