#include "store/build_id.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "support/error.hpp"

namespace c3 {

std::optional<std::string> find_gnu_build_id(const uint8_t *notes, size_t size, size_t align) {
  if (align < 4) align = 4;
  auto round_up = [align](size_t n) { return (n + align - 1) / align * align; };
  size_t pos = 0;
  while (pos <= size && size - pos >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) nh;
    std::memcpy(&nh, notes + pos, sizeof nh);
    size_t name_at = pos + sizeof nh;
    if (nh.n_namesz > size - name_at) return std::nullopt;
    size_t desc_at = name_at + round_up(nh.n_namesz);
    if (desc_at > size || nh.n_descsz > size - desc_at) return std::nullopt;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        std::memcmp(notes + name_at, "GNU", 4) == 0 && nh.n_descsz > 0)
      return std::string(reinterpret_cast<const char *>(notes + desc_at), nh.n_descsz);
    size_t next = desc_at + round_up(nh.n_descsz);
    if (next <= pos || next > size) return std::nullopt;
    pos = next;
  }
  return std::nullopt;
}

std::string content_hash(const uint8_t *data, size_t size) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < size; ++i) {
    a = (a ^ data[i]) * 0x100000001b3ull;
    b = (b ^ uint8_t(data[i] + i)) * 0x100000001b3ull;
  }
  std::string out(16, '\0');
  std::memcpy(&out[0], &a, 8);
  std::memcpy(&out[8], &b, 8);
  return out;
}

std::string to_hex(const std::string &bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

namespace {

int visit_main_program(struct dl_phdr_info *info, size_t, void *data) {
  auto *result = static_cast<std::optional<std::string> *>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto *notes = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
    *result = find_gnu_build_id(notes, ph.p_memsz, ph.p_align);
    if (*result) break;
  }
  return 1;  // the first object reported is the main program; stop there
}

std::string hash_of_self() {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_sys_error("open /proc/self/exe");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    throw_sys_error("stat /proc/self/exe");
  }
  void *map =
      st.st_size ? mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  close(fd);
  if (map == MAP_FAILED) throw_sys_error("map /proc/self/exe");
  std::string h = "exe:" + content_hash(static_cast<const uint8_t *>(map), size_t(st.st_size));
  if (map) munmap(map, size_t(st.st_size));
  return h;
}

}  // namespace

const std::string &executable_build_id() {
  static const std::string id = [] {
    std::optional<std::string> found;
    dl_iterate_phdr(visit_main_program, &found);
    return found ? *found : hash_of_self();
  }();
  return id;
}

}  // namespace c3
