/* SPDX-License-Identifier: MIT */
/*
 * classify.c - the dialect tables for Chrome trace JSON (doc/design.md section
 * 4): which profiler wrote the trace, which processes are devices (and
 * which GPU), which threads are streams, step lines or duplicate views, and
 * each event's kind. Name patterns are matched once per distinct name and
 * cached, so the pass over the events is a table look-up per event.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/trace_build.h"
#include "parse/classify.h"

/* ---- small string tests -------------------------------------------------- */

static bool has_prefix(const char *s, size_t len, const char *pre)
{
        size_t n = strlen(pre);

        return len >= n && memcmp(s, pre, n) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *suf)
{
        size_t n = strlen(suf);

        return len >= n && memcmp(s + len - n, suf, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle)
{
        size_t n = strlen(needle);

        for (size_t i = 0; i + n <= len; i++)
                if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0)
                        return true;
        return false;
}

static bool eq(const char *s, size_t len, const char *lit)
{
        return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* The number after `key` in `s` ("GPU:3" with key "GPU:" gives 3). */
static bool number_after(const char *s, size_t len, const char *key, int32_t *out)
{
        size_t n = strlen(key);

        for (size_t i = 0; i + n < len; i++) {
                if (memcmp(s + i, key, n) == 0 && is_digit(s[i + n])) {
                        int32_t v = 0;
                        for (size_t j = i + n; j < len && is_digit(s[j]) && v < 100000; j++)
                                v = v * 10 + (s[j] - '0');
                        *out = v;
                        return true;
                }
        }
        return false;
}

bool tpa_classify__is_tf1_duplicate(const char *name, size_t len)
{
        return contains(name, len, "/stream:all") ||
               (contains(name, len, "/memcpy") &&
                (has_suffix(name, len, " Compute") || has_suffix(name, len, " Tensors") ||
                 has_suffix(name, len, "/memcpy")));
}

bool tpa_classify__step_from_name(const char *s, size_t len, int64_t *out)
{
        size_t i = len;
        int64_t v = 0, scale = 1;

        while (i > 0 && is_digit(s[i - 1]))
                i--;
        if (i == len || len - i > 18 || i == 0 || (s[i - 1] != '#' && s[i - 1] != ' '))
                return false;
        for (size_t j = len; j-- > i;) {
                v += (s[j] - '0') * scale;
                scale *= 10;
        }
        *out = v;
        return true;
}

size_t tpa_classify__op_prefix(const char *s, size_t len)
{
        const char *colon, *hash;
        size_t n;

        /* Speed (bench/): memchr is vectorised, and annotations run to a
         * hundred bytes and more ("model_1/dense_19/BiasAdd:BiasAdd") */
        if (len == 0)
                return 0;
        colon = memchr(s, ':', len);
        n = colon != NULL ? (size_t)(colon - s) : len;
        hash = n > 0 ? memchr(s, '#', n) : NULL;
        return hash != NULL ? (size_t)(hash - s) : n;
}

bool tpa_classify__is_traced_call(const char *s, size_t len)
{
        return contains(s, len, "traced") && !contains(s, len, "notTraced");
}

/*
 * Names of compilation at work, the warm-up evidence of doc/design.md 5.2. For
 * torch.compile that is what dynamo_timed records while Dynamo traces and
 * Inductor compiles ("entire_frame_compile", "_compile.compile_inner
 * (dynamo_timed)", "backend_compile", "inductor_compile", ... in torch
 * 2.13), not "Torch-Compiled Region", "CompiledFunction" or "TorchDynamo
 * Cache Lookup": those run the compiled code, in every step. For TF 2.16
 * on, the tracing of a tf.function ("tf.function-graph_building") and
 * XLA's compilers at work ("JitCompiler::Compile",
 * "CpuCompiler::RunBackend", "FusionCompiler::Compile", "GpuCompiler::..."):
 * the compiled code runs as "CpuExecutable::..." and thunks.
 */
bool tpa_classify__is_compile_name(const char *s, size_t len)
{
        return has_prefix(s, len, "XlaCompile") || has_prefix(s, len, "_XlaCompile") ||
               has_prefix(s, len, "XlaCompilationCache") ||
               has_prefix(s, len, "TraceFunction") || has_prefix(s, len, "tf.function trace") ||
               has_prefix(s, len, "tf.function-graph_building") ||
               contains(s, len, "Compiler::") ||
               has_suffix(s, len, " (dynamo_timed)") ||
               has_prefix(s, len, "entire_frame_compile") ||
               has_prefix(s, len, "backend_compile") || has_prefix(s, len, "inductor_compile") ||
               has_prefix(s, len, "_compile.compile_inner") || has_prefix(s, len, "compile_fx");
}

/* ---- kinds by name -------------------------------------------------------- */

static bool icase_prefix(const char *s, size_t len, const char *pre)
{
        size_t n = strlen(pre);

        if (len < n)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (c >= 'A' && c <= 'Z')
                        c = (char)(c - 'A' + 'a');
                if (c != pre[i])
                        return false;
        }
        return true;
}

static tpa_kind copy_direction(const char *s, size_t len)
{
        if (contains(s, len, "HtoD") || contains(s, len, "H2D"))
                return TPA_KIND_COPY_H2D;
        if (contains(s, len, "DtoH") || contains(s, len, "D2H"))
                return TPA_KIND_COPY_D2H;
        if (contains(s, len, "PtoP") || contains(s, len, "P2P") || contains(s, len, "Peer"))
                return TPA_KIND_COPY_P2P;
        return TPA_KIND_COPY_D2D;
}

/* NCCL's and RCCL's kernels, and DeepEP's expert-parallel all-to-all
 * (its dispatch, combine and notify kernels: "void deep_ep::internode::
 * combine<...>", DeepSeek's own build "dpsk::ep::internode::..."): they
 * move tokens between ranks, over NVLink and RDMA, and compute nothing. */
static bool is_collective(const char *s, size_t len)
{
        return icase_prefix(s, len, "nccl") || contains(s, len, "ncclKernel") ||
               contains(s, len, "ncclDevKernel") || contains(s, len, "AllReduce") ||
               contains(s, len, "AllGather") || contains(s, len, "ReduceScatter") ||
               contains(s, len, "rccl") || contains(s, len, "deep_ep::") ||
               contains(s, len, "dpsk::ep::");
}

/* An event on a device stream. */
static tpa_kind device_kind(const char *s, size_t len)
{
        if (icase_prefix(s, len, "memcpy") || contains(s, len, "Memcpy") ||
            contains(s, len, "MEMCPY"))
                return copy_direction(s, len);
        if (icase_prefix(s, len, "memset"))
                return TPA_KIND_MEMSET;
        if (is_collective(s, len))
                return TPA_KIND_COLLECTIVE;
        return TPA_KIND_KERNEL;
}

/* A device runtime's API call by its name: "cuda" or "cu" or "hip" and
 * then a capital ("cudaMalloc", "cuModuleLoadData", "hipFree"). */
static bool is_runtime_name(const char *s, size_t len)
{
        size_t n = has_prefix(s, len, "cuda") ? 4 : has_prefix(s, len, "hip") ? 3
                 : has_prefix(s, len, "cu") ? 2 : 0;

        return n > 0 && len > n && s[n] >= 'A' && s[n] <= 'Z';
}

/* A copy that the host waits out: the runtime's blocking copies
 * ("cudaMemcpy", "cudaMemcpy2D", "hipMemcpyWithStream", "cuMemcpyHtoD"),
 * not the ones that only enqueue ("...Async"). */
static bool is_blocking_copy(const char *s, size_t len)
{
        return is_runtime_name(s, len) && contains(s, len, "Memcpy") &&
               !contains(s, len, "Async");
}

/* A call that only enqueues a copy or a memset ("cudaMemcpyAsync",
 * "hipMemsetAsync", "cuMemcpyDtoHAsync_v2"). Pageable memory makes the
 * host wait for it all the same: see runtime_links(). */
static bool is_async_copy(const char *s, size_t len)
{
        return is_runtime_name(s, len) && contains(s, len, "Async") &&
               (contains(s, len, "Memcpy") || contains(s, len, "Memset"));
}

