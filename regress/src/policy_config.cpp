// The policy file format and per-name threshold lookup.

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tscope/regress/error.h"
#include "tscope/regress/policy.h"

namespace tscope::regress {
namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::istringstream stream{std::string(line)};
  std::vector<std::string> words;
  for (std::string word; stream >> word;)
    words.push_back(word);
  return words;
}

double parse_number(std::string_view text, std::string_view where) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  // NaN and infinity parse, but no alpha or threshold can be either.
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    throw RegressInputError(fmt::format("{}: \"{}\" is not a finite number", where, text));
  }
  return value;
}

// Pattern errors do not know which file line they came from; this adds it.
template <typename Build>
auto with_location(std::string_view where, Build build) {
  try {
    return build();
  } catch (const RegressInputError& error) {
    throw RegressInputError(fmt::format("{}: {}", where, error.what()));
  }
}

// A policy is a few lines; a larger file is not one, and is refused before it is split up.
constexpr std::size_t kMaxPolicyBytes = std::size_t{1} << 20;

}  // namespace

std::optional<double> ComparePolicy::threshold_for(std::string_view name) const {
  for (const ThresholdRule& rule : thresholds) {
    if (rule.pattern.matches(name)) return rule.threshold;
  }
  return default_threshold;
}

std::optional<double> parse_threshold(std::string_view text, std::string_view where) {
  if (text == "none") return std::nullopt;
  if (!text.ends_with('%')) {
    throw RegressInputError(
        fmt::format("{}: threshold \"{}\" must be a percentage such as 5% (or none)", where, text));
  }
  const double percent = parse_number(text.substr(0, text.size() - 1), where);
  if (percent < 0.0)
    throw RegressInputError(fmt::format("{}: threshold \"{}\" is negative", where, text));
  return percent / 100.0;
}

ComparePolicy read_policy_config(const std::filesystem::path& path) {
  std::ifstream input(path);
  if (!input)
    throw RegressInputError(
        fmt::format("{}: cannot open policy file: {}", path.string(), std::strerror(errno)));
  std::string text;
  text.resize(kMaxPolicyBytes + 1);
  input.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(input.gcount()));
  return parse_policy_config(text, path);
}

ComparePolicy parse_policy_config(std::string_view text, const std::filesystem::path& path) {
  if (text.size() > kMaxPolicyBytes) {
    throw RegressInputError(
        fmt::format("{}: a policy file is at most {} bytes", path.string(), kMaxPolicyBytes));
  }
  std::istringstream input{std::string(text)};
  ComparePolicy policy;
  std::string line;
  for (std::size_t line_number = 1; std::getline(input, line); ++line_number) {
    const std::string where = fmt::format("{}:{}", path.string(), line_number);
    const std::vector<std::string> words =
        split_words(std::string_view(line).substr(0, line.find('#')));
    if (words.empty()) continue;
    const std::string& directive = words.front();
    if (directive == "alpha" && words.size() == 2) {
      policy.alpha = parse_number(words[1], where);
      if (policy.alpha <= 0.0 || policy.alpha >= 1.0) {
        throw RegressInputError(fmt::format("{}: alpha must lie between 0 and 1", where));
      }
    } else if (directive == "threshold" && words.size() == 3) {
      const std::optional<double> threshold = parse_threshold(words[2], where);
      policy.thresholds.push_back(
          {with_location(where, [&] { return NamePattern(words[1]); }), threshold});
    } else if (directive == "normalize" && words.size() == 3) {
      policy.normalizers.push_back(
          with_location(where, [&] { return ReferencePairing(words[1], words[2]); }));
    } else {
      throw RegressInputError(
          fmt::format("{}: expected \"alpha P\", \"threshold PATTERN N%|none\" or \"normalize "
                      "REGEX REFERENCE\", got \"{}\"",
                      where, line));
    }
  }
  return policy;
}

}  // namespace tscope::regress
