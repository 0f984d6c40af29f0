// Reading the profiling restriction out of /proc/driver/nvidia/params, in both spellings that
// drivers publish.

#include "tscope/doctor/profiling_permission.h"

#include <gtest/gtest.h>

#include <string>

namespace tscope::doctor {
namespace {

// The shape of /proc/driver/nvidia/params: one "Name: value" per line.
std::string params_with(const std::string& line) {
  return "ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\n" + line +
         "\nEnableGpuFirmware: 18\nDmaRemapPeerMmio: 1\n";
}

TEST(ProfilingPermissionTest, AdminOnlyWhenResourceManagerKeyIsOne) {
  EXPECT_EQ(parse_profiling_admin_only(params_with("RmProfilingAdminOnly: 1")), true);
}

TEST(ProfilingPermissionTest, OpenToEveryoneWhenResourceManagerKeyIsZero) {
  EXPECT_EQ(parse_profiling_admin_only(params_with("RmProfilingAdminOnly: 0")), false);
}

TEST(ProfilingPermissionTest, ReadsTheModuleOptionSpellingOfOlderDrivers) {
  EXPECT_EQ(parse_profiling_admin_only(params_with("RestrictProfilingToAdminUsers: 1")), true);
}

TEST(ProfilingPermissionTest, UnknownWhenTheLineIsAbsent) {
  EXPECT_EQ(parse_profiling_admin_only(params_with("EnableMSI: 1")), std::nullopt);
  EXPECT_EQ(parse_profiling_admin_only(""), std::nullopt);
}

TEST(ProfilingPermissionTest, UnknownWhenTheValueIsNotABoolean) {
  EXPECT_EQ(parse_profiling_admin_only(params_with("RmProfilingAdminOnly: yes")), std::nullopt);
  EXPECT_EQ(parse_profiling_admin_only(params_with("RmProfilingAdminOnly: 7")), std::nullopt);
}

}  // namespace
}  // namespace tscope::doctor