/* An event on a host thread; `dflt` when no pattern says otherwise.
 *
 * Input first: TF spells the wait for the next batch "IteratorGetNext",
 * "IteratorGetNextOp::DoCompute" and, as an eager dispatch scope,
 * "EagerLocalExecute: IteratorGetNext"; all three are input (XProf's
 * HOST_WAIT_INPUT is a name prefix test after its own IsRealCpuCompute
 * filter in xprof/convert/xplane_to_step_events.cc). Sync: the host waits
 * for the device, in a synchronize call or a blocking copy. Launch then covers the kernel-launch
 * calls, the calls that enqueue a copy or a memset, and TF's runtime scopes
 * that wrap the ops they run rather than compute themselves (XProf's
 * IsRealCpuCompute leaves out EagerExecute*, EagerLocalExecute*,
 * EagerKernelExecute*, FunctionRun*): the C API entry points
 * (TFE_Py_FastPathExecute_C, TFE_Py_ExecuteCancelable, ...), eager dispatch
 * (EagerCopyToDevice, ValidateInputTypeAndPlacement), the function and
 * kernel runners (KernelAndDeviceFunc::Run, KernelAndDeviceOp::Run,
 * FunctionRun) and the executor (ExecutorState::Process, XProf's "Kernel
 * Launch") and the thread pool's scope around it (ThreadpoolListener::Region,
 * which xprof's trace viewer adds to the Chrome trace it makes of an
 * XSpace). Every other runtime call (allocation, streams, events, modules,
 * attributes) is setup: host time, never a launch. */
static tpa_kind host_kind(const char *s, size_t len, tpa_kind dflt)
{
        static const char *const launch[] = {
                "cudaLaunch", "cuLaunch", "hipLaunchKernel", "hipExtLaunch",
                "hipExtModuleLaunchKernel", "hipModuleLaunchKernel", "cudaGraphLaunch",
                "cuGraphLaunch", "hipGraphLaunch",
                "ExecutorState::Process", "EagerExecute", "EagerKernelExecute",
                "EagerLocalExecute", "EagerCopyToDevice", "ValidateInputTypeAndPlacement",
                "TFE_", "KernelAndDeviceFunc::Run", "KernelAndDeviceOp::Run", "FunctionRun",
                "ThunkExecute", "ThreadpoolListener::Region",
        };

        if (has_prefix(s, len, "Iterator::") || contains(s, len, "IteratorGetNext") ||
            contains(s, len, "DataLoader") || has_prefix(s, len, "tf.data") ||
            has_prefix(s, len, "tf_data") || contains(s, len, "OneShotIterator"))
                return TPA_KIND_INPUT;
        if (contains(s, len, "Synchronize") || eq(s, len, "cudaStreamWaitEvent") ||
            is_blocking_copy(s, len))
                return TPA_KIND_SYNC;
        for (size_t i = 0; i < sizeof(launch) / sizeof(launch[0]); i++)
                if (has_prefix(s, len, launch[i]))
                        return TPA_KIND_LAUNCH;
        if (is_async_copy(s, len))
                return TPA_KIND_LAUNCH;
        if (is_runtime_name(s, len))
                return TPA_KIND_SETUP;
        return dflt;
}

/* A call of a Kineto runtime category (cuda_runtime, cuda_driver,
 * mtia_runtime) by its name alone: launch, sync or setup. MTIA spells its
 * waits in lower case ("synchronizeStream"). runtime_links() then makes a
 * setup call that launched device work a launch. */
static tpa_kind runtime_kind(const char *s, size_t len)
{
        tpa_kind k = host_kind(s, len, TPA_KIND_SETUP);

        if (has_prefix(s, len, "synchronize"))
                return TPA_KIND_SYNC;
        return k == TPA_KIND_LAUNCH || k == TPA_KIND_SYNC ? k : TPA_KIND_SETUP;
}

/* A tf.data thread ("tf_data_private_threadpool/...",
 * "tf_data_iterator_resource/..."): everything it runs, the ops of a map
 * function included (EagerPyFunc, Cast, the executor scopes around them),
 * is input-pipeline work, not step compute. */
static bool is_input_thread(const char *s, size_t len)
{
        return has_prefix(s, len, "tf_data") || has_prefix(s, len, "tf.data");
}

/* TensorFlow's collectives on host threads: the ops (CollectiveReduceV2,
 * CollectiveGatherV2, CollectiveBcastSendV2, ...) and the collective
 * executor's scopes (CollectiveOpV2Kernel::Run, CollectiveExecutor::
 * CompleteParams, BaseCollectiveExecutor::ExecuteAsync), where a worker of
 * MultiWorkerMirroredStrategy waits for the others. On CPU they run on the
 * host, so they are the collective, not ops that compute. */
static bool is_tf_collective(const char *s, size_t len)
{
        return has_prefix(s, len, "Collective") || has_prefix(s, len, "BaseCollectiveExecutor") ||
               has_prefix(s, len, "NcclAllReduce");
}

/*
 * The profiler's Python tracer in an XSpace (JAX turns it on by default,
 * TF with python_tracer_level=1) names each Python call "$file.py:line
 * func" and each C function Python calls "$module func" ("$builtins next",
 * "$time sleep"). These are Python, not framework ops: on a CPU-only trace
 * taken for ops they made every step compute, a loop waiting 40 ms a step
 * on its Python generator included. They are annotations (what they span
 * besides framework events is Python on the thread that drives the step),
 * but for Python's next item of an iterator ("$builtins next", a
 * "__next__"), where a loop takes its batch (Keras' JAX trainer, a
 * `next(it)` loop), which is input, and JAX's wait for the device
 * (jax.block_until_ready), which is sync.
 */
static tpa_kind python_frame_kind(const char *s, size_t len)
{
        if (eq(s, len, "$builtins next") || has_suffix(s, len, " __next__"))
                return TPA_KIND_INPUT;
        if (has_suffix(s, len, " block_until_ready"))
                return TPA_KIND_SYNC;
        return TPA_KIND_ANNOTATION;
}

/* JAX's runtime on the host (PjRt): the jitted function's dispatch
 * ("PjitFunction(train_step)"), the executable's launch and its buffers
 * ("CommonPjRtLoadedExecutable::ExecuteHelperOnSingleDevice",
 * "CommonPjRtClient::CreateOutputs", "ParseArguments", "DevicePut") are
 * launch: the XLA ops run inside them or on XLA's threads, and are the
 * compute; the rest of them is dispatch. A buffer's wait for its
 * definition ("CommonPjRtBuffer::Await") is sync. */
static bool is_jax_dispatch(const char *s, size_t len)
{
        return has_prefix(s, len, "PjitFunction(") || has_prefix(s, len, "CommonPjRt") ||
               has_prefix(s, len, "PjRt") || eq(s, len, "DevicePut") ||
               eq(s, len, "ParseArguments") || has_prefix(s, len, "AllocateOutputBuffers") ||
               has_prefix(s, len, "Handle input") || has_prefix(s, len, "PythonRefManager::");
}

/* True when s names an HLO instruction of opcode `op`: "all-reduce",
 * "all-reduce.3", an async pair's "all-reduce-start.1" and
 * "all-reduce-done.1"; not a compiler pass named after it
 * ("all-reduce-promotion", which a TF XLA trace shows as it compiles). */
