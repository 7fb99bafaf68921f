// The Apple executor. Each call encodes every dispatch of its program into
// one command buffer (one serial compute encoder, so each dispatch sees the
// previous one's writes), commits it and waits for completion.
#include "metal/apple/apple_executor.h"

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>
#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cache/plan_cache.h"
#include "metal/apple/apple_buffers.h"
#include "metal/metal_executors.h"
#include "metal/metal_program.h"
#include "metal/shader_source.h"

namespace jax_apple_fft {
namespace {

constexpr const char* kMetallibName = "jax_apple_fft.metallib";
constexpr const char* kLibrarySource = "shaders/fft_library.metal";

std::string describe(NSError* error) {
  return error != nil ? std::string([[error localizedDescription] UTF8String]) : "unknown error";
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

class AppleExecutor final : public MetalExecutor {
 public:
  AppleExecutor(id<MTLDevice> device, id<MTLCommandQueue> queue, id<MTLLibrary> library)
      : device_(device), queue_(queue), library_(library) {}

  MetalExecutorKind kind() const override { return MetalExecutorKind::apple; }

  std::shared_ptr<const MetalPipeline> build_pipeline(const std::string& kernel) override {
    @autoreleasepool {
      id<MTLFunction> function =
          [library_ newFunctionWithName:[NSString stringWithUTF8String:kernel.c_str()]];
      if (function == nil) throw std::invalid_argument("the Metal library has no kernel " + kernel);
      NSError* error = nil;
      id<MTLComputePipelineState> state =
          [device_ newComputePipelineStateWithFunction:function error:&error];
      if (state == nil)
        throw std::runtime_error("could not build the pipeline of " + kernel + ": " +
                                 describe(error));
      return std::make_shared<ApplePipeline>(state);
    }
  }

  void run(const MetalProgram& program, const void* input, void* output,
           PlanCache& cache) override {
    count_call();
    if (program.steps.empty()) return;
    @autoreleasepool {
      ScratchArena::Lease work = cache.scratch().acquire(program.workspace_bytes());
      BoundRange in = bind(input, program.input_bytes);
      BoundRange out = bind(output, program.output_bytes);
      BoundRange workspace = bind(work.data(), program.workspace_bytes());
      // Everything that can fail is checked before the GPU gets any work.
      std::vector<BoundRange> tables;  // one per step, kept until the GPU is done
      for (const MetalStep& step : program.steps) {
        check_thread_limits(step);
        tables.push_back(bind(step.plan->tables.data(), step.plan->table_bytes()));
      }

      id<MTLCommandBuffer> commands = [queue_ commandBuffer];
      id<MTLComputeCommandEncoder> encoder = [commands computeCommandEncoder];
      if (commands == nil || encoder == nil)
        throw MetalExecutionError("could not create a Metal command buffer");
      for (std::size_t s = 0; s < program.steps.size(); ++s) {
        const MetalStep& step = program.steps[s];
        const MetalPlan& plan = *step.plan;
        auto tensor = [&](MetalTensor t) -> std::pair<id<MTLBuffer>, NSUInteger> {
          switch (t) {
            case MetalTensor::input:
              return {in.buffer, in.offset};
            case MetalTensor::output:
              return {out.buffer, out.offset};
            case MetalTensor::intermediate:
              return {workspace.buffer, workspace.offset};
          }
          return {nil, 0};
        };
        auto where = [&](MetalBuffer b) -> std::pair<id<MTLBuffer>, NSUInteger> {
          switch (b) {
            case MetalBuffer::input:
              return tensor(step.source);
            case MetalBuffer::output:
              return tensor(step.destination);
            case MetalBuffer::scratch:
              return {workspace.buffer, workspace.offset + program.scratch_offset()};
            case MetalBuffer::tables:
              return {tables[s].buffer, tables[s].offset};
          }
          return {nil, 0};
        };
        for (std::size_t i = 0; i < plan.dispatches.size(); ++i) {
          const MetalDispatch& d = plan.dispatches[i];
          const auto& pipeline = static_cast<const ApplePipeline&>(*step.pipelines[i]);
          [encoder setComputePipelineState:pipeline.state];
          for (const MetalBinding& b : d.bindings) {
            auto [buffer, base] = where(b.buffer);
            [encoder setBuffer:buffer offset:base + b.offset_bytes atIndex:b.index];
          }
          [encoder setBytes:&d.params length:sizeof(d.params) atIndex:kMetalParamsIndex];
          // Lengths must be multiples of 16 bytes, and every kernel declares the argument.
          const NSUInteger shared = std::max<NSUInteger>(16, (d.threadgroup_memory_bytes + 15) / 16 * 16);
          [encoder setThreadgroupMemoryLength:shared atIndex:0];
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
  }

 private:
  // A pipeline's limit may be below 1024 threads, and depends on the device.
  static void check_thread_limits(const MetalStep& step) {
    for (std::size_t i = 0; i < step.plan->dispatches.size(); ++i) {
      const MetalDispatch& d = step.plan->dispatches[i];
      const auto& pipeline = static_cast<const ApplePipeline&>(*step.pipelines[i]);
      const NSUInteger threads = d.threads[0] * d.threads[1] * d.threads[2];
      if (threads > pipeline.state.maxTotalThreadsPerThreadgroup)
        throw MetalExecutionError("kernel " + d.kernel + " needs " + std::to_string(threads) +
                                  " threads per threadgroup; this GPU allows " +
                                  std::to_string(pipeline.state.maxTotalThreadsPerThreadgroup));
    }
  }

  BoundRange bind(const void* data, std::size_t bytes) {
    BoundRange range = bind_host_range(device_, data, bytes);
    if (range.buffer == nil)
      throw MetalExecutionError("could not make " + std::to_string(bytes) +
                                " bytes visible to the GPU");
    count_wrapped(range.wrapped_bytes);
    if (range.staged) count_staged(range.bytes);
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
    NSURL* url = [NSURL fileURLWithPath:[NSString stringWithUTF8String:metallib.c_str()]];
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
      [device newLibraryWithSource:[NSString stringWithUTF8String:source.c_str()]
                           options:options
                             error:&error];
  if (library == nil)
    throw MetalUnavailableError("could not compile the Metal kernels: " + describe(error));
  return library;
}

}  // namespace

std::shared_ptr<MetalExecutor> make_apple_executor() {
  @autoreleasepool {
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (device == nil) throw MetalUnavailableError("this Mac has no Metal device");
    id<MTLCommandQueue> queue = [device newCommandQueue];
    if (queue == nil) throw MetalUnavailableError("could not create a Metal command queue");
    id<MTLLibrary> library = load_library(device);
    return std::make_shared<AppleExecutor>(device, queue, library);
  }
}

AppleMetalStatus apple_metal_status() {
  @autoreleasepool {
    id<MTLDevice> device = MTLCreateSystemDefaultDevice();
    if (device == nil) return {false, "this Mac has no Metal device", ""};
    const std::filesystem::path dir = package_directory();
    if (std::filesystem::exists(dir / kMetallibName))
      return {true, std::string("Metal on ") + [[device name] UTF8String], "metallib"};
    if (std::filesystem::exists(dir / kLibrarySource))
      return {true, std::string("Metal on ") + [[device name] UTF8String] +
                        " (kernels compiled from source at first use)", "source"};
    return {false, "the Metal kernel library was not installed with jax_apple_fft", ""};
  }
}

}  // namespace jax_apple_fft
