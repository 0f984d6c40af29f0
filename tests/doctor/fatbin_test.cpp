// Reading GPU code out of ELF files and deciding whether it runs on a compute capability. The
// probes are compiled by this build (CMakeLists.txt) with known architectures: one object with
// sm_80 machine code + compute_90 PTX, and a shared library linking it with an sm_75 + compute_75
// unit.

#include "tscope/doctor/fatbin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "scratch_folder.h"
#include "tscope/doctor/kernel_coverage.h"

namespace tscope::doctor {
namespace {

constexpr EmbeddedImage kSm80{ImageKind::sass, 80, ArchVariant::generic};
constexpr EmbeddedImage kCompute90{ImageKind::ptx, 90, ArchVariant::generic};

#ifdef TSCOPE_PROBE_OBJECT
const std::filesystem::path kProbeObject = TSCOPE_PROBE_OBJECT;
const std::filesystem::path kProbeLibrary = TSCOPE_PROBE_LIBRARY;
#define TSCOPE_REQUIRE_CUDA_PROBES() (void)0
#else
const std::filesystem::path kProbeObject;
const std::filesystem::path kProbeLibrary;
#define TSCOPE_REQUIRE_CUDA_PROBES() \
  GTEST_SKIP() << "built without the CUDA toolkit: no probe GPU code to read"
#endif

KernelImageVerdict verdict_on_probe(int major, int minor) {
  const auto containers = read_fatbin_containers(kProbeObject);
  return match_kernel_image(containers.at(0).images, {major, minor});
}

TEST(FatbinTest, ProbeObjectCarriesExactlyTheArchitecturesItWasBuiltFor) {
  TSCOPE_REQUIRE_CUDA_PROBES();
  const auto containers = read_fatbin_containers(kProbeObject);
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0].images, (std::vector<EmbeddedImage>{kSm80, kCompute90}));
}

TEST(FatbinTest, Turing75HasNoUsableImageInTheProbe) {
  TSCOPE_REQUIRE_CUDA_PROBES();
  EXPECT_EQ(verdict_on_probe(7, 5).match, KernelImageMatch::none);
}

// A compute capability, the image of the probe it runs and how; `behaviour` names the test.
struct ProbeVerdict {
  const char* behaviour;
  int major;
  int minor;
  KernelImageMatch match;
  const char* image;
};

class ProbeImageTest : public ::testing::TestWithParam<ProbeVerdict> {};

TEST_P(ProbeImageTest, Verdict) {
  TSCOPE_REQUIRE_CUDA_PROBES();
  const ProbeVerdict& expected = GetParam();
  const KernelImageVerdict verdict = verdict_on_probe(expected.major, expected.minor);
  EXPECT_EQ(verdict.match, expected.match) << "sm_" << expected.major << expected.minor;
  EXPECT_EQ(verdict.image, expected.image) << "sm_" << expected.major << expected.minor;
}

INSTANTIATE_TEST_SUITE_P(
    FatbinTest, ProbeImageTest,
    ::testing::Values(ProbeVerdict{"Ampere80RunsTheSm80MachineCode", 8, 0,
                                   KernelImageMatch::machine_code, "sm_80"},
                      ProbeVerdict{"Ampere86RunsSm80MachineCodeOfTheSameMajor", 8, 6,
                                   KernelImageMatch::machine_code, "sm_80"},
                      ProbeVerdict{"Hopper90JitCompilesTheCompute90Ptx", 9, 0,
                                   KernelImageMatch::ptx_jit, "compute_90"},
                      ProbeVerdict{"Blackwell100JitCompilesTheOlderPtx", 10, 0,
                                   KernelImageMatch::ptx_jit, "compute_90"}),
    [](const ::testing::TestParamInfo<ProbeVerdict>& probe) { return probe.param.behaviour; });

TEST(FatbinTest, LinkedLibraryKeepsOneContainerPerTranslationUnit) {
  TSCOPE_REQUIRE_CUDA_PROBES();
  // nvcc's order of images within a container is its own business; the set is what was asked.
  std::set<std::set<std::string>> units;
  for (const FatbinContainer& container : read_fatbin_containers(kProbeLibrary)) {
    std::set<std::string> names;
    std::ranges::transform(container.images, std::inserter(names, names.end()),
                           &EmbeddedImage::name);
    units.insert(names);
  }
  EXPECT_EQ(units,
            (std::set<std::set<std::string>>{{"sm_80", "compute_90"}, {"sm_75", "compute_75"}}));
}

TEST(FatbinTest, CoverageCountsEachTranslationUnitOfALinkedLibrary) {
  TSCOPE_REQUIRE_CUDA_PROBES();
  const std::vector<BinaryReport> binaries{
      {kProbeLibrary.string(), read_fatbin_containers(kProbeLibrary)}};

  const KernelCoverage turing = assess_kernel_coverage(binaries, {7, 5});
  EXPECT_EQ(turing.units, 2);
  EXPECT_EQ(turing.failing_units, 1);
  EXPECT_NE(turing.example.find("sm_80 compute_90"), std::string::npos) << turing.example;

  const KernelCoverage ampere = assess_kernel_coverage(binaries, {8, 0});
  EXPECT_EQ(ampere.failing_units, 0);
  EXPECT_EQ(ampere.jit_units, 1);

  const KernelCoverage hopper = assess_kernel_coverage(binaries, {9, 0});
  EXPECT_EQ(hopper.failing_units, 0);
  EXPECT_EQ(hopper.jit_units, 2);
}

