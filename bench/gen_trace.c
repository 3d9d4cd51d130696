/* SPDX-License-Identifier: MIT */
/*
 * gen_trace.c - write a synthetic TF2-profiler-like Chrome trace of about a
 * given (uncompressed) size, gzip or plain, for the benchmark (bench/run.sh).
 *
 * The shape is the TF2 trace viewer's (doc/design.md 3): pid 1
 * "/device:GPU:0" with a compute stream, H2D and D2H copy streams
 * (memcpy_details), the "Steps", "TensorFlow Ops" and "TensorFlow Name
 * Scope" lines; pid 501 "/host:CPU" with the python thread (train step
 * markers with step_num, train_function, EagerExecute), tf.data iterator
 * threads (Iterator::*), tf_Compute threads (ExecutorState::Process, op
 * dispatch, kernel launches with correlation ids). Times are fractional
 * microseconds with 3 decimals. Each step is written host events first, then
 * device events, with a few neighbours swapped: mostly, not perfectly,
 * sorted, as the profiler writes them.
 *
 * Stress modes keep that shape and add: huge argument objects, very long
 * strings, or a distinct name on every kernel.
 *
 * Usage: gen_trace [-s SIZE[K|M|G]] [-z|-p] [-l LEVEL] [-m MODE] [-S SEED] [-o FILE]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

enum mode { MODE_NORMAL, MODE_HUGE_ARGS, MODE_LONG_STRINGS, MODE_MANY_NAMES };

static const char *const mode_names[] = { "normal", "huge-args", "long-strings",
                                          "many-names" };

/* ---- output: a buffer flushed to a file, through deflate when gzip ----- */

struct out {
        int       fd;
        bool      gzip;
        z_stream  z;
        char     *buf;
        size_t    len, cap;
        uint64_t  total;        /* uncompressed bytes written */
        uint64_t  compressed;
        uint8_t  *zbuf;
};

#define ZBUF (1u << 20)

