#include "multilang/framing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sparse::multilang {
namespace {

std::vector<std::string> Drain(MessageReader& r) {
  std::vector<std::string> out;
  while (auto m = r.Next()) out.push_back(*m);
  return out;
}

TEST(Framing, SingleMessage) {
  MessageReader r;
  r.Append("{\"command\":\"sync\"}\nend\n");
  EXPECT_EQ(Drain(r), std::vector<std::string>{"{\"command\":\"sync\"}"});
}

TEST(Framing, MultiLineMessageIsJoinedWithNewlines) {
  MessageReader r;
  r.Append("{\"command\":\n\"log\",\n\"msg\":\"x\"}\nend\n");
  EXPECT_EQ(Drain(r), std::vector<std::string>{"{\"command\":\n\"log\",\n\"msg\":\"x\"}"});
}

TEST(Framing, CrLfAndCrTerminateLines) {
  MessageReader r;
  r.Append("{\"a\":1}\r\nend\r\n{\"b\":2}\rend\r");
  EXPECT_EQ(Drain(r), (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
}

TEST(Framing, CrLfSplitAcrossReads) {
  MessageReader r;
  r.Append("{\"a\":1}\r");
  EXPECT_TRUE(Drain(r).empty());
  r.Append("\nend\r");
  auto got = Drain(r);
  r.Append("\n{\"b\":2}\nend\n");
  auto more = Drain(r);
  got.insert(got.end(), more.begin(), more.end());
  EXPECT_EQ(got, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
}

TEST(Framing, EndWithTrailingSpaceIsNotATerminator) {
  MessageReader r;
  r.Append("{\"a\":\nend \n1}\nend\n");
  EXPECT_EQ(Drain(r), std::vector<std::string>{"{\"a\":\nend \n1}"});
}

TEST(Framing, EndInsideALineIsNotATerminator) {
  MessageReader r;
  r.Append("the end\nend\n");
  EXPECT_EQ(Drain(r), std::vector<std::string>{"the end"});
}

TEST(Framing, ByteByByte) {
  const std::string input = "{\"x\":[1,2,3]}\nend\n{\"y\":\"z\"}\r\nend\r\n";
  MessageReader r;
  std::vector<std::string> got;
  for (char c : input) {
    r.Append(std::string_view(&c, 1));
    auto m = Drain(r);
    got.insert(got.end(), m.begin(), m.end());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"{\"x\":[1,2,3]}", "{\"y\":\"z\"}"}));
}

TEST(Framing, MessageOverOneMebibyte) {
  std::string big = "{\"msg\":\"" + std::string(3 << 20, 'a') + "\"}";
  MessageReader r;
  // Arrives in 64 KiB reads, as from a pipe.
  const std::string framed = big + "\nend\n";
  std::vector<std::string> got;
  for (std::size_t i = 0; i < framed.size(); i += 65536) {
    r.Append(std::string_view(framed).substr(i, 65536));
    auto m = Drain(r);
    got.insert(got.end(), m.begin(), m.end());
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], big);
}

TEST(Framing, TooLargeIsAnError) {
  MessageReader r(1024);
  r.Append(std::string(2000, 'x'));
  EXPECT_FALSE(r.Next());
  EXPECT_EQ(r.error(), FrameError::kTooLarge);
}

TEST(Framing, TooLargeAcrossLines) {
  MessageReader r(1024);
  for (int i = 0; i < 30; ++i) r.Append(std::string(100, 'x') + "\n");
  EXPECT_FALSE(r.Next());
  EXPECT_EQ(r.error(), FrameError::kTooLarge);
}

// Found by fuzz/framing_fuzz.cpp: a message exactly at the limit was refused when a read ended
// inside its "end" line, and accepted when the "end" line arrived whole.
TEST(Framing, LimitDoesNotDependOnHowReadsSplitTheEndLine) {
  MessageReader whole(9);
  whole.Append("123456789\nend\n");
  EXPECT_EQ(Drain(whole), std::vector<std::string>{"123456789"});
  MessageReader split(9);
  split.Append("123456789\nen");
  EXPECT_EQ(Drain(split), std::vector<std::string>{});
  EXPECT_EQ(split.error(), FrameError::kNone);
  split.Append("d\n");
  EXPECT_EQ(Drain(split), std::vector<std::string>{"123456789"});
  EXPECT_EQ(split.error(), FrameError::kNone);
}

// A partial line counts with the newline that will join it to the message, as a whole one does.
TEST(Framing, PartialLineCountsItsSeparator) {
  MessageReader r(9);
  r.Append("1234\n56789");
  EXPECT_EQ(Drain(r), std::vector<std::string>{});
  EXPECT_EQ(r.error(), FrameError::kTooLarge);
}

// Append refuses an overflowing line before the buffer grows for it; its verdict must be the
// one NextInto gives: every split of messages at, and one byte past, the limit, in one line or
// several, with "\n" and "\r\n".
TEST(Framing, LimitIsTheSameForEverySplitOfTheInput) {
  for (const std::string sep : {"\n", "\r\n"}) {
    for (const int extra : {0, 1}) {
      const std::string one_line = std::string(20 + extra, 'a');
      const std::string lines = std::string(9, 'a') + sep + std::string(10 + extra, 'b');
      for (const std::string& body : {one_line, lines}) {
        const std::string input = "x" + sep + "end" + sep + body + sep + "end" + sep;
        for (std::size_t cut1 = 0; cut1 <= input.size(); ++cut1) {
          for (std::size_t cut2 = cut1; cut2 <= input.size(); ++cut2) {
            MessageReader r(20);
            std::vector<std::string> got;
            for (const auto& piece :
                 {input.substr(0, cut1), input.substr(cut1, cut2 - cut1), input.substr(cut2)}) {
              r.Append(piece);
              const auto more = Drain(r);
              got.insert(got.end(), more.begin(), more.end());
            }
            const bool fits = extra == 0;
            SCOPED_TRACE(testing::Message() << "cuts " << cut1 << "," << cut2 << " of " << input);
            EXPECT_EQ(r.error(), fits ? FrameError::kNone : FrameError::kTooLarge);
            std::string joined = body;  // lines come back joined with "\n"
            if (const auto at = joined.find(sep); at != std::string::npos) {
              joined.replace(at, sep.size(), "\n");
            }
            const auto want =
                fits ? std::vector<std::string>{"x", joined} : std::vector<std::string>{"x"};
            EXPECT_EQ(got, want);
          }
        }
      }
    }
  }
}

TEST(Framing, EmptyMessageBody) {
  MessageReader r;
  r.Append("end\n");
  EXPECT_EQ(Drain(r), std::vector<std::string>{""});
}

TEST(Framing, AppendFramed) {
  std::string out;
  AppendFramed(out, "[1,2]");
  EXPECT_EQ(out, "[1,2]\nend\n");
}

}  // namespace
}  // namespace sparse::multilang