static bool hlo_op_named(const char *s, size_t len, const char *op)
{
        size_t n = strlen(op);

        if (len < n || memcmp(s, op, n) != 0)
                return false;
        s += n;
        len -= n;
        if (has_prefix(s, len, "-start") || has_prefix(s, len, "-done")) {
                n = s[1] == 's' ? 6 : 5;
                s += n;
                len -= n;
        }
        if (len == 0)
                return true;
        if (s[0] != '.' || len == 1)
                return false;
        for (size_t i = 1; i < len; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

/* XLA's collectives on CPU, where PjRt's CPU client runs several devices
 * in one process (XLA_FLAGS=--xla_force_host_platform_device_count=N:
 * jax.pmap, a sharded jax.jit): the HLO ops ("all-reduce", "all-reduce.1",
 * "all-gather", "reduce-scatter", "all-to-all", "collective-permute", their
 * "-start" and "-done" halves) and the rendezvous inside them, where one
 * device waits for the others ("Rendezvous", "InvokeRendezvous", "Wait for
 * rendezvous callback", "Wait: pending_threads=1/2"). Taken for ops, a
 * pmap'd step that spent half its time in the gradient's all-reduce read
 * collective 0%. */
static bool is_xla_collective(const char *s, size_t len)
{
        static const char *const ops[] = {
                "all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                "ragged-all-to-all", "collective-permute", "collective-broadcast",
        };

        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
                if (hlo_op_named(s, len, ops[k]))
                        return true;
        return eq(s, len, "Rendezvous") ||
               eq(s, len, "InvokeRendezvous") || has_prefix(s, len, "Wait for rendezvous") ||
               has_prefix(s, len, "Wait: pending_threads");
}

/* PjRt's waits on the thread that dispatches a jitted function, for the
 * launch and for a buffer's holds ("Wait for LaunchOnDevice completion",
 * "Wait for donation holds", "Wait for usage holds"), are sync. */
static bool is_pjrt_wait(const char *s, size_t len)
{
        return eq(s, len, "Wait for LaunchOnDevice completion") ||
               eq(s, len, "Wait for donation holds") || eq(s, len, "Wait for usage holds");
}

/* A host event of a TF, TF1 or generic trace by its name (host_kind()), a
 * TF collective op or scope a collective in the TF dialects; in TF2's, the
 * Python tracer's frames, JAX's runtime scopes, XLA's CPU collectives and
 * thunk executor as above. */
static tpa_kind tf_host_kind(const char *s, size_t len, tpa_dialect d)
{
        tpa_kind k;

        if (d == TPA_DIALECT_TF2 && len > 1 && s[0] == '$')
                return python_frame_kind(s, len);
        if (d == TPA_DIALECT_TF2 && eq(s, len, "CommonPjRtBuffer::Await"))
                return TPA_KIND_SYNC;
        if (d == TPA_DIALECT_TF2 && is_jax_dispatch(s, len))
                return TPA_KIND_LAUNCH;
        if (d == TPA_DIALECT_TF2 && is_xla_collective(s, len))
                return TPA_KIND_COLLECTIVE;
        if (d == TPA_DIALECT_TF2 && is_pjrt_wait(s, len))
                return TPA_KIND_SYNC;
        k = host_kind(s, len, d == TPA_DIALECT_GENERIC ? TPA_KIND_OTHER : TPA_KIND_HOST_OP);
        return k == TPA_KIND_HOST_OP && is_tf_collective(s, len) ? TPA_KIND_COLLECTIVE : k;
}

/* The thread pool TF's collective executor runs a collective on
 * ("collective_ops/..."): the ring's work (RingReducer's and
 * RingGatherer's "Loop", which waits for the peers' chunks) lies inside
 * the collective op there. */
static bool is_collective_thread(const char *s, size_t len)
{
        return has_prefix(s, len, "collective_ops");
}

/* The TF thread pools whose every event is of one kind, by track. */
enum { POOL_NONE, POOL_INPUT, POOL_COLLECTIVE };

static uint8_t tf_pool(const char *s, size_t len)
{
        return is_input_thread(s, len) ? POOL_INPUT
               : is_collective_thread(s, len) ? POOL_COLLECTIVE : POOL_NONE;
}

/* Names that mark a step when they carry a step number: TF's own ("train",
 * "test", renamed "train 12"), and the span Keras 3's TensorBoard callback
 * puts around each batch it profiles (profile_batch): "Profiled batch"
 * with a step_num on TF, "Profiled batch 3" (the number in the name, a
 * jax.profiler.TraceAnnotation) on JAX. */
static bool is_step_name(const char *s, size_t len)
{
        return has_prefix(s, len, "ProfilerStep#") || has_prefix(s, len, "train") ||
               has_prefix(s, len, "test") || has_prefix(s, len, "TraceContext") ||
               has_prefix(s, len, "StepMarker") || eq(s, len, "Profiled batch") ||
               has_prefix(s, len, "Profiled batch ");
}

/* ---- dialect --------------------------------------------------------------- */

static bool is_kineto_cat(const char *s, size_t len)
{
        static const char *const cats[] = {
                "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_runtime",
                "cuda_driver", "cuda_sync", "kernel", "gpu_memcpy", "gpu_memset", "ac2g",
                "fwdbwd", "python_function", "cpu_instant_event", "mtia_runtime",
                "mtia_ccp_events", "Operator", "Runtime", "Kernel", "Memcpy", "Memset",
                "Python", "Trace",
        };

        for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
                if (eq(s, len, cats[i]))
                        return true;
        return false;
}

static tpa_dialect detect(const tpa_trace *tr, size_t first, const tpa_str *cats,
                          const tpa_classify_hints *hints)
{
        size_t np = tpa_trace_process_count(tr), nt = tpa_trace_thread_count(tr);
        size_t ne = tpa_trace_event_count(tr);
        /* hints->tf2_keys is not enough: Chrome writes 'highres-ticks' too */
        bool tf2 = false, kineto = hints->kineto_keys;

        for (uint32_t i = 0; i < np; i++) {
                const tpa_process *pr = tpa_trace_process_c(tr, i);
                const char *s = tpa_trace_str(tr, pr->name);
                size_t len = tpa_trace_str_len(tr, pr->name);
                if ((has_suffix(s, len, " Compute") || has_suffix(s, len, " Tensors")) &&
                    (contains(s, len, "/job:") || contains(s, len, "/device:") ||
                     contains(s, len, "/gpu:") || contains(s, len, "/cpu:")))
                        return TPA_DIALECT_TF1;
                if ((has_prefix(s, len, "/device:") || has_prefix(s, len, "/host:")) &&
                    memchr(s, ' ', len) == NULL)
                        tf2 = true;
                if (has_prefix(tpa_trace_str(tr, pr->label), tpa_trace_str_len(tr, pr->label),
                               "GPU "))
                        kineto = true;
        }
        if (tf2)
                return TPA_DIALECT_TF2;
        for (uint32_t i = 0; i < nt && !tf2; i++) {
                const tpa_thread *t = tpa_trace_thread_c(tr, i);
                const char *s = tpa_trace_str(tr, t->name);
                size_t len = tpa_trace_str_len(tr, t->name);
                if (eq(s, len, "TensorFlow Ops") || eq(s, len, "TensorFlow Name Scope"))
                        return TPA_DIALECT_TF2;
        }
        if (kineto)
                return TPA_DIALECT_KINETO;
        {
                /* distinct cats, each tested once */
                size_t ns = tpa_trace_str_count(tr);
                uint8_t *seen = calloc((ns + 7) / 8, 1);
                tpa_dialect d = TPA_DIALECT_GENERIC;
                for (size_t i = first; i < ne && seen != NULL; i++) {
                        tpa_str c = cats[i - first];
                        if (c == TPA_STR_EMPTY || (seen[c / 8] & (1u << (c % 8))))
                                continue;
                        seen[c / 8] |= (uint8_t)(1u << (c % 8));
                        if (is_kineto_cat(tpa_trace_str(tr, c), tpa_trace_str_len(tr, c)) &&
                            !eq(tpa_trace_str(tr, c), tpa_trace_str_len(tr, c), "Trace")) {
                                d = TPA_DIALECT_KINETO;
                                break;
                        }
                }
                free(seen);
                return d;
        }
}

/* ---- roles -------------------------------------------------------------- */

static bool is_device_cat(const char *s, size_t len)
{
        return eq(s, len, "kernel") || eq(s, len, "gpu_memcpy") || eq(s, len, "gpu_memset") ||
               eq(s, len, "Kernel") || eq(s, len, "Memcpy") || eq(s, len, "Memset") ||
               eq(s, len, "gpu_user_annotation") || eq(s, len, "mtia_ccp_events") ||
               eq(s, len, "cuda_profiler_range");
}

/*
 * Kineto: a device is a process that holds device work, recognised by its
 * category (kernel, gpu_memcpy, gpu_memset, ...), never by its pid or label
 * alone: newer traces put the Python thread under GPU 0's pid ("thread 0
 * (python3)", a few python_function spans), and label processes "GPU N"
 * that hold no device work at all. In a device process, the threads with
 * device work are its streams (stream[t] set) and the rest host threads.
 */
static void kineto_devices(tpa_trace *tr, size_t first, const tpa_str *cats, uint8_t *stream)
{
        size_t ne = tpa_trace_event_count(tr);
        const tpa_event *ev = tpa_trace_events(tr);

        for (size_t i = first; i < ne; i++) {
                tpa_str c = cats[i - first];
                if (stream[ev[i].track] == 0 &&
                    is_device_cat(tpa_trace_str(tr, c), tpa_trace_str_len(tr, c))) {
                        const tpa_thread *t = tpa_trace_thread_c(tr, ev[i].track);
                        stream[ev[i].track] = 1;
                        tpa_trace__process(tr, t->process)->role = TPA_PROC_DEVICE;
                }
        }
}

static void process_roles(tpa_trace *tr, tpa_dialect d, size_t first, const tpa_str *cats,
                          uint8_t *stream)
{
        size_t np = tpa_trace_process_count(tr);
        int32_t next_ordinal = 0;

        if (d == TPA_DIALECT_KINETO)
                kineto_devices(tr, first, cats, stream);
        for (uint32_t i = 0; i < np; i++) {
                tpa_process *pr = tpa_trace__process(tr, i);
                const char *s = tpa_trace_str(tr, pr->name);
                size_t len = tpa_trace_str_len(tr, pr->name);
                const char *lab = tpa_trace_str(tr, pr->label);
                size_t llen = tpa_trace_str_len(tr, pr->label);
                int32_t n;

                switch (d) {
                case TPA_DIALECT_TF2:
                        if (has_prefix(s, len, "/device:") && !contains(s, len, ":CPU:")) {
                                pr->role = TPA_PROC_DEVICE;
                                if (number_after(s, len, "GPU:", &n) ||
                                    number_after(s, len, "TPU:", &n))
                                        pr->device = n;
                        } else if (has_prefix(s, len, "/host:") || len == 0) {
                                pr->role = TPA_PROC_HOST;
                        } else {
                                pr->role = TPA_PROC_OTHER;
                        }
                        break;
                case TPA_DIALECT_TF1:
                        if (contains(s, len, "/stream:") || contains(s, len, "/memcpy")) {
                                pr->role = TPA_PROC_DEVICE;
                                if (number_after(s, len, "GPU:", &n) ||
                                    number_after(s, len, "gpu:", &n))
                                        pr->device = n;
                        } else if (has_suffix(s, len, " Compute") || len == 0) {
                                pr->role = TPA_PROC_HOST;
                        } else {
                                pr->role = TPA_PROC_OTHER;     /* Allocators, Tensors */
                        }
                        break;
                case TPA_DIALECT_KINETO:
                        if (pr->role == TPA_PROC_DEVICE) {
                                if (number_after(lab, llen, "GPU ", &n) ||
                                    number_after(lab, llen, "MTIA ", &n))
                                        pr->device = n;
                                else if (pr->pid.str == TPA_STR_EMPTY && pr->pid.num >= 0 &&
                                         pr->pid.num < 4096)
                                        pr->device = (int32_t)pr->pid.num;
                        } else if (pr->pid.str != TPA_STR_EMPTY) {
                                pr->role = TPA_PROC_OTHER;     /* "Traces", "Spans" */
                        } else {
                                pr->role = TPA_PROC_HOST;
                        }
                        break;
                default:
                        pr->role = TPA_PROC_HOST;
                        break;
                }
                if (pr->role == TPA_PROC_DEVICE && pr->device < 0)
                        pr->device = next_ordinal;
                if (pr->role == TPA_PROC_DEVICE && pr->device >= next_ordinal)
                        next_ordinal = pr->device + 1;
        }
}

static void thread_roles(tpa_trace *tr, tpa_dialect d, const uint8_t *stream)
{
        size_t nt = tpa_trace_thread_count(tr);

        for (uint32_t i = 0; i < nt; i++) {
                tpa_thread *t = tpa_trace__thread(tr, i);
                const tpa_process *pr = tpa_trace_process_c(tr, t->process);
                const char *s = tpa_trace_str(tr, t->name);
                size_t len = tpa_trace_str_len(tr, t->name);

                if (pr->role == TPA_PROC_HOST) {
                        t->role = TPA_TRACK_HOST;
                } else if (pr->role != TPA_PROC_DEVICE) {
                        t->role = TPA_TRACK_OTHER;
                } else if (d == TPA_DIALECT_TF2) {
                        if (has_prefix(s, len, "Stream #"))
                                t->role = TPA_TRACK_STREAM;
                        else if (eq(s, len, "Steps"))
                                t->role = TPA_TRACK_STEPS;
                        else
                                t->role = TPA_TRACK_ANNOTATION; /* TensorFlow Ops, ... */
                } else if (d == TPA_DIALECT_TF1) {
                        const char *pn = tpa_trace_str(tr, pr->name);
                        t->role = tpa_classify__is_tf1_duplicate(pn,
                                        tpa_trace_str_len(tr, pr->name))
                                  ? TPA_TRACK_ANNOTATION : TPA_TRACK_STREAM;
                } else if (d == TPA_DIALECT_KINETO) {
                        /* a stream of an input read before stays one */
                        if (stream[i] || t->role != TPA_TRACK_STREAM)
                                t->role = stream[i] ? TPA_TRACK_STREAM : TPA_TRACK_HOST;
                } else {
                        t->role = TPA_TRACK_STREAM;
                }
        }
}

/* ---- events ------------------------------------------------------------- */

static bool is_device_kind(unsigned k)
{
        return k == TPA_KIND_KERNEL || k == TPA_KIND_MEMSET || k == TPA_KIND_COLLECTIVE ||
               tpa_kind_is_copy(k);
}

enum cat_class {
        CC_NONE = 0, CC_KERNEL, CC_MEMCPY, CC_MEMSET, CC_RUNTIME, CC_SYNC, CC_CPU_OP,
        CC_USER_ANNOTATION, CC_GPU_ANNOTATION, CC_OTHER,
};

static enum cat_class cat_class(const char *s, size_t len)
{
        if (len == 0)
                return CC_NONE;
        if (eq(s, len, "kernel") || eq(s, len, "Kernel") || eq(s, len, "mtia_ccp_events"))
                return CC_KERNEL;
        if (eq(s, len, "gpu_memcpy") || eq(s, len, "Memcpy"))
                return CC_MEMCPY;
        if (eq(s, len, "gpu_memset") || eq(s, len, "Memset"))
                return CC_MEMSET;
        if (eq(s, len, "cuda_runtime") || eq(s, len, "Runtime") || eq(s, len, "cuda_driver") ||
            eq(s, len, "mtia_runtime"))
                return CC_RUNTIME;
        if (eq(s, len, "cuda_sync"))
                return CC_SYNC;
        if (eq(s, len, "cpu_op") || eq(s, len, "Operator"))
                return CC_CPU_OP;
        if (eq(s, len, "user_annotation"))
                return CC_USER_ANNOTATION;
        /* CUPTI's range profiler: one span per profiled range, no kernel */
        if (eq(s, len, "gpu_user_annotation") || eq(s, len, "cuda_profiler_range"))
                return CC_GPU_ANNOTATION;
        return CC_OTHER;
}

static tpa_kind kineto_kind(enum cat_class cc, const char *s, size_t len, int role,
                            bool has_step)
{
        switch (cc) {
        case CC_KERNEL:
                /* an accelerator's DMA engine at work (MTIA "dma_request"):
                 * a copy, whose direction the trace does not say */
                if (icase_prefix(s, len, "dma"))
                        return TPA_KIND_COPY_D2D;
                return is_collective(s, len) ? TPA_KIND_COLLECTIVE : TPA_KIND_KERNEL;
        case CC_MEMCPY:
                return copy_direction(s, len);
        case CC_MEMSET:
                return TPA_KIND_MEMSET;
        case CC_RUNTIME:
                return runtime_kind(s, len);
        case CC_SYNC:
                return TPA_KIND_SYNC;
        case CC_GPU_ANNOTATION:
                return TPA_KIND_ANNOTATION;
        case CC_CPU_OP:
                if (has_step && has_prefix(s, len, "ProfilerStep#"))
                        return TPA_KIND_STEP;
                /* a collective's dispatcher op ("c10d::allreduce_",
                 * "c10d::barrier", functional collectives): the calling
                 * thread waits in it for the other ranks (gloo blocks
                 * there for milliseconds), no computation */
                if (has_prefix(s, len, "c10d::") || has_prefix(s, len, "_c10d_functional::") ||
                    has_prefix(s, len, "c10d_functional::"))
                        return TPA_KIND_COLLECTIVE;
                return host_kind(s, len, TPA_KIND_HOST_OP);
        case CC_USER_ANNOTATION:
                /* record_function() spans ("## forward ##",
                 * "Optimizer.step#SGD.step") wrap the ops that compute;
                 * they are not work of their own, but for the steps and
                 * the input pipeline they name */
                if (has_step && has_prefix(s, len, "ProfilerStep#"))
                        return TPA_KIND_STEP;
                /* but for a CPU collective, which runs in it ("gloo:all_reduce") */
                if (has_prefix(s, len, "gloo:") || has_prefix(s, len, "nccl:"))
                        return TPA_KIND_COLLECTIVE;
                return host_kind(s, len, TPA_KIND_ANNOTATION) == TPA_KIND_INPUT
                       ? TPA_KIND_INPUT : TPA_KIND_ANNOTATION;
        case CC_NONE:
                /* Kineto puts a category on all device activity: what has
                 * none is a marker ("Record Window End", an instant that
                 * the trace files under pid "" tid ""), never device work */
                if (role == TPA_TRACK_STREAM)
                        return TPA_KIND_OTHER;
                break;
        case CC_OTHER:
                break;
        }
        if (role == TPA_TRACK_STREAM)
                return device_kind(s, len);
        if (has_step && has_prefix(s, len, "ProfilerStep#"))
                return TPA_KIND_STEP;
        return host_kind(s, len, TPA_KIND_OTHER);
}

/* What a name can be, by name id, worked out on its first use: whether it
 * can mark a step (is_step_name()), whether it is a ProfilerStep#, whether
 * it names a copy ("MemcpyH2D") or a runtime call, and the facts it shows
 * (event_fact[]): TF running a tf.function, a DataLoader with workers. */
enum { NF_KNOWN = 1, NF_STEP_NAME = 2, NF_PROFILER_STEP = 4, NF_COPY = 8, NF_RUNTIME = 16,
       NF_TF_FUNCTION = 32, NF_LOADER_WORKERS = 64 };

/* name_flags() of a name met the first time. */
static unsigned name_flags_new(const tpa_trace *tr, uint8_t *nf, tpa_str name)
{
        const char *s = tpa_trace_str(tr, name);
        size_t len = tpa_trace_str_len(tr, name);

        nf[name] = (uint8_t)(NF_KNOWN | (is_step_name(s, len) ? NF_STEP_NAME : 0) |
                             (has_prefix(s, len, "ProfilerStep#") ? NF_PROFILER_STEP : 0) |
                             (contains(s, len, "Memcpy") || contains(s, len, "MEMCPY")
                              ? NF_COPY : 0) |
                             (is_runtime_name(s, len) ? NF_RUNTIME : 0) |
                             (has_prefix(s, len, "EagerLocalExecute: __inference_")
                              ? NF_TF_FUNCTION : 0) |
                             (has_prefix(s, len, "enumerate(DataLoader)#") &&
                              contains(s, len, "_MultiProcessingDataLoaderIter")
                              ? NF_LOADER_WORKERS : 0));
        return nf[name];
}

/* Inline, the first use out of line: a call per event cost more than the
 * look (speed, bench/). */
static inline unsigned name_flags(const tpa_trace *tr, uint8_t *nf, tpa_str name)
{
        return nf[name] != 0 ? nf[name] : name_flags_new(tr, nf, name);
}

/* ---- what runtime calls did ------------------------------------------------ */

/* Device work by correlation id: whether it is a copy to or from pageable
 * memory ("Memcpy DtoH (Device -> Pageable)"). */
typedef struct linked {
        uint32_t corr;
        bool     pageable;
} linked;

static int cmp_linked(const void *pa, const void *pb)
{
        const linked *x = pa, *y = pb;

        return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/*
 * Kineto runtime calls by the device work they started (doc/design.md 4): a
 * call that carries the correlation id of device work launched it (the
 * MTIA runtime's calls, cudaMemsetAsync, cudaMemcpy2DAsync: launches,
 * whatever their name), one that carries none is setup; and a copy
 * enqueued to or from pageable memory is one the host waits out (an
 * .item() or .cpu() behind cudaMemcpyAsync): sync. `ccmemo` holds each
 * category's class + 1, as the pass over the events left it.
 */
static int runtime_links(tpa_trace *tr, size_t first, const tpa_str *cats,
                         const uint8_t *ccmemo, tpa_error *err)
{
        size_t ne = tpa_trace_event_count(tr), n = 0;
        tpa_event *ev = tpa_trace__events_mut(tr);
        linked *v;

        for (size_t i = first; i < ne; i++)
                n += ev[i].corr != 0 && is_device_kind(ev[i].kind) &&
                     tpa_trace_thread_c(tr, ev[i].track)->role == TPA_TRACK_STREAM;
        if (n == 0)
                return 0;
        if ((v = malloc(n * sizeof(*v))) == NULL)
                return tpa_error_oom(err);
        n = 0;
        for (size_t i = first; i < ne; i++)
                if (ev[i].corr != 0 && is_device_kind(ev[i].kind) &&
                    tpa_trace_thread_c(tr, ev[i].track)->role == TPA_TRACK_STREAM)
                        v[n++] = (linked){ ev[i].corr,
                                           tpa_kind_is_copy(ev[i].kind) &&
                                           contains(tpa_trace_str(tr, ev[i].name),
                                                    tpa_trace_str_len(tr, ev[i].name),
                                                    "Pageable") };
        qsort(v, n, sizeof(*v), cmp_linked);
        for (size_t i = first; i < ne; i++) {
                tpa_event *e = &ev[i];
                const linked *hit;

                if (e->corr == 0 || ccmemo[cats[i - first]] != 1 + CC_RUNTIME ||
                    (e->kind != TPA_KIND_SETUP && e->kind != TPA_KIND_LAUNCH))
                        continue;
                hit = bsearch(&(linked){ e->corr, false }, v, n, sizeof(*v), cmp_linked);
                if (hit != NULL && hit->pageable)
                        e->kind = TPA_KIND_SYNC;
                else if (hit != NULL)
                        e->kind = TPA_KIND_LAUNCH;
        }
        free(v);
        return 0;
}

/* Events from this many on are classified in two parts, on two threads
 * where the machine has two CPUs (tpa_classify__parts_from()). */
static size_t parts_from = TPA_CLASSIFY_PARTS_FROM;

void tpa_classify__parts_from(size_t events)
{
        parts_from = events;
}

/* A part of the events to classify, [lo, hi), with memos of its own (a
 * name's kinds, a category's class, a name's flags), filled as the part
 * meets the names: the same look-ups give the same answers in either part.
 * The events of the Steps line are noted here (`steps`) with the step
 * number each lacks, found where the part meets it: the numbers are
 * extras of the trace, which the parts only read, so they are set after
 * both, in event order. */

struct part {
        tpa_trace      *tr;
        tpa_dialect     d;
        const tpa_str  *cats;
        const uint8_t  *role;           /* by track */
        const uint8_t  *pool;           /* by track: tf_pool() */
        size_t          first, lo, hi;
        uint8_t        *memo;           /* by name: host kind + 1 (low nibble), device
                                           kind + 1 (high) */
        uint16_t       *kmemo;          /* Kineto, by name: the key its kind was
                                           worked out for << 8 | the kind; 0: none */
        uint8_t        *ccmemo;         /* by cat: its class + 1 */
        uint8_t        *nf;             /* by name: name_flags() */
        tpa_aux_set    *steps;          /* the Steps line's events that lack a number */
        size_t          nsteps, steps_cap;
        uint64_t        duplicates;     /* TF1's annotation events */
        tpa_str         mtia;           /* the "mtia_runtime" category; TPA_STR_EMPTY: none */
        size_t          runtime_at;     /* the part's first runtime call (runtime()) */
        unsigned        facts;          /* tpa_trace_fact bits met (event_fact[]) */
        int             r;
};

static int part_new(struct part *pt, size_t ns, tpa_dialect d)
{
        pt->memo = calloc(ns + 1, 1);
        pt->ccmemo = calloc(ns + 1, 1);
        pt->nf = calloc(ns + 1, 1);
        if (d == TPA_DIALECT_KINETO && (pt->kmemo = calloc(ns + 1, sizeof(*pt->kmemo))) == NULL)
                return TPA_ENOMEM;
        return pt->memo != NULL && pt->ccmemo != NULL && pt->nf != NULL ? 0 : TPA_ENOMEM;
}

static void part_free(struct part *pt)
{
        free(pt->memo);
        free(pt->kmemo);
        free(pt->ccmemo);
        free(pt->nf);
        free(pt->steps);
}

/* Event i of the Steps line: its step number is its own, else one in its
 * name, else its TF group's; noted when it is not its own. Speed (bench/):
 * these look-ups, a search of the extras and a read of the name each, ran
 * on one thread after the parts. */
static bool note_step(struct part *pt, size_t i)
{
        const tpa_event *e = &tpa_trace_events(pt->tr)[i];
        int64_t step;

        if (tpa_trace_get_aux(pt->tr, i, TPA_AUX_STEP_NUM, &step) ||
            !(tpa_classify__step_from_name(tpa_trace_str(pt->tr, e->name),
                                           tpa_trace_str_len(pt->tr, e->name), &step) ||
              (e->group != 0 && (step = e->group - 1, true))))
                return true;
        if (pt->nsteps == pt->steps_cap) {
                size_t cap = pt->steps_cap ? 2 * pt->steps_cap : 64;
                tpa_aux_set *v = realloc(pt->steps, cap * sizeof(*v));
                if (v == NULL)
                        return false;
                pt->steps = v;
                pt->steps_cap = cap;
        }
        pt->steps[pt->nsteps++] = (tpa_aux_set){ i, step };
        return true;
}

/* Each event's kind. Speed (bench/): a name's text is read only the first
 * time a table needs it; whether the event has a step number (a search in
 * the trace's extras) is looked up only where the kind depends on it. */
/* How many events ahead of the one in hand classify_part() asks for. */
#define AHEAD 64

/* The fact (tpa_trace_fact) each dialect's events may show by their
 * names, the kind the classification gives the events that show it and
 * their name flag: a look per event of that kind, until a part meets one.
 * The other dialects show none (a kind no event has). */
static const struct {
        unsigned fact;
        tpa_kind kind;
        uint8_t  flag;
} event_fact[TPA_DIALECT__COUNT] = {
        [TPA_DIALECT_GENERIC] = { 0, TPA_KIND__COUNT, 0 },
        [TPA_DIALECT_TF2] = { TPA_FACT_TF_FUNCTION, TPA_KIND_LAUNCH, NF_TF_FUNCTION },
        [TPA_DIALECT_TF1] = { 0, TPA_KIND__COUNT, 0 },
        [TPA_DIALECT_KINETO] = { TPA_FACT_LOADER_WORKERS, TPA_KIND_INPUT, NF_LOADER_WORKERS },
};

/* What a TF2 trace's tf.data pipeline shows, by the names of its stages
 * ("Iterator::<stage>" from TF 2.3 on; an XSpace's event names and the
 * trace viewer's alike: "Iterator::FlatMap", "Iterator::Generator" for
 * Dataset.from_generator) and of the ops that run Python: a look-up of
 * each name, not a pass over the events. */
static unsigned tf_data_facts(const tpa_trace *tr)
{
        static const struct {
                const char *name;
                unsigned    fact;
        } stage[] = {
                { "Iterator::Prefetch", TPA_FACT_TF_DATA_PREFETCH },
                { "Iterator::ParallelMap", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelMapV2", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelInterleave", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelInterleaveV2", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelInterleaveV3", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelInterleaveV4", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelBatch", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::ParallelFilter", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::MapAndBatch", TPA_FACT_TF_DATA_PARALLEL },
                { "Iterator::Generator", TPA_FACT_TF_DATA_GENERATOR },
                { "EagerPyFunc", TPA_FACT_TF_PY_FUNCTION },
                { "PyFunc", TPA_FACT_TF_PY_FUNCTION },
                { "PyFuncStateless", TPA_FACT_TF_PY_FUNCTION },
        };
        unsigned facts = 0;
        tpa_str id;

        for (size_t i = 0; i < sizeof(stage) / sizeof(stage[0]); i++)
                if (tpa_trace_find_str(tr, &id, stage[i].name, strlen(stage[i].name)))
                        facts |= stage[i].fact;
        return facts;
}

/* Whether a name of the trace begins with `pre`. */
static bool any_name_prefix(const tpa_trace *tr, const char *pre)
{
        size_t ns = tpa_trace_str_count(tr);

        for (size_t i = 1; i < ns; i++)
                if (has_prefix(tpa_trace_str(tr, (tpa_str)i), tpa_trace_str_len(tr, (tpa_str)i),
                               pre))
                        return true;
        return false;
}

/* What an XSpace shows by a name: JAX's dispatch of a jitted function
 * ("PjitFunction(train_step)"), which TF never writes. */
static unsigned jax_facts(const tpa_trace *tr)
{
        return any_name_prefix(tr, "PjitFunction(") ? TPA_FACT_JAX : 0;
}

/* What a Kineto trace shows by a name: code torch.compile made runs (its
 * autograd function, "CompiledFunction", in training; in inference, under
 * no_grad, only the frame's region and, torch 2.5 on, the graph's call). */
static unsigned torch_facts(const tpa_trace *tr)
{
        tpa_str id;

        return tpa_trace_find_str(tr, &id, "CompiledFunction", 16) ||
               any_name_prefix(tr, "Torch-Compiled Region") ||
               any_name_prefix(tr, "## Call CompiledFxGraph") ? TPA_FACT_TORCH_COMPILED : 0;
}

static void classify_part(struct part *pt)
{
        const tpa_trace *tr = pt->tr;
        tpa_event *ev = tpa_trace__events_mut(pt->tr);
        const tpa_str *cats = pt->cats;
        const uint8_t *role = pt->role;
        uint8_t *memo = pt->memo, *ccmemo = pt->ccmemo, *nf = pt->nf;
        uint16_t *kmemo = pt->kmemo;
        tpa_dialect d = pt->d;
        /* what the loop reads and sums of pt, in locals: the bytes it
         * stores (the memos) may alias any field, which it then loaded
         * again per event (speed, bench/) */
        const uint8_t *pool = pt->pool;
        size_t hi = pt->hi, runtime_at = pt->runtime_at;
        unsigned facts = pt->facts;

        for (size_t i = pt->lo; i < hi; i++) {
                tpa_event *e = &ev[i];
                int64_t step;
                bool has_step;
                tpa_kind k;

                /* the event AHEAD on asked for: the hardware's prefetcher
                 * stops at each 4 KB page, whose first events then waited
                 * for memory (speed, bench/) */
                if (i + AHEAD < hi)
                        __builtin_prefetch(&ev[i + AHEAD]);
                switch (role[e->track]) {
                case TPA_TRACK_STEPS:
                        k = TPA_KIND_STEP;
                        if (!note_step(pt, i)) {
                                pt->r = TPA_ENOMEM;
                                break;
                        }
                        break;
                case TPA_TRACK_ANNOTATION:
                        k = TPA_KIND_ANNOTATION;
                        if (d == TPA_DIALECT_TF1)
                                pt->duplicates++;
                        break;
                case TPA_TRACK_OTHER:
                        k = TPA_KIND_OTHER;
                        break;
                default:
                        if (d == TPA_DIALECT_KINETO) {
                                tpa_str c = cats[i - pt->first];
                                if (ccmemo[c] == 0)
                                        ccmemo[c] = (uint8_t)(1 + cat_class(
                                                tpa_trace_str(tr, c), tpa_trace_str_len(tr, c)));
                                if (!(name_flags(tr, nf, e->name) & NF_PROFILER_STEP)) {
                                        /* a kind hangs on the name, its category's
                                         * class and whether on a stream (but for a
                                         * ProfilerStep#N's): worked out once a name,
                                         * again if the name comes with another key
                                         * (speed, bench/: the looks through a
                                         * templated kernel's name or a Python
                                         * frame's were a tenth of a Kineto read) */
                                        unsigned key = 1u + 2u * (ccmemo[c] - 1u) +
                                                       (role[e->track] == TPA_TRACK_STREAM);
                                        if (kmemo[e->name] >> 8 != key)
                                                kmemo[e->name] = (uint16_t)(key << 8 | kineto_kind(
                                                        (enum cat_class)(ccmemo[c] - 1),
                                                        tpa_trace_str(tr, e->name),
                                                        tpa_trace_str_len(tr, e->name),
                                                        role[e->track], false));
                                        k = (tpa_kind)(kmemo[e->name] & 255);
                                        break;
                                }
                                has_step = tpa_trace_get_aux(tr, i, TPA_AUX_STEP_NUM, &step);
                                k = kineto_kind((enum cat_class)(ccmemo[c] - 1),
                                                tpa_trace_str(tr, e->name),
                                                tpa_trace_str_len(tr, e->name), role[e->track],
                                                has_step);
                        } else if (role[e->track] == TPA_TRACK_STREAM) {
                                if ((memo[e->name] >> 4) == 0)
                                        memo[e->name] |= (uint8_t)((device_kind(
                                                tpa_trace_str(tr, e->name),
                                                tpa_trace_str_len(tr, e->name)) + 1) << 4);
                                k = (tpa_kind)((memo[e->name] >> 4) - 1);
                        } else if ((name_flags(tr, nf, e->name) & NF_STEP_NAME) &&
                                   tpa_trace_get_aux(tr, i, TPA_AUX_STEP_NUM, &step)) {
                                k = TPA_KIND_STEP;
                        } else {
                                if ((memo[e->name] & 15) == 0)
                                        memo[e->name] |= (uint8_t)(1 + tf_host_kind(
                                                tpa_trace_str(tr, e->name),
                                                tpa_trace_str_len(tr, e->name), d));
                                k = (tpa_kind)((memo[e->name] & 15) - 1);
                                /* the ring's work inside a collective op */
                                if (k == TPA_KIND_HOST_OP && e->corr == 0 &&
                                    pool[e->track] == POOL_COLLECTIVE)
                                        k = TPA_KIND_COLLECTIVE;
                                else if (pool[e->track] == POOL_INPUT &&
                                    (k == TPA_KIND_HOST_OP || k == TPA_KIND_LAUNCH))
                                        k = TPA_KIND_INPUT;
                                /* TF's host side of a kernel carries the
                                 * kernel's correlation id: it launched it
                                 * (XProf: "Kernel Launch"); a copy's
                                 * ("MemcpyH2D") stays what it is, input */
                                else if ((k == TPA_KIND_HOST_OP || k == TPA_KIND_COLLECTIVE) &&
                                         e->corr != 0 &&
                                         !(name_flags(tr, nf, e->name) & NF_COPY))
                                        k = TPA_KIND_LAUNCH;
                        }
                        break;
                }
                e->kind = k;
                if (runtime_at == SIZE_MAX &&
                    (k == TPA_KIND_LAUNCH || k == TPA_KIND_SYNC || k == TPA_KIND_SETUP) &&
                    ((d == TPA_DIALECT_KINETO && pt->mtia != TPA_STR_EMPTY &&
                      cats[i - pt->first] == pt->mtia) ||
                     (name_flags(tr, nf, e->name) & NF_RUNTIME)))
                        runtime_at = i;
                if (k == event_fact[d].kind && !(facts & event_fact[d].fact) &&
                    (name_flags(tr, nf, e->name) & event_fact[d].flag))
                        facts |= event_fact[d].fact;
        }
        pt->runtime_at = runtime_at;
        pt->facts = facts;
}

/* The device runtime the trace shows, by its first runtime call (a launch,
 * sync or setup event) that either part met: MTIA by its runtime
 * category, else by the call's name (hip*: ROCm; cu*: CUDA). Found in the
 * parts' pass (speed, bench/: a pass of its own went over all of the
 * events on one thread when there is none, as in a CPU-only trace).
 * Kineto's runtime links after the parts only turn launches and setups
 * into syncs and launches: the first such call stays the first. */
static tpa_runtime runtime(const tpa_trace *tr, const struct part *pt)
{
        size_t i = pt[0].runtime_at != SIZE_MAX ? pt[0].runtime_at : pt[1].runtime_at;
        const char *s;

        if (i == SIZE_MAX)
                return TPA_RUNTIME_UNKNOWN;
        if (pt[0].d == TPA_DIALECT_KINETO && pt[0].mtia != TPA_STR_EMPTY &&
            pt[0].cats[i - pt[0].first] == pt[0].mtia)
                return TPA_RUNTIME_MTIA;
        s = tpa_trace_str(tr, tpa_trace_events(tr)[i].name);
        return s[0] == 'h' ? TPA_RUNTIME_ROCM : TPA_RUNTIME_CUDA;
}

/* Python calling a tf.function (the event Python's tf.function call
 * writes, named as the function: "multi_step_on_iterator", a loop's
 * "train_step") is a dispatch scope, as the runtime's calls inside it
 * (EagerExecute, FunctionRun, ...): the function's ops run on their own,
 * and what the call spans besides is waits, for the next batch among them.
 * Taken for an op, a CPU-only trace counted the whole call as compute. Its
 * name is the user's, so it is known by its 'tf_function_call' stat. */
static void tf_calls(tpa_trace *tr, size_t first, const uint8_t *role)
{
        tpa_event *ev = tpa_trace__events_mut(tr);
        size_t i = first;
        int64_t f;

        for (; tpa_trace_next_aux(tr, TPA_AUX_FLAGS, &i, &f); i++)
                if ((f & TPA_FLAG_TF_CALL) && role[ev[i].track] == TPA_TRACK_HOST &&
                    ev[i].kind == TPA_KIND_HOST_OP)
                        ev[i].kind = TPA_KIND_LAUNCH;
}

/*
 * A user's jax.profiler.TraceAnnotation ("iteration" around each step) is
 * a span on the Python thread of a name the tables do not know, as XLA's
 * ops are, and was taken for an op: a loop waiting 40 ms a step on its
 * Python generator inside such a span read compute-bound, compute 100%.
 * XLA's ops run on XLA's threads, or inline on the Python thread (a tiny
 * jitted function), and hold no Python: a span on a host thread that holds
 * a Python tracer frame ("$file.py:line func") or JAX's dispatch
 * ("PjitFunction(...)", ...) is no op but an annotation, which may mark
 * the iterations. Its stats (XLA's ops carry hlo_op and hlo_module, the
 * user's spans none; xprof's JSON keeps them as args) need not be read.
 * In a JAX trace only: TF's eager ops on the Python thread stay ops.
 */
struct inner {
        uint32_t track;
        tpa_ns   ts;
};

static int cmp_inner(const void *pa, const void *pb)
{
        const struct inner *x = pa, *y = pb;

        if (x->track != y->track)
                return x->track < y->track ? -1 : 1;
        return (x->ts > y->ts) - (x->ts < y->ts);
}

static bool is_jax_inner(const char *s, size_t len)
{
        return (len > 1 && s[0] == '$') || is_jax_dispatch(s, len);
}

static int jax_spans(tpa_trace *tr, size_t first, const uint8_t *role, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(tr), ne = tpa_trace_event_count(tr), n = 0;
        tpa_event *ev = tpa_trace__events_mut(tr);
        uint8_t *inner;         /* by name: 0 unknown, 1 Python or dispatch, 2 neither */
        struct inner *v;

        if ((inner = calloc(ns ? ns : 1, 1)) == NULL)
                return tpa_error_oom(err);
        for (size_t i = first; i < ne; i++) {
                tpa_str s = ev[i].name;
                if (s >= ns || role[ev[i].track] != TPA_TRACK_HOST)
                        continue;
                if (inner[s] == 0)
                        inner[s] = is_jax_inner(tpa_trace_str(tr, s), tpa_trace_str_len(tr, s))
                                   ? 1 : 2;
                n += inner[s] == 1;
        }
        if (n == 0 || (v = malloc(n * sizeof(*v))) == NULL) {
                free(inner);
                return n == 0 ? 0 : tpa_error_oom(err);
        }
        n = 0;
        for (size_t i = first; i < ne; i++)
                if (ev[i].name < ns && inner[ev[i].name] == 1 &&
                    role[ev[i].track] == TPA_TRACK_HOST)
                        v[n++] = (struct inner){ ev[i].track, ev[i].ts };
        qsort(v, n, sizeof(*v), cmp_inner);
        for (size_t i = first; i < ne; i++) {
                tpa_event *e = &ev[i];
                size_t lo = 0, hi = n;
                if (e->kind != TPA_KIND_HOST_OP || e->dur <= 0 ||
                    role[e->track] != TPA_TRACK_HOST)
                        continue;
                while (lo < hi) {       /* the first Python or dispatch at or after it */
                        size_t mid = (lo + hi) / 2;
                        if (v[mid].track < e->track ||
                            (v[mid].track == e->track && v[mid].ts < e->ts))
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                if (lo < n && v[lo].track == e->track && v[lo].ts < e->ts + e->dur)
                        e->kind = TPA_KIND_ANNOTATION;
        }
        free(v);
        free(inner);
        return 0;
}

/* torch.compile's frame scopes: "Torch-Compiled Region: 0/0" spans the
 * call of a frame Dynamo compiled, "TorchDynamo Cache Lookup" its guards,
 * "Pregraph bytecode" the bytecode before its graph. They are cpu_op, but
 * no computation: the compiled graphs run inside them as "## Call
 * CompiledFxGraph <key> ##" (torch 2.5 on), and what a region spans besides
 * is Python: the eager code after a graph break, resume functions, a step
 * function's own Python (a train step compiled whole, logging in it).
 * Taken for ops, a CPU-only trace counted that Python as compute (a step
 * with 4 ms of Python in 20 ms read 99% compute). They are annotations
 * where the graphs have their own scope; before it, the region alone
 * covered the compiled code of an inference graph, and stays. */
static bool is_dynamo_scope(const char *s, size_t len)
{
        return has_prefix(s, len, "Torch-Compiled Region") ||
               eq(s, len, "TorchDynamo Cache Lookup") || eq(s, len, "Pregraph bytecode");
}

/* The events from `first` on that are such scopes on host threads, made
 * annotations, when the trace has the graphs' own scopes. */
static int torch_regions(tpa_trace *tr, size_t first, const uint8_t *role, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(tr), ne = tpa_trace_event_count(tr);
        tpa_event *ev = tpa_trace__events_mut(tr);
        uint8_t *scope;
        bool any = false;

        if (!any_name_prefix(tr, "## Call CompiledFxGraph"))
                return 0;
        if ((scope = calloc(ns ? ns : 1, 1)) == NULL)
                return tpa_error_oom(err);
        for (size_t i = 1; i < ns; i++)
                any |= scope[i] = is_dynamo_scope(tpa_trace_str(tr, (tpa_str)i),
                                                  tpa_trace_str_len(tr, (tpa_str)i));
        for (size_t i = first; any && i < ne; i++)
                if (ev[i].name < ns && scope[ev[i].name] && role[ev[i].track] == TPA_TRACK_HOST &&
                    ev[i].kind == TPA_KIND_HOST_OP)
                        ev[i].kind = TPA_KIND_ANNOTATION;
        free(scope);
        return 0;
}

/* XLA's thunk executor on CPU: its scope ("ThunkExecutor::Execute") spans
 * the ops it runs, and its wait for the thunks it handed to the thread
 * pool ("ThunkExecutor::Execute (wait for completion)") their work there;
 * both span stretches where the pool runs that work untraced, and are
 * compute for a single device (a 3-layer MLP's step had up to 30% of its
 * time in such stretches). Where the trace holds XLA's collectives
 * (several devices in one process: pmap, a sharded jit) they also span
 * the collectives, and as compute hid them: a pmap'd step spending half
 * its time in the gradient's all-reduce read collective 0%, compute 96%.
 * There the scope is dispatch (launch) and the wait a wait (sync), the
 * ops and the collectives inside them what they are. */
static int xla_scopes(tpa_trace *tr, size_t first, const uint8_t *role, tpa_error *err)
{
        size_t ns = tpa_trace_str_count(tr), ne = tpa_trace_event_count(tr);
        tpa_event *ev = tpa_trace__events_mut(tr);
        uint8_t *scope;
        bool coll = false, any = false;

        for (size_t i = 1; i < ns && !coll; i++)
                coll = is_xla_collective(tpa_trace_str(tr, (tpa_str)i),
                                         tpa_trace_str_len(tr, (tpa_str)i));
        if (!coll)
                return 0;
        if ((scope = calloc(ns ? ns : 1, 1)) == NULL)
                return tpa_error_oom(err);
        for (size_t i = 1; i < ns; i++) {
                const char *s = tpa_trace_str(tr, (tpa_str)i);
                size_t len = tpa_trace_str_len(tr, (tpa_str)i);

                if (eq(s, len, "ThunkExecutor::Execute"))
                        scope[i] = 1 + TPA_KIND_LAUNCH;
                else if (eq(s, len, "ThunkExecutor::Execute (wait for completion)"))
                        scope[i] = 1 + TPA_KIND_SYNC;
                any |= scope[i] != 0;
        }
        for (size_t i = first; any && i < ne; i++)
                if (ev[i].name < ns && scope[ev[i].name] && role[ev[i].track] == TPA_TRACK_HOST &&
                    ev[i].kind == TPA_KIND_HOST_OP)
                        ev[i].kind = (tpa_kind)(scope[ev[i].name] - 1);
        free(scope);
        return 0;
}

static void *classify_main(void *arg)
{
        classify_part(arg);
        return NULL;
}

/* The step numbers a part found for the Steps line's events that lacked
 * one (note_step()), set in event order. */
static int step_numbers(tpa_trace *tr, const struct part *pt, tpa_error *err)
{
        return tpa_trace__set_new_aux(tr, TPA_AUX_STEP_NUM, pt->steps, pt->nsteps, err);
}

int tpa_classify__chrome(tpa_trace *tr, size_t first, const tpa_str *cats,
                         const tpa_classify_hints *hints, tpa_error *err)
{
        tpa_dialect d = detect(tr, first, cats, hints);
        size_t ne = tpa_trace_event_count(tr);
        size_t ns = tpa_trace_str_count(tr);
        tpa_health *h = tpa_trace__health(tr);
        size_t nt = tpa_trace_thread_count(tr);
        uint8_t *role;          /* by track: its role */
        uint8_t *pool = NULL;           /* by track: tf_pool() */
        struct part pt[2];
        tpa_str mtia;
        pthread_t th;
        bool two = ne > first && ne - first >= parts_from, started;
        int r;

        memset(pt, 0, sizeof(pt));
        if (first == 0 || tpa_trace_format(tr) == TPA_FORMAT_AUTO)
                tpa_trace__set_format(tr, TPA_FORMAT_CHROME_JSON, d);
        role = calloc(nt + 1, 1);
        if (role == NULL)
                goto oom;
        /* role[] holds which Kineto threads are streams, for now */
        process_roles(tr, d, first, cats, role);
        thread_roles(tr, d, role);
        pool = calloc(nt + 1, 1);
        if (pool == NULL || part_new(&pt[0], ns, d) < 0 ||
            (two && part_new(&pt[1], ns, d) < 0))
                goto oom;
        for (uint32_t t = 0; t < nt; t++) {
                const tpa_thread *tk = tpa_trace_thread_c(tr, t);
                role[t] = (uint8_t)tk->role;
                if (d != TPA_DIALECT_KINETO && tk->role == TPA_TRACK_HOST)
                        pool[t] = tf_pool(tpa_trace_str(tr, tk->name),
                                          tpa_trace_str_len(tr, tk->name));
        }
        if (d != TPA_DIALECT_KINETO || !tpa_trace_find_str(tr, &mtia, "mtia_runtime", 12))
                mtia = TPA_STR_EMPTY;
        for (int k = 0; k < 2; k++) {
                pt[k].tr = tr;
                pt[k].d = d;
                pt[k].cats = cats;
                pt[k].role = role;
                pt[k].pool = pool;
                pt[k].first = first;
                pt[k].mtia = mtia;
                pt[k].runtime_at = SIZE_MAX;
        }
        /* speed (bench/): two halves on two threads, where one thread
         * left the other core idle after reading */
        pt[0].lo = first;
        pt[0].hi = pt[1].lo = two ? first + (ne - first) / 2 : ne;
        pt[1].hi = ne;
        started = two && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
                  pthread_create(&th, NULL, classify_main, &pt[1]) == 0;
        classify_part(&pt[0]);
        if (started)
                pthread_join(th, NULL);
        else if (two)
                classify_part(&pt[1]);
        if (pt[0].r < 0 || pt[1].r < 0)
                goto oom;
        h->duplicates_dropped += pt[0].duplicates + pt[1].duplicates;
        if ((r = step_numbers(tr, &pt[0], err)) < 0 || (r = step_numbers(tr, &pt[1], err)) < 0)
                goto out;
        if (d == TPA_DIALECT_TF2)
                tf_calls(tr, first, role);
        if (d == TPA_DIALECT_TF2 && jax_facts(tr) && (r = jax_spans(tr, first, role, err)) < 0)
                goto out;
        if (d == TPA_DIALECT_TF2 && (r = xla_scopes(tr, first, role, err)) < 0)
                goto out;
        if (d == TPA_DIALECT_KINETO && (r = torch_regions(tr, first, role, err)) < 0)
                goto out;
        /* the categories either part met */
        if (pt[1].ccmemo != NULL)
                for (size_t c = 0; c <= ns; c++)
                        pt[0].ccmemo[c] |= pt[1].ccmemo[c];
        if (d == TPA_DIALECT_KINETO && (r = runtime_links(tr, first, cats, pt[0].ccmemo, err)) < 0)
                goto out;
        tpa_trace__set_runtime(tr, runtime(tr, pt));
        tpa_trace__add_facts(tr, pt[0].facts | pt[1].facts |
                                 (d == TPA_DIALECT_TF2 ? tf_data_facts(tr) | jax_facts(tr)
                                                       : 0) |
                                 (d == TPA_DIALECT_KINETO ? torch_facts(tr) : 0));
        r = 0;
        goto out;
oom:
        r = tpa_error_oom(err);
out:
        part_free(&pt[0]);
        part_free(&pt[1]);
        free(role);
        free(pool);
        return r;
}
