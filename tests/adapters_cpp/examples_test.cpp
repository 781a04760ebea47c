// The example components, run as the executables users build (SPARSE_EXAMPLES_DIR).
#include "harness.hpp"

#include <string>

namespace {

using namespace sparse_test;

std::unique_ptr<ComponentProcess> start_example(const std::string& name, const TempDir& dir,
                                                Wire wire,
                                                sparse::json conf = sparse::json::object()) {
  auto process = ComponentProcess::exec({std::string(SPARSE_EXAMPLES_DIR) + "/" + name}, wire);
  process->send(handshake(dir.path(), std::move(conf)));
  const auto reply = process->expect();
  EXPECT_EQ(reply, (sparse::json{{"pid", process->pid()}})) << process->stderr_text();
  return process;
}

sparse::json emit_anchored(sparse::json values, const std::string& anchor) {
  return {{"command", "emit"},
          {"anchors", {anchor}},
          {"need_task_ids", false},
          {"tuple", std::move(values)}};
}

// The examples, with a JSON host and with a MessagePack host.
class Examples : public WireTest {};
SPARSE_TEST_BOTH_WIRES(Examples);

TEST_P(Examples, WordCountCounts) {
  TempDir dir;
  auto bolt = start_example("sparse_example_word_count", dir, wire());
  int id = 0;
  for (const char* word : {"cow", "moon", "cow"}) {
    bolt->send(tuple_message(std::to_string(++id), {word}, "split"));
  }
  bolt->expect_eq(emit_anchored({"cow", 1}, "1"));
  bolt->expect_eq(ack("1"));
  bolt->expect_eq(emit_anchored({"moon", 1}, "2"));
  bolt->expect_eq(ack("2"));
  bolt->expect_eq(emit_anchored({"cow", 2}, "3"));
  bolt->expect_eq(ack("3"));
  bolt->send(tick("t", 10));
  bolt->expect_eq(
      {{"command", "log"}, {"msg", "counted 2 distinct words (tick every 10s)"}, {"level", 2}});
  bolt->expect_eq(ack("t"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Examples, SplitSentenceSplits) {
  TempDir dir;
  auto bolt = start_example("sparse_example_split_sentence", dir, wire());
  bolt->send(tuple_message("s1", {"the cow  jumped"}, "sentences"));
  for (const char* word : {"the", "cow", "jumped"}) bolt->expect_eq(emit_anchored({word}, "s1"));
  bolt->expect_eq(ack("s1"));
  bolt->close_input();
  EXPECT_EQ(bolt->wait_exit(), 0);
}

TEST_P(Examples, SentenceSpoutEmitsAndReplays) {
  TempDir dir;
  auto spout =
      start_example("sparse_example_sentence_spout", dir, wire(), {{"sentence_spout.limit", 1}});
  spout->send(command("next"));
  const auto first = spout->expect();
  EXPECT_EQ(first.value("id", sparse::json()), 0);
  spout->expect_eq(kSync);
  spout->send(command("next"));  // limit reached
  spout->expect_eq(kSync);
  spout->send(command("fail", 0));
  spout->expect_eq(kSync);
  spout->send(command("next"));  // the replay
  spout->expect_eq(first);
  spout->expect_eq(kSync);
  spout->close_input();
  EXPECT_EQ(spout->wait_exit(), 0);
}

}  // namespace
