#include "object_file.hpp"

#include <elf.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace c3cc {
namespace {

bool read_at(std::ifstream &in, std::uint64_t offset, void *out, std::size_t size) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char *>(out), static_cast<std::streamsize>(size));
  return static_cast<std::size_t>(in.gcount()) == size;
}

// [offset, offset + size) lies within a file of file_size bytes.
bool within(std::uint64_t offset, std::uint64_t size, std::uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

bool read_header(std::ifstream &in, Elf64_Ehdr &header) {
  return read_at(in, 0, &header, sizeof header) && std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
         header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_ident[EI_DATA] == ELFDATA2LSB;
}

}  // namespace

InputKind classify_link_input(const std::string &path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return InputKind::NotAFile;
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (in && read_header(in, header) && header.e_type == ET_REL) return InputKind::Object;
  return InputKind::Other;
}

std::optional<std::string> read_object_section(const std::string &path, const std::string &name) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  const auto file_size = static_cast<std::uint64_t>(info.st_size);
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in || !read_header(in, header) || header.e_type != ET_REL) return std::nullopt;
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 ||
      header.e_shstrndx >= header.e_shnum)
    return std::nullopt;  // extended numbering (over 65279 sections) is not looked into
  if (!within(header.e_shoff, std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr), file_size))
    return std::nullopt;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(in, header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr)))
    return std::nullopt;
  const Elf64_Shdr &names = sections[header.e_shstrndx];
  if (!within(names.sh_offset, names.sh_size, file_size)) return std::nullopt;
  std::string name_table(names.sh_size, '\0');
  if (!read_at(in, names.sh_offset, name_table.data(), name_table.size())) return std::nullopt;
  for (const Elf64_Shdr &section : sections) {
    if (section.sh_name >= name_table.size() || section.sh_type == SHT_NOBITS) continue;
    if (std::strcmp(name_table.c_str() + section.sh_name, name.c_str()) != 0) continue;
    if (!within(section.sh_offset, section.sh_size, file_size)) return std::nullopt;
    std::string bytes(section.sh_size, '\0');
    if (!read_at(in, section.sh_offset, bytes.data(), bytes.size())) return std::nullopt;
    return bytes;
  }
  return std::nullopt;
}

}  // namespace c3cc
