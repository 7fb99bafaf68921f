// The Apple executor. Each call encodes every dispatch of its program into
// one command buffer (one serial compute encoder, so each dispatch sees the
// previous one's writes), commits it and waits for completion.
#include "metal/apple/apple_executor.h"

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>
#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cache/plan_cache.h"
#include "metal/apple/apple_buffers.h"
#include "metal/cache_executors.h"
#include "metal/dispatch_bindings.h"
#include "metal/metal_program.h"
#include "metal/shader_source.h"

namespace jax_apple_fft {
namespace {

constexpr const char* kMetallibName = "jax_apple_fft.metallib";
constexpr const char* kLibrarySource = "shaders/fft_library.metal";

// Runs `body` inside an autorelease pool. No C++ exception may cross a pool
// (unwinding skips the pool's drain), so one thrown inside is caught there
// and rethrown once the pool has been drained.
template <class Body>
auto in_autorelease_pool(Body&& body) -> decltype(body()) {
  using Result = decltype(body());
  std::exception_ptr error;
  if constexpr (std::is_void_v<Result>) {
    @autoreleasepool {
      try {
        body();
      } catch (...) {
        error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  } else {
    std::optional<Result> result;
    @autoreleasepool {
      try {
        result.emplace(body());
      } catch (...) {
        error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return std::move(*result);
  }
}

std::string utf8(NSString* text) {
  const char* bytes = text != nil ? [text UTF8String] : nullptr;
  return bytes != nullptr ? std::string(bytes) : std::string("(no text)");
}

// Metal's string parameters are nonnull; an invalid UTF-8 string gives nil.
NSString* _Nonnull ns_string(const std::string& text) {
  NSString* converted = [NSString stringWithUTF8String:text.c_str()];
  if (converted == nil) throw std::invalid_argument("not valid UTF-8: " + text);
  return converted;
}

std::string describe(NSError* error) {
  return error != nil ? utf8([error localizedDescription]) : "unknown error";
}

// The package directory: where this extension module was loaded from.
std::filesystem::path package_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&make_apple_executor), &info) == 0 ||
      info.dli_fname == nullptr)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

class ApplePipeline final : public MetalPipeline {
 public:
  explicit ApplePipeline(id<MTLComputePipelineState> s) : state(s) {}
  // The host object only; the GPU code's size is not visible through Metal.
  std::size_t bytes() const override { return sizeof(*this); }
  id<MTLComputePipelineState> state;
};

// A plan's tables in a Metal buffer of their own, copied there once.
class AppleTables final : public MetalTables {
 public:
  explicit AppleTables(id<MTLBuffer> b) : buffer(b) {}
  std::size_t bytes() const override { return sizeof(*this) + [buffer length]; }
  id<MTLBuffer> buffer;
};

class AppleExecutor final : public MetalExecutor {
 public:
  AppleExecutor(id<MTLDevice> device, id<MTLCommandQueue> queue, id<MTLLibrary> library)
      : device_(device), queue_(queue), library_(library) {}

  MetalExecutorKind kind() const override { return MetalExecutorKind::apple; }

  std::shared_ptr<const MetalPipeline> build_pipeline(
      const std::string& kernel, const std::vector<std::uint32_t>& constants) override {
    return in_autorelease_pool([&] {
      NSError* error = nil;
      id<MTLFunction> function = nil;
      if (constants.empty()) {
        function = [library_ newFunctionWithName:ns_string(kernel)];
      } else {
        MTLFunctionConstantValues* values = [[MTLFunctionConstantValues alloc] init];
        for (std::size_t i = 0; i < constants.size(); ++i)
          [values setConstantValue:&constants[i] type:MTLDataTypeUInt atIndex:NSUInteger(i)];
        function = [library_ newFunctionWithName:ns_string(kernel)
                                  constantValues:values
                                           error:&error];
      }
      if (function == nil)
        throw std::invalid_argument("could not make the Metal function " + kernel + ": " +
                                    describe(error));
      id<MTLComputePipelineState> state =
          [device_ newComputePipelineStateWithFunction:function error:&error];
      if (state == nil)
        throw std::runtime_error("could not build the pipeline of " + kernel + ": " +
                                 describe(error));
      return std::shared_ptr<const MetalPipeline>(std::make_shared<ApplePipeline>(state));
    });
  }

  std::shared_ptr<const MetalTables> upload_tables(
      const std::shared_ptr<const MetalPlan>& plan) override {
    return in_autorelease_pool([&] {
      id<MTLBuffer> buffer = [device_ newBufferWithBytes:plan->tables.data()
                                                  length:plan->table_bytes()
                                                 options:MTLResourceStorageModeShared];
      if (buffer == nil)
        throw std::runtime_error("could not upload " + std::to_string(plan->table_bytes()) +
                                 " bytes of tables to the GPU");
      return std::shared_ptr<const MetalTables>(std::make_shared<AppleTables>(buffer));
    });
  }

  void run(const MetalProgram& program, const void* input, void* output,
           PlanCache& cache) override {
    count_call();
    if (program.steps.empty()) return;
    in_autorelease_pool([&] { encode_and_wait(program, input, output, cache); });
  }

 private:
  void encode_and_wait(const MetalProgram& program, const void* input, void* output,
                       PlanCache& cache) {
    ScratchArena::Lease work = cache.scratch().acquire(program.workspace_bytes());
    // A program that needs no workspace binds none (there is no memory to wrap).
    std::optional<BoundRange> workspace;
    if (program.workspace_bytes() > 0) workspace = bind(work.data(), program.workspace_bytes());
    const BoundRange in = bind_tensor(input, program.input_bytes);
    const BoundRange out = bind_tensor(output, program.output_bytes);

    // Everything that can fail is decided before encoding starts: an encoder
    // must be ended, and the GPU must get all of the work or none of it.
    CallPlaces<id<MTLBuffer>> call;
    call.input = Place<id<MTLBuffer>>{in.buffer, in.offset};
    call.output = Place<id<MTLBuffer>>{out.buffer, out.offset};
    if (workspace) call.workspace = Place<id<MTLBuffer>>{workspace->buffer, workspace->offset};
    std::vector<std::vector<BoundBuffer<id<MTLBuffer>>>> bound;  // per dispatch
    for (const MetalStep& step : program.steps) {
      check_limits(step);
      call.tables.reset();
      if (step.tables)
        call.tables = Place<id<MTLBuffer>>{static_cast<const AppleTables&>(*step.tables).buffer};
      const BindingFrame frame = step_frame(program, step);
      for (const MetalDispatch& d : step.plan->dispatches)
        bound.push_back(bind_dispatch(d, frame, call));
    }

    id<MTLCommandBuffer> commands = [queue_ commandBuffer];
    if (commands == nil) throw MetalExecutionError("could not create a Metal command buffer");
    id<MTLComputeCommandEncoder> encoder = [commands computeCommandEncoder];
    if (encoder == nil) throw MetalExecutionError("could not create a Metal compute encoder");
    std::size_t next = 0;
    for (const MetalStep& step : program.steps) {
      for (std::size_t i = 0; i < step.plan->dispatches.size(); ++i, ++next) {
        const MetalDispatch& d = step.plan->dispatches[i];
        [encoder setComputePipelineState:static_cast<const ApplePipeline&>(*step.pipelines[i]).state];
        for (const BoundBuffer<id<MTLBuffer>>& b : bound[next])
          [encoder setBuffer:b.place.handle offset:b.place.offset_bytes atIndex:b.index];
        [encoder setBytes:&d.params length:sizeof(d.params) atIndex:kMetalParamsIndex];
        [encoder setThreadgroupMemoryLength:threadgroup_memory_length(d) atIndex:0];
        [encoder dispatchThreadgroups:MTLSizeMake(d.threadgroups[0], d.threadgroups[1],
                                                  d.threadgroups[2])
                threadsPerThreadgroup:MTLSizeMake(d.threads[0], d.threads[1], d.threads[2])];
      }
    }
    [encoder endEncoding];
    [commands commit];
    [commands waitUntilCompleted];
    if ([commands status] != MTLCommandBufferStatusCompleted)
      throw MetalExecutionError("the GPU reported an error: " + describe([commands error]));
    copy_back_if_staged(out);
  }

  // Lengths must be multiples of 16 bytes, and every kernel declares the argument.
  static NSUInteger threadgroup_memory_length(const MetalDispatch& d) {
    return std::max<NSUInteger>(16, (d.threadgroup_memory_bytes + 15) / 16 * 16);
  }

  // A pipeline's thread limit may be below 1024 and depends on the device,
  // as does the threadgroup memory (the kernel's own plus what we set).
  void check_limits(const MetalStep& step) const {
    for (std::size_t i = 0; i < step.plan->dispatches.size(); ++i) {
      const MetalDispatch& d = step.plan->dispatches[i];
      const auto& pipeline = static_cast<const ApplePipeline&>(*step.pipelines[i]);
      const NSUInteger threads = d.threads[0] * d.threads[1] * d.threads[2];
      if (threads > pipeline.state.maxTotalThreadsPerThreadgroup)
        throw MetalExecutionError("kernel " + d.kernel + " needs " + std::to_string(threads) +
                                  " threads per threadgroup; this GPU allows " +
                                  std::to_string(pipeline.state.maxTotalThreadsPerThreadgroup));
      const NSUInteger memory =
          threadgroup_memory_length(d) + pipeline.state.staticThreadgroupMemoryLength;
      if (memory > device_.maxThreadgroupMemoryLength)
        throw MetalExecutionError("kernel " + d.kernel + " needs " + std::to_string(memory) +
                                  " bytes of threadgroup memory; this GPU allows " +
                                  std::to_string(device_.maxThreadgroupMemoryLength));
    }
  }

  // Our own memory (the workspace): wrapped in place, not counted as the
  // caller's tensors are.
  BoundRange bind(const void* data, std::size_t bytes) {
    BoundRange range = bind_host_range(device_, data, bytes);
    if (range.buffer == nil)
      throw MetalExecutionError("could not make " + std::to_string(bytes) +
                                " bytes visible to the GPU");
    return range;
  }

  BoundRange bind_tensor(const void* data, std::size_t bytes) {
    BoundRange range = bind(data, bytes);
    if (range.staged) {
      count_staged(range.bytes);
    } else {
      count_wrapped(range.bytes);
    }
    return range;
  }

  id<MTLDevice> device_;
  id<MTLCommandQueue> queue_;
  id<MTLLibrary> library_;
};

// The shipped .metallib if there is one, else the shipped sources compiled now.
id<MTLLibrary> load_library(id<MTLDevice> device) {
  const std::filesystem::path dir = package_directory();
  NSError* error = nil;
  const std::filesystem::path metallib = dir / kMetallibName;
  if (std::filesystem::exists(metallib)) {
    NSURL* url = [NSURL fileURLWithPath:ns_string(metallib.string())];
    id<MTLLibrary> library = [device newLibraryWithURL:url error:&error];
    if (library == nil)
      throw MetalUnavailableError("could not load " + metallib.string() + ": " + describe(error));
    return library;
  }
  std::string source;
  try {
    source = amalgamated_shader_source(dir / kLibrarySource);
  } catch (const std::exception& e) {
    throw MetalUnavailableError(std::string("no Metal kernel library: ") + e.what());
  }
  MTLCompileOptions* options = [MTLCompileOptions new];
  // The kernels need IEEE float semantics, as the build's -fno-fast-math.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  options.fastMathEnabled = NO;
#pragma clang diagnostic pop
  id<MTLLibrary> library =
      [device newLibraryWithSource:ns_string(source)
                           options:options
                             error:&error];
  if (library == nil)
    throw MetalUnavailableError("could not compile the Metal kernels: " + describe(error));
  return library;
}

}  // namespace

std::shared_ptr<MetalExecutor> make_apple_executor() {
  return in_autorelease_pool([] {
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (device == nil) throw MetalUnavailableError("this Mac has no Metal device");
    id<MTLCommandQueue> queue = [device newCommandQueue];
    if (queue == nil) throw MetalUnavailableError("could not create a Metal command queue");
    id<MTLLibrary> library = load_library(device);
    return std::shared_ptr<MetalExecutor>(std::make_shared<AppleExecutor>(device, queue, library));
  });
}

AppleMetalStatus apple_metal_status() {
  return in_autorelease_pool([]() -> AppleMetalStatus {
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (device == nil) return {false, "this Mac has no Metal device", ""};
    const std::filesystem::path dir = package_directory();
    if (std::filesystem::exists(dir / kMetallibName))
      return {true, "Metal on " + utf8([device name]), "metallib"};
    if (std::filesystem::exists(dir / kLibrarySource))
      return {true, "Metal on " + utf8([device name]) +
                        " (kernels compiled from source at first use)", "source"};
    return {false, "the Metal kernel library was not installed with jax_apple_fft", ""};
  });
}

}  // namespace jax_apple_fft
