# Renames, in one SIMD level's object of the CPU kernels, every symbol that
# another object may define too: the weak and unique ones (inline functions,
# template instantiations, vtables, their static data). The linker keeps one
# copy of each such symbol for the whole library; renamed, the level's copies
# (compiled for its instructions) serve only its own code. Strong symbols
# must all be the level's own (in its namespaces): anything else fails here.
#
# cmake -DNM=nm -DOBJCOPY=objcopy -DOBJECT=in.o -DOUTPUT=out.o -DLEVEL=avx2
#       -P PrivatizeSymbols.cmake

execute_process(COMMAND "${NM}" -P --defined-only "${OBJECT}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${NM} could not list ${OBJECT}")
endif()

set(own_namespaces "simd_${LEVEL}|jax_apple_fft_ducc0_${LEVEL}")
string(REPLACE "\n" ";" lines "${listing}")
set(renames "")
set(foreign "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^([^ ]+) ([A-Za-z]) ")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  set(type "${CMAKE_MATCH_2}")
  if(type MATCHES "^[WVu]$")
    string(APPEND renames "${name} ${name}.jax_apple_fft_simd_${LEVEL}\n")
  elseif(type MATCHES "^[TDBRG]$" AND NOT name MATCHES "${own_namespaces}")
    string(APPEND foreign "  ${name}\n")
  endif()
endforeach()
if(foreign)
  message(FATAL_ERROR "${OBJECT} defines symbols outside the ${LEVEL} kernels' namespaces:\n"
                      "${foreign}")
endif()

set(renames_file "${OUTPUT}.renames")
file(WRITE "${renames_file}" "${renames}")
execute_process(COMMAND "${OBJCOPY}" "--redefine-syms=${renames_file}" "${OBJECT}" "${OUTPUT}"
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${OBJCOPY} could not rename the symbols of ${OBJECT}")
endif()
