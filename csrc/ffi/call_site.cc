#include "ffi/call_site.h"

#include <new>
#include <stdexcept>
#include <vector>

#include "cache/cache_registry.h"

namespace ffi = xla::ffi;

namespace jax_apple_fft {
namespace {

std::string describe_shape(ffi::Span<const std::int64_t> dims) {
  std::string text = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

bool matches(const ffi::AnyBuffer& buffer, ffi::DataType dtype,
             const std::vector<std::int64_t>& shape) {
  const auto dims = buffer.dimensions();
  if (buffer.element_type() != dtype || dims.size() != shape.size()) return false;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != shape[i]) return false;
  return true;
}

}  // namespace

ffi::ErrorOr<std::shared_ptr<PlanCache>> find_call_site_cache(std::uint64_t handle,
                                                              const std::string& prefix) {
  if (auto cache = CacheRegistry::table().find(handle)) return cache;
  return ffi::Unexpected(ffi::Error::InvalidArgument(
      prefix + "the PlanCache this computation was traced with does not exist in this "
               "process (it was dropped, or the computation was traced in another process); "
               "trace it again with a live cache, or use the default cache, which every "
               "process has"));
}

ffi::Error check_call(const TransformSpec& spec, const ffi::AnyBuffer& in,
                      const ffi::AnyBuffer& out, const std::string& prefix) {
  const bool single = spec.precision == Precision::kSingle;
  const ffi::DataType complex_type = single ? ffi::DataType::C64 : ffi::DataType::C128;
  const ffi::DataType real_type = single ? ffi::DataType::F32 : ffi::DataType::F64;
  const ffi::DataType in_type = spec.kind == TransformKind::kR2C ? real_type : complex_type;
  const ffi::DataType out_type = spec.kind == TransformKind::kC2R ? real_type : complex_type;
  if (!matches(in, in_type, spec.in_shape))
    return ffi::Error::InvalidArgument(prefix + "input buffer " + describe_shape(in.dimensions()) +
                                       " does not match the planned transform");
  if (!matches(out, out_type, spec.out_shape))
    return ffi::Error::InvalidArgument(prefix + "output buffer " +
                                       describe_shape(out.dimensions()) +
                                       " does not match the planned transform");
  return ffi::Error::Success();
}

ffi::Error error_from_exception(const std::string& prefix) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, prefix + "out of memory");
  } catch (const CacheClosedError& e) {
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition, prefix + e.what());
  } catch (const std::invalid_argument& e) {
    return ffi::Error::InvalidArgument(prefix + e.what());
  } catch (const std::exception& e) {
    return ffi::Error::Internal(prefix + e.what());
  } catch (...) {
    return ffi::Error::Internal(prefix + "unknown error");
  }
}

}  // namespace jax_apple_fft
