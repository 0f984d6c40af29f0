#pragma once
// What GPU code a binary carries: the images in its CUDA fatbinary (.nv_fatbin), read straight
// from the ELF file, and whether one of them can run on a device of a given compute capability.

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tscope::doctor {

// The file is not a readable ELF64 object or its fatbinary is malformed; what() names the file
// and the byte offset.
class FatbinError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ImageKind { sass, ptx };

// Architecture-specific ("sm_90a") code runs on exactly one compute capability; family-specific
// ("sm_100f") code runs on later minors of the same major.
enum class ArchVariant { generic, arch_specific, family_specific };

struct EmbeddedImage {
  ImageKind kind = ImageKind::sass;
  int arch = 0;  // 10 * major + minor: 80 for sm_80 / compute_80
  ArchVariant variant = ArchVariant::generic;

  // "sm_80", "compute_90", "sm_90a", "sm_100f": the names nvcc's -gencode uses.
  std::string name() const;
  bool operator==(const EmbeddedImage&) const = default;
};

// One fatbinary container: the GPU code of one translation unit. Each container must hold an
// image that fits the device, or that unit's kernels fail to launch while others run.
struct FatbinContainer {
  std::vector<EmbeddedImage> images;
};

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  int arch() const { return 10 * major + minor; }
};

// Parses the contents of a fatbinary section (one or more concatenated containers).
// `origin` names the file for error messages; `section_offset` is where the section starts in it.
std::vector<FatbinContainer> parse_fatbin(std::span<const std::byte> section,
                                          const std::string& origin, std::size_t section_offset);

// The containers of every fatbinary section (.nv_fatbin, and __nv_relfatbin from relocatable
// device code) of the ELF file at `path`; empty when it carries no GPU code.
std::vector<FatbinContainer> read_fatbin_containers(const std::filesystem::path& path);

enum class KernelImageMatch {
  machine_code,  // SASS that runs as is
  ptx_jit,       // only PTX: the driver compiles it at first launch (slow start, needs the JIT)
  none,          // launches fail with "no kernel image is available for execution on the device"
};

struct KernelImageVerdict {
  KernelImageMatch match = KernelImageMatch::none;
  std::string image;  // the image the driver would pick, empty when none fits
};

// The image the driver would load from one container for `device`.
KernelImageVerdict match_kernel_image(std::span<const EmbeddedImage> images,
                                      ComputeCapability device);

}  // namespace tscope::doctor
