// BuiltinRegistry's contract (runtime/builtin_registry.hpp): lookups by name and by Flux class,
// sorted names, one registration per name and per class, and no state shared between registries.
#include "runtime/builtin_registry.hpp"

#include <gtest/gtest.h>

namespace sparse::runtime {
namespace {

BuiltinInfo NoOpBuiltin(std::string name, ComponentKind kind,
                        std::vector<std::string> classes = {}) {
  return {std::move(name),
          kind,
          std::move(classes),
          [](const nlohmann::json&, std::string&) { return std::vector<StreamDef>{}; },
          [](const nlohmann::json&) -> std::unique_ptr<BuiltinComponent> { return nullptr; },
          {}};
}

TEST(BuiltinRegistry, FindsByNameAndByFluxClass) {
  BuiltinRegistry registry;
  RegisterStandardBuiltins(registry);
  const BuiltinInfo* spout = registry.Find("test_word_spout");
  ASSERT_NE(spout, nullptr);
  EXPECT_EQ(spout->kind, ComponentKind::kSpout);
  EXPECT_EQ(registry.FindByClass("org.apache.storm.testing.TestWordSpout"), spout);
  EXPECT_EQ(registry.FindByClass("backtype.storm.testing.TestWordSpout"), spout);
  EXPECT_EQ(registry.FindByClass("org.apache.storm.flux.wrappers.bolts.LogInfoBolt"),
            registry.Find("log_info"));
  EXPECT_EQ(registry.Find("kafka_spout"), nullptr);
  EXPECT_EQ(registry.FindByClass("org.example.Unknown"), nullptr);
  EXPECT_EQ(registry.Names(),
            (std::vector<std::string>{"log_info", "test_word_counter", "test_word_spout"}));
}

TEST(BuiltinRegistry, EntriesStayWhereTheyAreAsMoreAreAdded) {
  BuiltinRegistry registry;
  registry.Add(NoOpBuiltin("m", ComponentKind::kBolt));
  const BuiltinInfo* m = registry.Find("m");
  for (const char* name : {"a", "b", "z", "n"})
    registry.Add(NoOpBuiltin(name, ComponentKind::kBolt));
  EXPECT_EQ(registry.Find("m"), m);
  BuiltinRegistry moved = std::move(registry);
  EXPECT_EQ(moved.Find("m"), m) << "moving the registry keeps what callers point at";
}

TEST(BuiltinRegistry, RegistriesShareNothing) {
  BuiltinRegistry standard;
  RegisterStandardBuiltins(standard);
  const BuiltinRegistry empty;
  EXPECT_TRUE(empty.Names().empty());
  EXPECT_EQ(empty.Find("test_word_spout"), nullptr);
  BuiltinRegistry other;
  RegisterStandardBuiltins(other);  // a second registry takes the same names
  other.Add(NoOpBuiltin("extra", ComponentKind::kBolt));
  EXPECT_NE(other.Find("extra"), nullptr);
  EXPECT_EQ(standard.Find("extra"), nullptr);
  EXPECT_EQ(standard.Names().size(), 3u);
}

TEST(BuiltinRegistryDeathTest, ANameRegisteredTwiceIsAProgrammerError) {
  BuiltinRegistry registry;
  registry.Add(NoOpBuiltin("twice", ComponentKind::kSpout));
  EXPECT_DEATH(registry.Add(NoOpBuiltin("twice", ComponentKind::kBolt)),
               "built-in `twice` registered twice");
  BuiltinRegistry standard;
  RegisterStandardBuiltins(standard);
  EXPECT_DEATH(RegisterStandardBuiltins(standard), "built-in `test_word_spout` registered twice");
}

TEST(BuiltinRegistryDeathTest, AFluxClassClaimedTwiceIsAProgrammerError) {
  BuiltinRegistry registry;
  registry.Add(NoOpBuiltin("first", ComponentKind::kSpout, {"org.example.Spout"}));
  EXPECT_DEATH(registry.Add(NoOpBuiltin("second", ComponentKind::kSpout, {"org.example.Spout"})),
               "Flux class `org.example.Spout` claimed by built-ins `first` and `second`");
  EXPECT_EQ(registry.Find("second"), nullptr);
}

}  // namespace
}  // namespace sparse::runtime
