#include "kafka/aggregate_op.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace sparse::kafka {

namespace {
using json = nlohmann::json;

// A number from JSON text, or nullopt (not a number). Integers keep their exactness; nlohmann
// reads every non-negative integer as unsigned, so those that fit are made signed here and the
// arithmetic below has one integer kind to handle (a larger one stays unsigned and is compared
// and added as a double).
std::optional<json> Number(std::string_view text) {
  json v = json::parse(text.begin(), text.end(), nullptr, false);
  if (v.is_discarded() || !v.is_number()) return std::nullopt;
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return json(static_cast<std::int64_t>(u));
  }
  return v;
}

// nlohmann prints a whole double with its ".0": a total's type shows in its text.
std::string Text(const json& v) {
  return v.dump();
}

bool Less(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    if (a.is_number_unsigned() || b.is_number_unsigned()) {
      return a.get<double>() < b.get<double>();
    }
    return a.get<std::int64_t>() < b.get<std::int64_t>();
  }
  return a.get<double>() < b.get<double>();
}

json Add(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer() && !a.is_number_unsigned() &&
      !b.is_number_unsigned()) {
    std::int64_t r = 0;
    if (!__builtin_add_overflow(a.get<std::int64_t>(), b.get<std::int64_t>(), &r)) return r;
  }
  return a.get<double>() + b.get<double>();
}
}  // namespace

std::optional<std::string> ApplyAggregate(AggregateOp op, const std::string* current,
                                          std::string_view value_json, std::string& next) {
  if (op == AggregateOp::kCount) {
    std::int64_t n = 0;
    if (current) {
      auto c = Number(*current);
      if (c && c->is_number_integer()) n = c->get<std::int64_t>();
    }
    next = std::to_string(n + 1);
    return std::nullopt;
  }
  if (op == AggregateOp::kLast) {
    next = std::string(value_json);
    return std::nullopt;
  }
  auto v = Number(value_json);
  if (!v) {
    std::string shown(value_json.substr(0, 60));
    if (value_json.size() > 60) shown += "...";
    return std::string(AggregateOpName(op)) + " needs a number, got " + shown;
  }
  if (v->is_number_float() && !std::isfinite(v->get<double>())) {
    return std::string(AggregateOpName(op)) + " needs a finite number";
  }
  std::optional<json> c = current ? Number(*current) : std::nullopt;
  if (!c) {
    next = Text(*v);
    return std::nullopt;
  }
  switch (op) {
    case AggregateOp::kSum: {
      json r = Add(*c, *v);
      if (r.is_number_float() && !std::isfinite(r.get<double>())) {
        return std::string("the sum overflows a double");
      }
      next = Text(r);
      return std::nullopt;
    }
    case AggregateOp::kMin:
      next = Text(Less(*v, *c) ? *v : *c);
      return std::nullopt;
    case AggregateOp::kMax:
      next = Text(Less(*c, *v) ? *v : *c);
      return std::nullopt;
    case AggregateOp::kCount:
    case AggregateOp::kLast:
      break;  // handled above, before the value had to be a number
  }
  return std::string("unreachable: ") + AggregateOpName(op);
}

const char* AggregateOpName(AggregateOp op) {
  switch (op) {
    case AggregateOp::kCount:
      return "count";
    case AggregateOp::kSum:
      return "sum";
    case AggregateOp::kMin:
      return "min";
    case AggregateOp::kMax:
      return "max";
    case AggregateOp::kLast:
      return "last";
  }
  return "?";
}

}  // namespace sparse::kafka
