// How CUDA_VISIBLE_DEVICES values map to visible GPUs, following CUDA's rule that enumeration
// stops at the first entry that is neither an index nor a GPU-/MIG- UUID.

#include "tscope/doctor/visible_devices.h"

#include <gtest/gtest.h>

namespace tscope::doctor {
namespace {

TEST(VisibleDevicesTest, UnsetShowsEveryDevice) {
  const VisibleDevices devices = parse_visible_devices(std::nullopt);
  EXPECT_FALSE(devices.is_set);
  EXPECT_FALSE(devices.hides_all());
}

TEST(VisibleDevicesTest, EmptyValueHidesEveryDevice) {
  EXPECT_TRUE(parse_visible_devices("").hides_all());
}

TEST(VisibleDevicesTest, MinusOneHidesEveryDevice) {
  EXPECT_TRUE(parse_visible_devices("-1").hides_all());
  EXPECT_TRUE(parse_visible_devices("NoDevFiles").hides_all());
}

TEST(VisibleDevicesTest, CountsIndicesAndUuids) {
  EXPECT_EQ(parse_visible_devices("0,1").usable_entries, 2);
  EXPECT_EQ(parse_visible_devices(" 2 , 3 ").usable_entries, 2);
  EXPECT_EQ(parse_visible_devices("GPU-8e5a7c1d-0000-0000-0000-000000000000,MIG-1").usable_entries,
            2);
}

TEST(VisibleDevicesTest, EnumerationStopsAtTheFirstInvalidEntry) {
  const VisibleDevices devices = parse_visible_devices("1,-1,2");
  EXPECT_EQ(devices.usable_entries, 1);
  EXPECT_FALSE(devices.hides_all());
}

}  // namespace
}  // namespace tscope::doctor
