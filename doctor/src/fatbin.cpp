#include "tscope/doctor/fatbin.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>

namespace tscope::doctor {
namespace {

// The fatbinary layout is not documented by NVIDIA; these fields are the ones cuobjdump reports
// and were checked against nvcc 13.0 output: a 16-byte container header followed by entries,
// each with its own header (size in the header) and payload.
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::size_t kContainerHeaderSize = 16;
constexpr std::size_t kEntryHeaderMinimum = 64;
constexpr std::uint16_t kEntryKindPtx = 1;
constexpr std::uint16_t kEntryKindElf = 2;
constexpr std::size_t kEntryArchOffset = 28;
constexpr std::size_t kEntryFlagsOffset = 40;
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;
// Containers of several translation units are concatenated on this boundary.
constexpr std::size_t kContainerAlignment = 8;

template <typename Value>
Value load(std::span<const std::byte> bytes, std::size_t offset) {
  Value value;
  std::memcpy(&value, bytes.data() + offset, sizeof(Value));
  return value;
}

[[noreturn]] void fail(const std::string& origin, std::size_t offset, const std::string& what) {
  throw FatbinError(fmt::format("{}: offset {}: {}", origin, offset, what));
}

std::size_t align_up(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

EmbeddedImage parse_entry_header(std::span<const std::byte> entry, std::uint16_t kind) {
  EmbeddedImage image;
  image.kind = kind == kEntryKindPtx ? ImageKind::ptx : ImageKind::sass;
  image.arch = static_cast<int>(load<std::uint32_t>(entry, kEntryArchOffset));
  const auto flags = load<std::uint64_t>(entry, kEntryFlagsOffset);
  if (flags & kFlagArchSpecific) {
    image.variant = ArchVariant::arch_specific;
  } else if (flags & kFlagFamilySpecific) {
    image.variant = ArchVariant::family_specific;
  }
  return image;
}

FatbinContainer parse_container(std::span<const std::byte> section, std::size_t start,
                                std::size_t end, const std::string& origin,
                                std::size_t section_offset) {
  FatbinContainer container;
  std::size_t cursor = start;
  while (cursor < end) {
    if (end - cursor < kEntryHeaderMinimum) {
      fail(origin, section_offset + cursor, "truncated fatbinary entry header");
    }
    const auto kind = load<std::uint16_t>(section, cursor);
    const auto header_size = load<std::uint32_t>(section, cursor + 4);
    const auto payload_size = load<std::uint64_t>(section, cursor + 8);
    if (header_size < kEntryHeaderMinimum || header_size > end - cursor ||
        payload_size > end - cursor - header_size) {
      fail(origin, section_offset + cursor, "fatbinary entry overruns its container");
    }
    if (kind != kEntryKindPtx && kind != kEntryKindElf) {
      fail(origin, section_offset + cursor, fmt::format("unknown fatbinary entry kind {}", kind));
    }
    container.images.push_back(parse_entry_header(section.subspan(cursor, header_size), kind));
    cursor += header_size + payload_size;
  }
  return container;
}

struct SectionLocation {
  std::uint64_t offset;
  std::uint64_t size;
};

void read_exact(std::ifstream& file, std::uint64_t offset, void* destination, std::size_t size,
                const std::string& origin) {
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(static_cast<char*>(destination), static_cast<std::streamsize>(size));
  if (!file) {
    fail(origin, offset, fmt::format("cannot read {} bytes (file truncated?)", size));
  }
}

std::vector<SectionLocation> fatbin_sections(std::ifstream& file, std::uint64_t file_size,
                                             const std::string& origin) {
  Elf64_Ehdr header;
  if (file_size < sizeof(header)) {
    fail(origin, 0, "not an ELF file (too short)");
  }
  read_exact(file, 0, &header, sizeof(header), origin);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    fail(origin, 0, "not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    fail(origin, EI_CLASS, "only little-endian ELF64 files carry CUDA fatbinaries we can read");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shstrndx >= header.e_shnum ||
      header.e_shoff > file_size ||
      header.e_shnum > (file_size - header.e_shoff) / sizeof(Elf64_Shdr)) {
    fail(origin, offsetof(Elf64_Ehdr, e_shoff), "section header table out of bounds");
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  read_exact(file, header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr), origin);

  const Elf64_Shdr& names = sections[header.e_shstrndx];
  if (names.sh_offset > file_size || names.sh_size > file_size - names.sh_offset) {
    fail(origin, header.e_shoff, "section name table out of bounds");
  }
  std::string name_table(names.sh_size, '\0');
  read_exact(file, names.sh_offset, name_table.data(), name_table.size(), origin);

  std::vector<SectionLocation> found;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_name >= name_table.size() || section.sh_type == SHT_NOBITS) {
      continue;
    }
    const std::string_view name(name_table.c_str() + section.sh_name);
    if (name != ".nv_fatbin" && name != "__nv_relfatbin") {
      continue;
    }
    if (section.sh_offset > file_size || section.sh_size > file_size - section.sh_offset) {
      fail(origin, section.sh_offset, fmt::format("section {} out of bounds", name));
    }
    found.push_back({section.sh_offset, section.sh_size});
  }
  return found;
}

bool runs_natively(const EmbeddedImage& image, ComputeCapability device) {
  const int major = image.arch / 10;
  switch (image.variant) {
    case ArchVariant::arch_specific:
      return image.arch == device.arch();
    case ArchVariant::generic:
    case ArchVariant::family_specific:
      return major == device.major && image.arch <= device.arch();
  }
  return false;
}

bool compiles_for(const EmbeddedImage& image, ComputeCapability device) {
  // PTX is forward compatible to every later architecture, except arch- and family-specific PTX
  // which uses instructions only its own architecture (family) has.
  if (image.variant == ArchVariant::generic) {
    return image.arch <= device.arch();
  }
  return runs_natively(image, device);
}

}  // namespace

