// The regular expressions users write for names: search and whole-name matching, group rewriting,
// literal patterns, RE2's refusals, and linear-time matching where a backtracking engine is
// exponential.

#include "tscope/report/name_regex.h"

#include <gtest/gtest.h>

#include <string>

namespace tscope {
namespace {

TEST(NameRegexTest, SearchesOrMatchesTheWholeName) {
  const NameRegex regex("step [0-9]+");
  EXPECT_TRUE(regex.found_in("ProfilerStep#3 / step 12 of 40"));
  EXPECT_FALSE(regex.matches("ProfilerStep#3 / step 12 of 40"));
  EXPECT_TRUE(regex.matches("step 12"));
  EXPECT_FALSE(regex.found_in("step x"));
}

TEST(NameRegexTest, RewritesGroupsIntoAReplacement) {
  const NameRegex regex("BM_Engine(\\w+)/(\\d+)");
  EXPECT_EQ(regex.rewrite("BM_EngineMatmul/64", "BM_Blas$1/$2"), "BM_BlasMatmul/64");
  EXPECT_EQ(regex.rewrite("BM_EngineAdd/8", "$0 costs $$ ($a)"), "BM_EngineAdd/8 costs $ ($a)");
  EXPECT_EQ(regex.rewrite("XBM_EngineAdd/8", "$1"), std::nullopt);
  EXPECT_EQ(NameRegex("a(x)?b").rewrite("ab", "[$1]"), "[]");
  EXPECT_NO_THROW(regex.check_replacement("$2$1$0$$3"));
  EXPECT_THROW(regex.check_replacement("BM_Blas$3"), NameRegexError);
}

TEST(NameRegexTest, ExactlyTakesEveryCharacterLiterally) {
  const std::string name = "step 3 (warm-up) [x]*.+?{2}|^$\\/é";
  const NameRegex regex(NameRegex::exactly(name));
  EXPECT_TRUE(regex.found_in(name));
  EXPECT_FALSE(regex.found_in("step 3 (warm-up) [x]*.+?{2}|^$\\/é!"));
  EXPECT_FALSE(regex.found_in("step 3 (warm-up) x*.+?{2}|^$\\/é"));
}

TEST(NameRegexTest, RefusesWhatRe2CannotCompileWithItsReason) {
  const auto reason = [](const std::string& pattern) -> std::string {
    try {
      NameRegex{pattern};
    } catch (const NameRegexError& error) {
      return error.what();
    }
    return "compiled";
  };
  EXPECT_EQ(reason("BM_(Add"), "missing ): BM_(Add");
  EXPECT_EQ(reason("a++"), "bad repetition operator: ++");
  EXPECT_EQ(reason("(a)\\1"), "invalid escape sequence: \\1");
  EXPECT_EQ(reason("a{1001}"), "invalid repetition size: {1001}");
  EXPECT_EQ(reason("\xff"), "invalid UTF-8");
  EXPECT_EQ(reason(std::string(std::size_t{1} << 20, 'a')), "pattern too large - compile failed");
  EXPECT_EQ(reason("\\pL{1000}"), "pattern too large - compile failed");
}

// "(a+)+$" and "(a|aa)*c" take a backtracking engine (std::regex, PCRE) time exponential in the
// run of a's; RE2 answers in time linear in the name, so this test ends at once or not at all.
TEST(NameRegexTest, NestedQuantifiersMatchInLinearTime) {
  const std::string name = std::string(1'000'000, 'a') + "b";
  EXPECT_FALSE(NameRegex("(a+)+$").found_in(name));
  EXPECT_FALSE(NameRegex("(a|aa)*c").found_in(name));
  EXPECT_TRUE(NameRegex("^(a+)+b$").found_in(name));
}

TEST(NameRegexTest, CopiesShareTheCompiledPattern) {
  const NameRegex original("ab+c");
  const NameRegex copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_TRUE(copy.matches("abbbc"));
  EXPECT_TRUE(original.matches("abc"));
}

}  // namespace
}  // namespace tscope