TEST(FatbinTest, ElfWithoutGpuCodeHasNoContainers) {
  EXPECT_TRUE(read_fatbin_containers("/proc/self/exe").empty());
}

class CorruptFatbinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TSCOPE_REQUIRE_CUDA_PROBES();
    std::ifstream probe(kProbeObject, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(probe), {});
    const std::string magic = "\x50\xED\x55\xBA";
    magic_offset_ = bytes_.find(magic);
    ASSERT_NE(magic_offset_, std::string::npos) << "no fatbinary magic in " << kProbeObject;
    path_ = tscope::testing::scratch_path("tscope_doctor_corrupt.o");
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }

  void write(const std::string& bytes) const {
    std::ofstream(path_, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  std::string bytes_;
  std::size_t magic_offset_ = 0;
  std::filesystem::path path_;
};

TEST_F(CorruptFatbinTest, OversizedEntryIsReportedWithFileAndOffset) {
  std::string corrupt = bytes_;
  // The first entry's header size field: 16 bytes of container header, then 4 into the entry.
  const std::size_t entry = magic_offset_ + 16;
  corrupt[entry + 4] = '\xff';
  corrupt[entry + 5] = '\xff';
  corrupt[entry + 6] = '\xff';
  write(corrupt);
  try {
    read_fatbin_containers(path_);
    FAIL() << "an entry larger than its container was accepted";
  } catch (const FatbinError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path_.string()), std::string::npos) << message;
    EXPECT_NE(message.find("offset " + std::to_string(entry)), std::string::npos) << message;
  }
}

TEST_F(CorruptFatbinTest, BadMagicIsReported) {
  std::string corrupt = bytes_;
  corrupt[magic_offset_] = 'X';
  write(corrupt);
  EXPECT_THROW(read_fatbin_containers(path_), FatbinError);
}

TEST_F(CorruptFatbinTest, TruncatedFileIsRejected) {
  write(bytes_.substr(0, magic_offset_ + 40));
  EXPECT_THROW(read_fatbin_containers(path_), FatbinError);
}

TEST_F(CorruptFatbinTest, TextFileIsNotAnElf) {
  write("#!/bin/sh\necho not a binary\n");
  try {
    read_fatbin_containers(path_);
    FAIL() << "a shell script was accepted as ELF";
  } catch (const FatbinError& error) {
    EXPECT_NE(std::string(error.what()).find("not an ELF file"), std::string::npos) << error.what();
  }
}

TEST(KernelImageMatchTest, ArchSpecificMachineCodeRunsOnlyOnItsOwnArchitecture) {
  const std::vector<EmbeddedImage> images{{ImageKind::sass, 90, ArchVariant::arch_specific}};
  EXPECT_EQ(match_kernel_image(images, {9, 0}).match, KernelImageMatch::machine_code);
  EXPECT_EQ(match_kernel_image(images, {10, 0}).match, KernelImageMatch::none);
  EXPECT_EQ(match_kernel_image(images, {8, 9}).match, KernelImageMatch::none);
}

TEST(KernelImageMatchTest, FamilySpecificCodeRunsOnLaterMinorsOfItsMajorOnly) {
  const std::vector<EmbeddedImage> images{{ImageKind::sass, 100, ArchVariant::family_specific},
                                          {ImageKind::ptx, 100, ArchVariant::family_specific}};
  EXPECT_EQ(match_kernel_image(images, {10, 3}).match, KernelImageMatch::machine_code);
  EXPECT_EQ(match_kernel_image(images, {12, 0}).match, KernelImageMatch::none);
}

TEST(KernelImageMatchTest, DriverPrefersTheNewestFittingMachineCode) {
  const std::vector<EmbeddedImage> images{{ImageKind::sass, 80, ArchVariant::generic},
                                          {ImageKind::sass, 86, ArchVariant::generic},
                                          {ImageKind::sass, 89, ArchVariant::generic},
                                          {ImageKind::ptx, 80, ArchVariant::generic}};
  EXPECT_EQ(match_kernel_image(images, {8, 7}).image, "sm_86");
}

TEST(KernelImageMatchTest, ImageNamesFollowNvccSpelling) {
  EXPECT_EQ((EmbeddedImage{ImageKind::sass, 90, ArchVariant::arch_specific}).name(), "sm_90a");
  EXPECT_EQ((EmbeddedImage{ImageKind::ptx, 100, ArchVariant::family_specific}).name(),
            "compute_100f");
  EXPECT_EQ(kCompute90.name(), "compute_90");
}

}  // namespace
}  // namespace tscope::doctor
