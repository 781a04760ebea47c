// Which topology a command uses in a project: the named one, the only one, or sparse.yaml's
// default_topology when there are several; otherwise an error that lists them.
#include "cli/project.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace sparse::cli {
namespace {

namespace fs = std::filesystem;

class ProjectTopology : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "topologies");
    Write("topologies/clicks.yaml", "name: clicks\n");
    Write("topologies/clicks_exactly_once.yaml", "name: eo\n");
  }
  void Write(const std::string& name, const std::string& text) const { tmp_.Write(name, text); }
  std::string ErrorOf(const std::optional<std::string>& arg) const {
    try {
      ResolveTopology(arg, FindProject(root_));
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  const test::TempDir tmp_{"sparse-project"};
  const fs::path root_ = tmp_.path();
};

TEST_F(ProjectTopology, SeveralWithoutADefaultAreListed) {
  Write("sparse.yaml", "project: p\n");
  EXPECT_EQ(ErrorOf(std::nullopt),
            "the project has several topologies; name one:\n  clicks\n  clicks_exactly_once");
  EXPECT_EQ(ResolveTopology("clicks_exactly_once", FindProject(root_)),
            root_ / "topologies" / "clicks_exactly_once.yaml");
}

TEST_F(ProjectTopology, DefaultTopologyIsUsedWhenNoneIsNamed) {
  Write("sparse.yaml", "project: p\ndefault_topology: clicks\n");
  EXPECT_EQ(ResolveTopology(std::nullopt, FindProject(root_)),
            root_ / "topologies" / "clicks.yaml");
  EXPECT_EQ(ResolveTopology("clicks_exactly_once", FindProject(root_)),
            root_ / "topologies" / "clicks_exactly_once.yaml")
      << "a named topology wins over the default";
}

TEST_F(ProjectTopology, AnUnknownOrMalformedDefaultIsAnError) {
  Write("sparse.yaml", "project: p\ndefault_topology: click\n");
  EXPECT_EQ(ErrorOf(std::nullopt), (root_ / "sparse.yaml").string() +
                                       ": default_topology `click` is not a topology in " +
                                       (root_ / "topologies").string());
  Write("sparse.yaml", "project: p\ndefault_topology: [a, b]\n");
  EXPECT_EQ(ErrorOf(std::nullopt), (root_ / "sparse.yaml").string() +
                                       ":2: default_topology: expected the name of one topology");
}

}  // namespace
}  // namespace sparse::cli
