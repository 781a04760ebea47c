// sparse C++ component adapter — the tuple a bolt receives.
#pragma once

#include <sparse/json.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace sparse {

/// A tuple value is missing or has another type than the one asked for. Thrown by Tuple::get and
/// Tuple::operator[]; when it escapes Bolt::process the adapter reports it and fails the tuple.
class TupleValueError : public std::runtime_error {
 public:
  TupleValueError(std::size_t index, std::string message)
      : std::runtime_error(std::move(message)), index_(index) {}
  std::size_t index() const { return index_; }

 private:
  std::size_t index_;
};

namespace detail {

template <class T>
const char* expected_type_name() {
  if constexpr (std::is_same<T, bool>::value) return "boolean";
  if constexpr (std::is_integral<T>::value) {
    return std::is_signed<T>::value ? "integer" : "unsigned integer";
  }
  if constexpr (std::is_floating_point<T>::value) return "number";
  if constexpr (std::is_same<T, std::string>::value) return "string";
  return "a value convertible to the requested type";
}

// Strict checks for the common scalar types; nlohmann alone would truncate 1.5 to 1 and wrap -1
// into an unsigned.
template <class T>
bool value_fits(const json& v) {
  if constexpr (std::is_same<T, bool>::value) {
    return v.is_boolean();
  } else if constexpr (std::is_floating_point<T>::value) {
    return v.is_number();
  } else if constexpr (std::is_same<T, std::string>::value) {
    return v.is_string();
  } else if constexpr (std::is_integral<T>::value) {
    using Limits = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
      return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(Limits::max());
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0) return Limits::is_signed && i >= static_cast<std::int64_t>(Limits::min());
      return static_cast<std::uint64_t>(i) <= static_cast<std::uint64_t>(Limits::max());
    }
    return false;
  } else {
    (void)v;
    return true;  // other types: nlohmann decides, and its error is rewrapped
  }
}

}  // namespace detail

/// One input tuple of a bolt: where it came from, its id (echoed back by ack/fail/anchors) and its
/// values. Values are JSON values; read them with get<T>(i) for a checked conversion or
/// operator[] for the raw json. Cheap to move; copying copies the values.
class Tuple {
 public:
  Tuple() = default;
  /// Throws std::invalid_argument unless `values` is an array.
  Tuple(json id, std::string component, std::string stream, std::int64_t task, json values)
      : id_(std::move(id)),
        component_(std::move(component)),
        stream_(std::move(stream)),
        task_(task),
        values_(std::move(values)) {
    if (!values_.is_array()) throw std::invalid_argument("sparse::Tuple: values must be an array");
  }

  /// The id to ack, fail or anchor to: in Storm a decimal string, echoed back exactly as received.
  const json& id() const { return id_; }
  /// Source component id ("__system" for ticks).
  const std::string& component() const { return component_; }
  /// Source stream id ("default" unless the source emitted on a named stream).
  const std::string& stream() const { return stream_; }
  /// Source task id (-1 for ticks and heartbeats).
  std::int64_t task() const { return task_; }

  /// All values, a JSON array.
  const json& values() const { return values_.is_null() ? no_values() : values_; }
  std::size_t size() const { return values_.size(); }

  /// The value at `index`. Throws TupleValueError if the tuple has fewer values.
  const json& operator[](std::size_t index) const {
    check_index(index);
    return values_[index];
  }

  /// The value at `index` converted to T. Integers must be integral and in T's range, strings
  /// strings, booleans booleans; any number converts to a floating-point T. Throws
  /// TupleValueError naming the index, the expected and the actual type.
  template <class T>
  T get(std::size_t index) const {
    const json& value = (*this)[index];
    if (!detail::value_fits<T>(value)) throw type_error<T>(index, value, "");
    try {
      return value.get<T>();
    } catch (const json::exception& e) {
      throw type_error<T>(index, value, e.what());
    }
  }

  bool is_tick() const { return component_ == "__system" && stream_ == "__tick"; }
  bool is_heartbeat() const { return task_ == -1 && stream_ == "__heartbeat"; }

 private:
  static const json& no_values() {
    static const json empty = json::array();
    return empty;
  }

  void check_index(std::size_t index) const {
    if (index >= values_.size()) {
      throw TupleValueError(index, "tuple value " + std::to_string(index) +
                                       " does not exist: the tuple has " +
                                       std::to_string(values_.size()) + " value(s)");
    }
  }

  template <class T>
  TupleValueError type_error(std::size_t index, const json& value, const std::string& why) const {
    std::string message = "tuple value " + std::to_string(index) + ": expected " +
                          detail::expected_type_name<T>() + ", got " + value.type_name() + " " +
                          detail::excerpt(value);
    if (!why.empty()) message += ": " + why;
    return TupleValueError(index, std::move(message));
  }

  json id_;
  std::string component_;
  std::string stream_ = "default";
  std::int64_t task_ = 0;
  json values_;  // an array; null only in a default-constructed tuple
};

}  // namespace sparse
