# Fetches pocketfft as maintained in ducc0's FFT component.
#
# The pinned ducc0 source distribution is downloaded from the package index
# with pip (the only network this build assumes), verified by sha256, and
# unpacked into the build tree. Only files that carry the
# "BSD-3-Clause OR GPL-2.0-or-later" SPDX tag are made visible to our
# compiler; we use them under BSD-3-Clause. Nothing third-party is committed.
#
# Result: POCKETFFT_INCLUDE_DIR and POCKETFFT_DEFINITIONS for the CPU
# kernels, which build pocketfft (ducc0's threading shim included, built
# single-threaded: it never starts a thread) in a namespace of their own per
# SIMD level (cmake/CpuInstructionSet.cmake); target `pocketfft::pocketfft`,
# the headers in a namespace of their own, for the tests that include kernel
# headers; and the file ${POCKETFFT_LICENSE_FILE}, the upstream BSD notice
# shipped with the wheel.

set(DUCC0_VERSION "0.42.0")
set(DUCC0_SHA256 "4e11c59b53a43355b053aebb2a62ee16eebeed026575f7d216cf09d437ce52ef")
set(DUCC0_SPDX_TAG "SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later")

set(_ducc0_root "${CMAKE_BINARY_DIR}/_deps/ducc0")
set(_ducc0_archive "${_ducc0_root}/download/ducc0-${DUCC0_VERSION}.tar.gz")
set(_ducc0_include "${_ducc0_root}/include")
set(POCKETFFT_LICENSE_FILE "${_ducc0_root}/LICENSE-pocketfft-ducc0.txt")

function(_ducc0_verify_archive out_ok)
  set(${out_ok} FALSE PARENT_SCOPE)
  if(EXISTS "${_ducc0_archive}")
    file(SHA256 "${_ducc0_archive}" _hash)
    if(_hash STREQUAL DUCC0_SHA256)
      set(${out_ok} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

_ducc0_verify_archive(_have_archive)
if(NOT _have_archive)
  if(DEFINED ENV{JAX_APPLE_FFT_DUCC0_SDIST} AND EXISTS "$ENV{JAX_APPLE_FFT_DUCC0_SDIST}")
    # Offline builds may point at a previously downloaded sdist.
    file(MAKE_DIRECTORY "${_ducc0_root}/download")
    file(COPY_FILE "$ENV{JAX_APPLE_FFT_DUCC0_SDIST}" "${_ducc0_archive}")
  else()
    message(STATUS "Downloading ducc0 ${DUCC0_VERSION} sdist with pip")
    file(MAKE_DIRECTORY "${_ducc0_root}/download")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --quiet --no-deps
              --no-binary ducc0 "ducc0==${DUCC0_VERSION}" -d "${_ducc0_root}/download"
      RESULT_VARIABLE _pip_result)
    if(NOT _pip_result EQUAL 0)
      message(FATAL_ERROR "pip could not download the ducc0 ${DUCC0_VERSION} sdist")
    endif()
  endif()
  _ducc0_verify_archive(_have_archive)
  if(NOT _have_archive)
    message(FATAL_ERROR "ducc0 sdist failed its sha256 check (expected ${DUCC0_SHA256})")
  endif()
endif()

if(NOT EXISTS "${_ducc0_include}/.complete")
  file(REMOVE_RECURSE "${_ducc0_root}/unpacked" "${_ducc0_include}")
  file(ARCHIVE_EXTRACT INPUT "${_ducc0_archive}" DESTINATION "${_ducc0_root}/unpacked")
  set(_src "${_ducc0_root}/unpacked/ducc0-${DUCC0_VERSION}/src")
  file(GLOB_RECURSE _candidates RELATIVE "${_src}"
       "${_src}/ducc0/fft/*" "${_src}/ducc0/infra/*" "${_src}/ducc0/math/*")
  foreach(_rel IN LISTS _candidates)
    file(STRINGS "${_src}/${_rel}" _tag LIMIT_COUNT 1 REGEX "${DUCC0_SPDX_TAG}")
    if(_tag)
      get_filename_component(_dir "${_ducc0_include}/${_rel}" DIRECTORY)
      file(COPY "${_src}/${_rel}" DESTINATION "${_dir}")
    endif()
  endforeach()
  # The BSD notice is the license block at the top of the FFT header.
  file(READ "${_src}/ducc0/fft/fft.h" _header)
  set(_last_words "POSSIBILITY OF SUCH DAMAGE.")
  string(FIND "${_header}" "${_last_words}" _end)
  string(LENGTH "${_last_words}" _len)
  math(EXPR _end "${_end} + ${_len}")
  string(SUBSTRING "${_header}" 0 ${_end} _notice)
  string(REPLACE "/*" "" _notice "${_notice}")
  string(REPLACE "*/" "" _notice "${_notice}")
  file(WRITE "${POCKETFFT_LICENSE_FILE}"
       "pocketfft (ducc0 ${DUCC0_VERSION} FFT component), used under BSD-3-Clause.\n\n${_notice}\n")
  file(REMOVE_RECURSE "${_ducc0_root}/unpacked")
  file(TOUCH "${_ducc0_include}/.complete")
endif()

add_library(pocketfft INTERFACE)
add_library(pocketfft::pocketfft ALIAS pocketfft)
target_include_directories(pocketfft SYSTEM INTERFACE "${_ducc0_include}")
set(POCKETFFT_INCLUDE_DIR "${_ducc0_include}")
# No global state: no plan cache inside the library and no
# library-owned thread pool (our PlanCache owns plans and threads).
set(POCKETFFT_DEFINITIONS DUCC0_NO_FFT_CACHE DUCC0_NO_LOWLEVEL_THREADING)
target_compile_definitions(pocketfft INTERFACE
  ${POCKETFFT_DEFINITIONS}
  # A private namespace keeps these symbols apart from any other ducc0 copy
  # loaded into the same process (jaxlib carries one).
  DUCC0_NAMESPACE=jax_apple_fft_ducc0)