static void die(const char *what)
{
        fprintf(stderr, "gen_trace: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void write_all(int fd, const void *p, size_t n)
{
        const char *c = p;

        while (n > 0) {
                ssize_t w = write(fd, c, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        die("write");
                c += w;
                n -= (size_t)w;
        }
}

static void out_flush(struct out *o, bool finish)
{
        if (!o->gzip) {
                write_all(o->fd, o->buf, o->len);
                o->total += o->len;
                o->len = 0;
                return;
        }
        o->z.next_in = (Bytef *)o->buf;
        o->z.avail_in = (uInt)o->len;
        for (;;) {
                int zr;
                o->z.next_out = o->zbuf;
                o->z.avail_out = ZBUF;
                zr = deflate(&o->z, finish ? Z_FINISH : Z_NO_FLUSH);
                write_all(o->fd, o->zbuf, ZBUF - o->z.avail_out);
                o->compressed += ZBUF - o->z.avail_out;
                if (zr == Z_STREAM_END)
                        break;
                if (!finish && o->z.avail_in == 0 && o->z.avail_out != 0)
                        break;
        }
        o->total += o->len;
        o->len = 0;
}

/* Room for n more bytes: a file target flushes, a memory one (fd < 0) grows. */
static inline void need(struct out *o, size_t n)
{
        if (o->len + n > o->cap) {
                if (o->fd >= 0)
                        out_flush(o, false);
                if (o->len + n > o->cap) {
                        while (o->len + n > o->cap)
                                o->cap *= 2;
                        o->buf = realloc(o->buf, o->cap);
                        if (o->buf == NULL)
                                die("realloc");
                }
        }
}

static inline void put(struct out *o, const char *s, size_t n)
{
        need(o, n);
        memcpy(o->buf + o->len, s, n);
        o->len += n;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static inline void puts_(struct out *o, const char *s)
{
        put(o, s, strlen(s));
}

static inline void put_u64(struct out *o, uint64_t v)
{
        char tmp[24];
        int i = sizeof(tmp);

        do {
                tmp[--i] = (char)('0' + v % 10);
                v /= 10;
        } while (v != 0);
        put(o, tmp + i, sizeof(tmp) - (size_t)i);
}

/* A time in ns as microseconds with 3 decimals: 1234567 -> 1234.567 */
static inline void put_us(struct out *o, int64_t ns)
{
        char tmp[4];

        put_u64(o, (uint64_t)(ns / 1000));
        tmp[0] = '.';
        tmp[1] = (char)('0' + ns / 100 % 10);
        tmp[2] = (char)('0' + ns / 10 % 10);
        tmp[3] = (char)('0' + ns % 10);
        put(o, tmp, 4);
}

/* ---- randomness ------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
        uint64_t x = rng_state;   /* xorshift64* */

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        rng_state = x;
        return x * 0x2545f4914f6cdd1dull;
}

static inline uint64_t rnd_in(uint64_t lo, uint64_t hi)  /* [lo, hi] */
{
        return lo + rnd() % (hi - lo + 1);
}

/* ---- the model being profiled ----------------------------------------- */

#define PID_GPU 1
#define PID_HOST 501
#define TID_COMPUTE 13
#define TID_H2D 14
#define TID_D2H 15
#define TID_STEPS 3735928559ull
#define TID_SCOPE 3735928561ull
#define TID_OPS 3735928562ull
#define TID_PY 3540336645ull
#define TID_GETNEXT 1236399533ull
#define TID_RESOURCE 2935847641ull
#define TID_EVENTMGR 2343431480ull
static const uint64_t tid_compute[] = { 1653882066ull, 1448840939ull, 4098221920ull };
#define N_COMPUTE (sizeof(tid_compute) / sizeof(tid_compute[0]))

static const char *const kernels[] = {
        "void cudnn::winograd_nonfused::winogradForwardFilter4x4<float, float>"
        "(cudnn::winograd_nonfused::WinogradFilterParams<float, float>)",
        "void cudnn::winograd_nonfused::winogradForwardOutput4x4<float, float>"
        "(cudnn::winograd_nonfused::WinogradOutputParams<float, float>)",
        "void cudnn::detail::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>"
        "(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, "
        "float const*, float, float, float*, float*, float*, float*, float, float)",
        "void tensorflow::BiasGradNCHW_SharedAtomics<float>(float const*, float*, int, "
        "int, int, int)",
        "volta_sgemm_128x64_nn",
        "volta_sgemm_64x64_tn",
        "volta_scudnn_128x64_relu_interior_nn_v1",
        "void tensorflow::functor::ShuffleInTensor3Simple<float, 2, 1, 0, false>(int, "
        "float const*, tensorflow::functor::Dimension<3>, float*)",
        "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<"
        "Eigen::TensorMap<Eigen::Tensor<float, 1, 1, long>, 16, Eigen::MakePointer>, "
        "Eigen::TensorCwiseBinaryOp<Eigen::internal::scalar_product_op<float const, float "
        "const>, Eigen::TensorMap<Eigen::Tensor<float const, 1, 1, long>, 16, "
        "Eigen::MakePointer> const, Eigen::TensorMap<Eigen::Tensor<float const, 1, 1, long>, "
        "16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>(Eigen::"
        "TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<float, 1, 1, "
        "long>, 16, Eigen::MakePointer>, Eigen::TensorCwiseBinaryOp<Eigen::internal::"
        "scalar_product_op<float const, float const>, Eigen::TensorMap<Eigen::Tensor<float "
        "const, 1, 1, long>, 16, Eigen::MakePointer> const, Eigen::TensorMap<Eigen::Tensor<"
        "float const, 1, 1, long>, 16, Eigen::MakePointer> const> const> const, "
        "Eigen::GpuDevice>, long)",
        "void tensorflow::functor::ApplyAdamKernel<float>(int, float*, float*, float*, "
        "float const*, float const*, float const*, float const*, float const*, float const*, "
        "float const*, bool)",
        "void tensorflow::(anonymous namespace)::GenerateNormalizedProb<float, float, 4>"
        "(float const*, float const*, int, int, float*)",
        "redzone_checker",
};
#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

struct op_type {
        const char *type;       /* TF op type */
        const char *layer;      /* layer prefix */
        unsigned    nkern;      /* kernels it launches */
};

static const struct op_type ops[] = {
        { "_FusedConv2D", "conv2d", 3 },
        { "FusedBatchNormV3", "batch_normalization", 1 },
        { "MaxPool", "max_pooling2d", 1 },
        { "MatMul", "dense", 1 },
        { "BiasAdd", "dense", 1 },
        { "Relu", "activation", 1 },
        { "Conv2DBackpropFilter", "conv2d", 3 },
        { "Conv2DBackpropInput", "conv2d", 2 },
        { "FusedBatchNormGradV3", "batch_normalization", 1 },
        { "BiasAddGrad", "dense", 1 },
        { "ReluGrad", "activation", 1 },
        { "ResourceApplyAdam", "Adam", 1 },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))
#define N_LAYERS 24     /* layer index range: distinct op names stay few hundred */

static const char *const input_ops[] = {
        "Iterator::Model", "Iterator::Model::Prefetch",
        "Iterator::Model::Prefetch::ParallelMapV2",
        "Iterator::Model::Prefetch::ParallelMapV2::BatchV2",
        "Iterator::Model::Prefetch::ParallelMapV2::BatchV2::Shuffle",
        "Iterator::Model::Prefetch::ParallelMapV2::BatchV2::Shuffle::TFRecord",
        "Iterator::Model::Prefetch::ParallelMapV2::BatchV2::Shuffle::TFRecord::FlatMap",
};
#define N_INPUT (sizeof(input_ops) / sizeof(input_ops[0]))

/* ---- events of one step, sorted and perturbed before writing ---------- */

struct ev {
        int64_t  ts;
        uint32_t off, len;      /* text in the step buffer */
};

struct step_buf {
        struct ev *ev;
        size_t     n, cap;
        char      *text;
        size_t     tlen, tcap;
        struct out tmp;         /* formatting target: reuses out's helpers */
};

static struct step_buf host_q, dev_q;
static enum mode mode = MODE_NORMAL;
static uint64_t next_corr = 1000;
static uint64_t unique_counter;

/* Start formatting an event into `q`'s text; finish with ev_end(). */
static struct out *ev_begin(struct step_buf *q)
{
        q->tmp.len = 0;
        return &q->tmp;
}

static void ev_end(struct step_buf *q, int64_t ts)
{
        if (q->n == q->cap) {
                q->cap = q->cap ? q->cap * 2 : 1024;
                q->ev = realloc(q->ev, q->cap * sizeof(*q->ev));
                if (q->ev == NULL)
                        die("realloc");
        }
        if (q->tlen + q->tmp.len > q->tcap) {
                while (q->tlen + q->tmp.len > q->tcap)
                        q->tcap = q->tcap ? q->tcap * 2 : 1u << 20;
                q->text = realloc(q->text, q->tcap);
                if (q->text == NULL)
                        die("realloc");
        }
        memcpy(q->text + q->tlen, q->tmp.buf, q->tmp.len);
        q->ev[q->n++] = (struct ev){ ts, (uint32_t)q->tlen, (uint32_t)q->tmp.len };
        q->tlen += q->tmp.len;
}

/* {"ph":"X","pid":P,"tid":T,"ts":...,"dur":...,"name":" then the caller
 * writes the name, closes with '"', adds args, and ends with '}'. */
static struct out *x_begin(struct step_buf *q, unsigned pid, uint64_t tid, int64_t ts,
                           int64_t dur)
{
        struct out *o = ev_begin(q);

        PUTS(o, "{\"ph\":\"X\",\"pid\":");
        put_u64(o, pid);
        PUTS(o, ",\"tid\":");
        put_u64(o, tid);
        PUTS(o, ",\"ts\":");
        put_us(o, ts);
        PUTS(o, ",\"dur\":");
        put_us(o, dur);
        PUTS(o, ",\"name\":\"");
        return o;
}

static void simple(struct step_buf *q, uint64_t tid, int64_t ts, int64_t dur,
                   const char *name)
{
        struct out *o = x_begin(q, PID_HOST, tid, ts, dur);

        puts_(o, name);
        PUTS(o, "\"}");
        ev_end(q, ts);
}

/* Inside an args object: a huge member, thousands of keys with nested
 * arrays and objects (~0.1-0.3 MB). */
static void put_huge_args(struct out *o)
{
        unsigned keys = (unsigned)rnd_in(2000, 6000);

        PUTS(o, ",\"blob\":{");
        for (unsigned k = 0; k < keys; k++) {
                if (k)
                        PUTS(o, ",");
                PUTS(o, "\"key_");
                put_u64(o, k);
                PUTS(o, "\":[");
                put_u64(o, rnd() % 100000);
                PUTS(o, ",{\"nested\":[1,2,3,{\"deep\":\"value\"}]}]");
        }
        PUTS(o, "}");
}

/* A very long string: 64 KiB to 1000 KiB of letters, under the readers'
 * default 1 MiB cap (opts->max_string), so that they are kept. */
static void put_long_string(struct out *o)
{
        size_t n = (size_t)rnd_in(64u << 10, 1000u << 10);

        need(o, n);
        for (size_t i = 0; i < n; i++)
                o->buf[o->len + i] = (char)('a' + (i * 7 + n) % 26);
        o->len += n;
}

static void gen_step(uint64_t step, int64_t t0, int64_t *t_end)
{
        int64_t t = t0, dev_t, step_dur;
        const uint64_t group = step;
        struct out *o;
        int64_t py_end;
        unsigned nops;

        /* python thread: the step marker and the call that runs it */
        nops = (unsigned)rnd_in(36, 60);
        step_dur = (int64_t)rnd_in(20000000, 60000000);       /* 20-60 ms */
        py_end = t + step_dur;
        o = x_begin(&host_q, PID_HOST, TID_PY, t, step_dur);
        PUTS(o, "train\",\"args\":{\"step_num\":\"");
        put_u64(o, step);
        PUTS(o, "\",\"_r\":\"1\"}}");
        ev_end(&host_q, t);
        o = x_begin(&host_q, PID_HOST, TID_PY, t + 3000, step_dur - 9000);
        PUTS(o, "train_function\",\"args\":{\"tf_function_call\":\"notTraced-nonXla\","
                "\"tracing_count\":\"2\"}}");
        ev_end(&host_q, t + 3000);
        simple(&host_q, TID_PY, t + 5000, step_dur - 15000, "TFE_Py_ExecuteCancelable");
        simple(&host_q, TID_PY, t + 6211, step_dur - 17000,
               "EagerExecute: __inference_train_function_222170");
        simple(&host_q, TID_PY, t + 7133, step_dur - 18000,
               "EagerLocalExecute: __inference_train_function_222170");
        for (unsigned i = 0; i < 12; i++)
                simple(&host_q, TID_PY, t + 9000 + i * 1777, 130 + (int64_t)(rnd() % 400),
                       "TensorHandle::GetResourceHandleInfo WaitReady");
        simple(&host_q, TID_PY, py_end - 9000, 7000, "cuStreamSynchronize");
        simple(&host_q, TID_PY, py_end - 1500, 1067, "TFE_DeleteTensorHandle");

        /* tf.data: get_next waits on the pipeline, the resource thread fills it */
        o = x_begin(&host_q, PID_HOST, TID_GETNEXT, t + 12000, 900000);
        PUTS(o, "IteratorGetNext\",\"args\":{\"group_id\":\"");
        put_u64(o, group);
        PUTS(o, "\"}}");
        ev_end(&host_q, t + 12000);
        for (unsigned i = 0; i < N_INPUT * 3; i++) {
                unsigned k = i % N_INPUT;
                int64_t ts = t + 14000 + (int64_t)i * 25000 + (int64_t)(rnd() % 9000);
                o = x_begin(&host_q, PID_HOST, i < N_INPUT ? TID_GETNEXT : TID_RESOURCE, ts,
                            (int64_t)rnd_in(2000, 800000));
                puts_(o, input_ops[k]);
                PUTS(o, "\",\"args\":{\"id\":\"");
                put_u64(o, 94000000000000ull + k * 512);
                PUTS(o, "\",\"parent_id\":\"");
                put_u64(o, k ? 94000000000000ull + (k - 1) * 512 : 0);
                PUTS(o, "\",\"long_name\":\"");
                puts_(o, input_ops[k]);
                PUTS(o, "#id=");
                put_u64(o, k);
                PUTS(o, ",parallelism=8,autotune=1#\",\"group_id\":\"");
                put_u64(o, group);
                PUTS(o, "\"}}");
                ev_end(&host_q, ts);
        }

        /* copies in: the batch goes to the device */
        dev_t = t + 400000;
        for (unsigned i = 0; i < 2; i++) {
                uint64_t corr = next_corr++;
                uint64_t size = i == 0 ? 100663296ull >> rnd_in(0, 4) : 4096;
                int64_t dur = (int64_t)(size / 12) + 2000;   /* ~12 GB/s */
                o = x_begin(&dev_q, PID_GPU, TID_H2D, dev_t, dur);
                PUTS(o, "MemcpyH2D\",\"args\":{\"annotation\":\"IteratorGetNext/_");
                put_u64(o, i + 4);
                PUTS(o, ":_Recv#from=IteratorGetNext,to=model_1/conv1_pad/Pad#::#edge_name="
                        "edge_289_IteratorGetNext#\",\"correlation_id\":\"");
                put_u64(o, corr);
                PUTS(o, "\",\"context_id\":\"$$1\",\"group_id\":\"");
                put_u64(o, group);
                PUTS(o, "\",\"memcpy_details\":\"size:");
                put_u64(o, size);
                PUTS(o, " dest:0 async:1\",\"from\":\"pageable\",\"to\":\"device\"}}");
                ev_end(&dev_q, dev_t);
                dev_t += dur + 3000;
        }

        /* ops: dispatched on tf_Compute threads, kernels on the compute stream */
        {
                int64_t host_t = t + 200000;
                int64_t exec_start = host_t;
                uint64_t ctid = tid_compute[step % N_COMPUTE];

                for (unsigned i = 0; i < nops; i++) {
                        const struct op_type *op = &ops[rnd() % N_OPS];
                        unsigned layer = (unsigned)(rnd() % N_LAYERS);
                        char long_name[160];
                        int ln;
                        int64_t op_start = host_t, op_dev_start = dev_t;

                        ln = snprintf(long_name, sizeof(long_name), "%smodel_1/%s_%u/%s:%s",
                                      i >= nops / 2 ? "gradient_tape/" : "", op->layer,
                                      layer, op->type, op->type);
                        host_t += (int64_t)rnd_in(3000, 15000);
                        for (unsigned k = 0; k < op->nkern; k++) {
                                uint64_t corr = next_corr++;
                                const char *kn = kernels[rnd() % N_KERNELS];
                                int64_t kdur = (int64_t)rnd_in(2000, 400000);
                                int64_t ldur = (int64_t)rnd_in(3000, 9000);

                                /* host side: the launch, named as the kernel */
                                o = x_begin(&host_q, PID_HOST, ctid, host_t, ldur);
                                puts_(o, kn);
                                PUTS(o, "\",\"args\":{\"context_id\":\"$$1\","
                                        "\"correlation_id\":\"");
                                put_u64(o, corr);
                                PUTS(o, "\",\"group_id\":\"");
                                put_u64(o, group);
                                PUTS(o, "\"}}");
                                ev_end(&host_q, host_t);
                                /* device side */
                                if (dev_t < host_t + ldur + 4000)
                                        dev_t = host_t + ldur + 4000;
                                o = x_begin(&dev_q, PID_GPU, TID_COMPUTE, dev_t, kdur);
                                if (mode == MODE_MANY_NAMES) {
                                        puts_(o, kn);
                                        PUTS(o, " #");
                                        put_u64(o, unique_counter++);
                                } else if (mode == MODE_LONG_STRINGS && rnd() % 2000 == 0) {
                                        put_long_string(o);
                                } else {
                                        puts_(o, kn);
                                }
                                PUTS(o, "\",\"args\":{\"annotation\":\"");
                                put(o, long_name, (size_t)ln);
                                PUTS(o, "\",\"context_id\":\"$$1\",\"correlation_id\":\"");
                                put_u64(o, corr);
                                PUTS(o, "\",\"group_id\":\"");
                                put_u64(o, group);
                                PUTS(o, "\",\"is_eager\":\"0\"");
                                if (mode == MODE_HUGE_ARGS && rnd() % 1000 == 0) {
                                        put_huge_args(o);
                                        PUTS(o, "}}");
                                } else if (mode == MODE_LONG_STRINGS && rnd() % 2000 == 0) {
                                        PUTS(o, ",\"kernel_details\":\"");
                                        put_long_string(o);
                                        PUTS(o, "\"}}");
                                } else {
                                        PUTS(o, "}}");
                                }
                                ev_end(&dev_q, dev_t);
                                dev_t += kdur + (int64_t)rnd_in(500, 6000);
                                host_t += ldur + (int64_t)rnd_in(500, 3000);
                        }
                        /* the op on its compute thread, and the device views */
                        o = x_begin(&host_q, PID_HOST, ctid, op_start, host_t - op_start);
                        puts_(o, op->type);
                        PUTS(o, "\",\"args\":{\"long_name\":\"");
                        put(o, long_name, (size_t)ln);
                        PUTS(o, "\",\"group_id\":\"");
                        put_u64(o, group);
                        PUTS(o, "\"}}");
                        ev_end(&host_q, op_start);
                        o = x_begin(&dev_q, PID_GPU, TID_OPS, op_dev_start, dev_t - op_dev_start);
                        puts_(o, op->type);
                        PUTS(o, "\",\"args\":{\"group_id\":\"");
                        put_u64(o, group);
                        PUTS(o, "\",\"long_name\":\"");
                        put(o, long_name, (size_t)ln);
                        PUTS(o, "\"}}");
                        ev_end(&dev_q, op_dev_start);
                        if (i % 2 == 0) {
                                o = x_begin(&dev_q, PID_GPU, TID_SCOPE, op_dev_start,
                                            dev_t - op_dev_start);
                                puts_(o, op->layer);
                                PUTS(o, "_");
                                put_u64(o, layer);
                                PUTS(o, "\",\"args\":{\"group_id\":\"");
                                put_u64(o, group);
                                PUTS(o, "\"}}");
                                ev_end(&dev_q, op_dev_start);
                        }
                }
                o = x_begin(&host_q, PID_HOST, ctid, exec_start, host_t - exec_start);
                PUTS(o, "ExecutorState::Process\",\"args\":{\"group_id\":\"");
                put_u64(o, group);
                PUTS(o, "\",\"id\":\"-6786037281242913757\",\"iter_num\":\"");
                put_u64(o, step);
                PUTS(o, "\"}}");
                ev_end(&host_q, exec_start);
        }

        /* copy out: the loss and metrics */
        {
                uint64_t corr = next_corr++;
                o = x_begin(&dev_q, PID_GPU, TID_D2H, dev_t, 14579);
                PUTS(o, "MemcpyD2H\",\"args\":{\"annotation\":\"Identity/_8:_Send\","
                        "\"correlation_id\":\"");
                put_u64(o, corr);
                PUTS(o, "\",\"context_id\":\"$$1\",\"group_id\":\"");
                put_u64(o, group);
                PUTS(o, "\",\"memcpy_details\":\"size:4 dest:0 async:0\"}}");
                ev_end(&dev_q, dev_t);
                dev_t += 20000;
        }
        simple(&host_q, TID_EVENTMGR, dev_t + 5000, 12000, "GPUUtil::SyncAll");

        /* the Steps line: one event per step, over the device work */
        o = x_begin(&dev_q, PID_GPU, TID_STEPS, t, dev_t - t);
        put_u64(o, step);
        PUTS(o, "\",\"args\":{\"group_id\":\"");
        put_u64(o, group);
        PUTS(o, "\",\"step_name\":\"");
        put_u64(o, step);
        PUTS(o, "\"}}");
        ev_end(&dev_q, t);

        *t_end = (dev_t > py_end ? dev_t : py_end) + (int64_t)rnd_in(10000, 400000);
}

static int ev_cmp(const void *a, const void *b)
{
        const struct ev *x = a, *y = b;

        return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Sort by start, swap ~2% of neighbours, write. */
static void flush_queue(struct out *o, struct step_buf *q, uint64_t *events)
{
        qsort(q->ev, q->n, sizeof(*q->ev), ev_cmp);
        for (size_t i = 0; i + 1 < q->n; i++) {
                if (rnd() % 50 == 0) {
                        struct ev tmp = q->ev[i];
                        q->ev[i] = q->ev[i + 1];
                        q->ev[i + 1] = tmp;
                        i++;
                }
        }
        for (size_t i = 0; i < q->n; i++) {
                put(o, q->text + q->ev[i].off, q->ev[i].len);
                PUTS(o, ",\n");
        }
        *events += q->n;
        q->n = 0;
        q->tlen = 0;
}

static void meta(struct out *o, unsigned pid, const uint64_t *tid, const char *what,
                 const char *name, uint64_t sort_index)
{
        PUTS(o, "{\"ph\":\"M\",\"pid\":");
        put_u64(o, pid);
        if (tid != NULL) {
                PUTS(o, ",\"tid\":");
                put_u64(o, *tid);
        }
        PUTS(o, ",\"name\":\"");
        puts_(o, what);
        PUTS(o, "_name\",\"args\":{\"name\":\"");
        puts_(o, name);
        PUTS(o, "\"}},\n{\"ph\":\"M\",\"pid\":");
        put_u64(o, pid);
        if (tid != NULL) {
                PUTS(o, ",\"tid\":");
                put_u64(o, *tid);
        }
        PUTS(o, ",\"name\":\"");
        puts_(o, what);
        PUTS(o, "_sort_index\",\"args\":{\"sort_index\":");
        put_u64(o, sort_index);
        PUTS(o, "}},\n");
}

static void write_metadata(struct out *o)
{
        static const struct {
                unsigned pid;
                uint64_t tid;
                const char *name;
        } threads[] = {
                { PID_GPU, TID_COMPUTE, "Stream #13(Compute,MemcpyD2D)" },
                { PID_GPU, TID_H2D, "Stream #14(MemcpyH2D)" },
                { PID_GPU, TID_D2H, "Stream #15(MemcpyD2H)" },
                { PID_GPU, TID_STEPS, "Steps" },
                { PID_GPU, TID_SCOPE, "TensorFlow Name Scope" },
                { PID_GPU, TID_OPS, "TensorFlow Ops" },
                { PID_HOST, TID_PY, "python3" },
                { PID_HOST, TID_GETNEXT, "tf_data_iterator_get_next/1236399533" },
                { PID_HOST, TID_RESOURCE, "tf_data_iterator_resource/-1359119655" },
                { PID_HOST, TID_EVENTMGR, "tf_GPU_Event_Manager/-1951535816" },
                { PID_HOST, 1653882066ull, "tf_Compute/1653882066" },
                { PID_HOST, 1448840939ull, "tf_Compute/1448840939" },
                { PID_HOST, 4098221920ull, "tf_Compute/-196745376" },
        };
        uint64_t tid;

        meta(o, PID_GPU, NULL, "process", "/device:GPU:0", 1);
        meta(o, PID_HOST, NULL, "process", "/host:CPU", 501);
        for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
                tid = threads[i].tid;
                meta(o, threads[i].pid, &tid, "thread", threads[i].name, i + 1);
        }
}

static uint64_t parse_size(const char *s)
{
        char *end;
        double v = strtod(s, &end);

        switch (*end) {
        case 'k': case 'K': v *= 1e3; break;
        case 'm': case 'M': v *= 1e6; break;
        case 'g': case 'G': v *= 1e9; break;
        case '\0': break;
        default:
                fprintf(stderr, "gen_trace: bad size '%s'\n", s);
                exit(2);
        }
        return (uint64_t)v;
}

static void usage(void)
{
        fprintf(stderr,
                "usage: gen_trace [-s SIZE[K|M|G]] [-z|-p] [-l LEVEL] [-m MODE] [-S SEED] "
                "[-o FILE]\n"
                "  -s SIZE   uncompressed JSON size to reach (default 100M; K/M/G are 10^3..)\n"
                "  -z / -p   gzip (default) / plain JSON\n"
                "  -l LEVEL  gzip level (default 6, as Python's and TF's writers)\n"
                "  -m MODE   normal | huge-args | long-strings | many-names\n"
                "  -S SEED   random seed (default 1)\n"
                "  -o FILE   output file (default stdout)\n"
                "Prints 'bytes events steps' of the uncompressed JSON to stderr.\n");
        exit(2);
}

int main(int argc, char **argv)
{
        uint64_t size = 100000000, events = 0, steps = 0, seed = 1;
        const char *path = NULL;
        bool gzip = true;
        int level = 6, c;
        struct out o = { .fd = STDOUT_FILENO };
        int64_t t = 4783895;

        while ((c = getopt(argc, argv, "s:zpl:m:S:o:h")) != -1) {
                switch (c) {
                case 's': size = parse_size(optarg); break;
                case 'z': gzip = true; break;
                case 'p': gzip = false; break;
                case 'l': level = atoi(optarg); break;
                case 'S': seed = strtoull(optarg, NULL, 10); break;
                case 'o': path = optarg; break;
                case 'm':
                        for (c = 0; c < 4 && strcmp(optarg, mode_names[c]) != 0; c++)
                                ;
                        if (c == 4)
                                usage();
                        mode = (enum mode)c;
                        break;
                default: usage();
                }
        }
        rng_state ^= seed * 0xd1342543de82ef95ull;
        if (rng_state == 0)
                rng_state = 1;
        if (path != NULL && strcmp(path, "-") != 0) {
                o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (o.fd < 0)
                        die(path);
        }
        o.gzip = gzip;
        o.cap = 1u << 20;
        o.buf = malloc(o.cap);
        host_q.tmp.cap = dev_q.tmp.cap = 1u << 16;
        host_q.tmp.buf = malloc(host_q.tmp.cap);
        dev_q.tmp.buf = malloc(dev_q.tmp.cap);
        host_q.tmp.fd = dev_q.tmp.fd = -1;
        if (o.buf == NULL || host_q.tmp.buf == NULL || dev_q.tmp.buf == NULL)
                die("malloc");
        if (gzip) {
                o.zbuf = malloc(ZBUF);
                if (o.zbuf == NULL ||
                    deflateInit2(&o.z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                        die("deflateInit2");
        }
        PUTS(&o, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},"
                 "\"traceEvents\":[\n");
        write_metadata(&o);
        events += 4 + 13 * 2;
        while (o.total + o.len < size) {
                int64_t t_end;
                gen_step(steps, t, &t_end);
                flush_queue(&o, &host_q, &events);
                flush_queue(&o, &dev_q, &events);
                t = t_end;
                steps++;
        }
        /* The TF writer ends the array with an empty object, not a comma. */
        PUTS(&o, "{}]}\n");
        out_flush(&o, true);
        if (gzip)
                deflateEnd(&o.z);
        if (o.fd != STDOUT_FILENO && close(o.fd) != 0)
                die("close");
        fprintf(stderr, "%llu %llu %llu\n", (unsigned long long)o.total,
                (unsigned long long)events, (unsigned long long)steps);
        return 0;
}
