// Every FFT kernel as one translation unit: what the Metal compiler builds
// into the library on macOS, and what the emulator compiles as C++.
#include "fft_permute.metal"
#include "fft_real.metal"
#include "fft_stockham.metal"