std::string EmbeddedImage::name() const {
  const char* suffix = variant == ArchVariant::arch_specific     ? "a"
                       : variant == ArchVariant::family_specific ? "f"
                                                                 : "";
  return fmt::format("{}_{}{}", kind == ImageKind::sass ? "sm" : "compute", arch, suffix);
}

std::vector<FatbinContainer> parse_fatbin(std::span<const std::byte> section,
                                          const std::string& origin, std::size_t section_offset) {
  std::vector<FatbinContainer> containers;
  std::size_t cursor = 0;
  while (cursor < section.size()) {
    if (section.size() - cursor < kContainerHeaderSize) {
      const bool only_padding =
          std::all_of(section.begin() + static_cast<std::ptrdiff_t>(cursor), section.end(),
                      [](std::byte value) { return value == std::byte{0}; });
      if (only_padding) {
        break;
      }
      fail(origin, section_offset + cursor, "truncated fatbinary container header");
    }
    if (load<std::uint32_t>(section, cursor) != kFatbinMagic) {
      fail(origin, section_offset + cursor, "bad fatbinary magic (expected 0xBA55ED50)");
    }
    const auto header_size = load<std::uint16_t>(section, cursor + 6);
    const auto body_size = load<std::uint64_t>(section, cursor + 8);
    if (header_size < kContainerHeaderSize || header_size > section.size() - cursor ||
        body_size > section.size() - cursor - header_size) {
      fail(origin, section_offset + cursor, "fatbinary container overruns its section");
    }
    const std::size_t body_start = cursor + header_size;
    const std::size_t body_end = body_start + body_size;
    containers.push_back(parse_container(section, body_start, body_end, origin, section_offset));
    cursor = align_up(body_end, kContainerAlignment);
  }
  return containers;
}

std::vector<FatbinContainer> read_fatbin_containers(const std::filesystem::path& path) {
  const std::string origin = path.string();
  std::error_code error;
  const auto file_size = std::filesystem::file_size(path, error);
  if (error) {
    throw FatbinError(fmt::format("{}: {}", origin, error.message()));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw FatbinError(fmt::format("{}: cannot open for reading", origin));
  }
  std::vector<FatbinContainer> containers;
  for (const SectionLocation& location : fatbin_sections(file, file_size, origin)) {
    std::vector<std::byte> bytes(location.size);
    read_exact(file, location.offset, bytes.data(), bytes.size(), origin);
    auto parsed = parse_fatbin(bytes, origin, location.offset);
    containers.insert(containers.end(), std::make_move_iterator(parsed.begin()),
                      std::make_move_iterator(parsed.end()));
  }
  return containers;
}

KernelImageVerdict match_kernel_image(std::span<const EmbeddedImage> images,
                                      ComputeCapability device) {
  // The driver prefers the newest machine code that runs, and JIT-compiles the newest fitting
  // PTX only when no machine code does.
  std::optional<EmbeddedImage> best_sass;
  std::optional<EmbeddedImage> best_ptx;
  for (const EmbeddedImage& image : images) {
    if (image.kind == ImageKind::sass && runs_natively(image, device)) {
      if (!best_sass || image.arch > best_sass->arch) {
        best_sass = image;
      }
    } else if (image.kind == ImageKind::ptx && compiles_for(image, device)) {
      if (!best_ptx || image.arch > best_ptx->arch) {
        best_ptx = image;
      }
    }
  }
  if (best_sass) {
    return {KernelImageMatch::machine_code, best_sass->name()};
  }
  if (best_ptx) {
    return {KernelImageMatch::ptx_jit, best_ptx->name()};
  }
  return {KernelImageMatch::none, {}};
}

}  // namespace tscope::doctor
