// The kernel library as one source text, for compiling at run time.
//
// Metal's run-time compiler has no include path, so the shipped sources are
// joined into one text: each quoted #include is replaced by the file it
// names (once, honouring #pragma once); system includes stay as they are.
#pragma once

#include <filesystem>
#include <string>

namespace jax_apple_fft {

// Throws std::runtime_error naming the file that cannot be read.
std::string amalgamated_shader_source(const std::filesystem::path& main_file);

}  // namespace jax_apple_fft
