// The Chrome reader's text cache: a text is found again, and texts that share their length and
// their first and last bytes (and so a slot) are never taken for one another.

#include "chrome_text_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tscope::trace::chrome_json {
namespace {

TEST(ChromeTextCacheTest, TextsThatDifferOnlyInsideAreKeptApart) {
  ChromeTextCache<int> cache;
  std::vector<std::string> texts;
  // Same length, same first and last eight bytes, one byte different in the middle; and short
  // texts that differ in any one byte.
  for (char middle = 'a'; middle <= 'z'; ++middle)
    texts.push_back("0123456789" + std::string(1, middle) + "abcdefghij");
  for (std::size_t length = 0; length <= 16; ++length) {
    std::string text(length, 'x');
    texts.push_back(text);
    if (length != 0) {
      text[length / 2] = 'y';
      texts.push_back(text);
    }
  }
  int made = 0;
  std::vector<int> ids;
  ids.reserve(texts.size());
  for (const std::string& text : texts)
    ids.push_back(cache.find_or_make(text, [&](std::string_view) { return made++; }));
  for (std::size_t index = 0; index < texts.size(); ++index) {
    EXPECT_EQ(cache.find_or_make(texts[index],
                                 [&](std::string_view) -> int {
                                   // A miss here means the slot was taken by a look-alike;
                                   // its value must still be this text's own.
                                   return ids[index];
                                 }),
              ids[index])
        << texts[index];
  }
  EXPECT_EQ(made, static_cast<int>(texts.size()));
}

}  // namespace
}  // namespace tscope::trace::chrome_json
