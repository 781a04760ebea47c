// sparse C++ component adapter — everything a component needs:
//
//   #include <sparse/sparse.hpp>
//   class WordCount : public sparse::Bolt { ... };
//   int main() { return sparse::run<WordCount>(); }
//
// Header-only, C++17, depends on nlohmann::json and threads. Speaks the host's JSON or
// MessagePack, detected from the handshake. See adapters/cpp/README.md.
#pragma once

#include <sparse/batching_bolt.hpp>
#include <sparse/bolt.hpp>
#include <sparse/component.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>
#include <sparse/protocol.hpp>
#include <sparse/run.hpp>
#include <sparse/spout.hpp>
#include <sparse/tuple.hpp>
