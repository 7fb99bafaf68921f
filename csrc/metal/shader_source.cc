#include "metal/shader_source.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace jax_apple_fft {
namespace {

// The file name of a line `#include "name"`, or empty for any other line.
std::string quoted_include(const std::string& line) {
  std::size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos || line.compare(at, 8, "#include") != 0) return {};
  std::size_t open = line.find('"', at + 8);
  if (open == std::string::npos) return {};
  std::size_t close = line.find('"', open + 1);
  if (close == std::string::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

bool is_pragma_once(const std::string& line) {
  return line.find("#pragma once") != std::string::npos;
}

void append_file(const std::filesystem::path& file, std::set<std::filesystem::path>& seen,
                 std::string& out) {
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(file);
  // Each file once: the headers are #pragma once, the kernel files included once.
  if (!seen.insert(canonical).second) return;
  std::ifstream in(canonical);
  if (!in) throw std::runtime_error("cannot read Metal shader source " + canonical.string());
  std::string line;
  while (std::getline(in, line)) {
    if (is_pragma_once(line)) continue;
    std::string name = quoted_include(line);
    if (name.empty()) {
      out += line;
      out += '\n';
    } else {
      append_file(canonical.parent_path() / name, seen, out);
    }
  }
}

}  // namespace

std::string amalgamated_shader_source(const std::filesystem::path& main_file) {
  std::set<std::filesystem::path> seen;
  std::string out;
  append_file(main_file, seen, out);
  return out;
}

}  // namespace jax_apple_fft
