/* SPDX-License-Identifier: MIT */
/*
 * tpa/trace.h - the event model (doc/design.md section 4): processes, threads
 * (tracks), compact events, interned strings, sparse per-event extras, and
 * the parse-health record. A tpa_trace owns everything reachable from it;
 * pointers it hands out stay valid until the next call that adds to it or
 * tpa_trace_free().
 *
 * Readers (tpa/read.h) fill a trace; analysis (tpa/analysis.h) reads it.
 * Events are kept in the order they were read; nothing here sorts them.
 * This header only reads a trace: the calls that build one are the
 * readers' own (lib/model/trace_build.h).
 */
#ifndef TPA_TRACE_H
#define TPA_TRACE_H

#include "common.h"

typedef enum tpa_kind {
        TPA_KIND_OTHER = 0,     /* the rest: counted, shown, never lost */
        TPA_KIND_KERNEL,        /* device compute */
        TPA_KIND_COPY_H2D,      /* host to device copy */
        TPA_KIND_COPY_D2H,
        TPA_KIND_COPY_D2D,
        TPA_KIND_COPY_P2P,      /* peer to peer */
        TPA_KIND_COLLECTIVE,    /* nccl and friends */
        TPA_KIND_MEMSET,
        TPA_KIND_HOST_OP,       /* a framework op on a host thread */
        TPA_KIND_INPUT,         /* input pipeline: tf.data, DataLoader */
        TPA_KIND_SYNC,          /* the host waits for the device */
        TPA_KIND_LAUNCH,        /* the host dispatches device work */
        TPA_KIND_SETUP,         /* runtime calls that are neither launches nor waits */
        TPA_KIND_STEP,          /* a step marker */
        TPA_KIND_ANNOTATION,    /* a view that duplicates others; not busy time */
        TPA_KIND__COUNT
} tpa_kind;

/* Lower-case name of a kind, e.g. "copy_h2d". */
const char *tpa_kind_name(tpa_kind kind);
static inline bool tpa_kind_is_copy(unsigned kind)
{
        return kind >= TPA_KIND_COPY_H2D && kind <= TPA_KIND_COPY_P2P;
}

/* One event: 32 bytes. Instants have dur 0. */
typedef struct tpa_event {
        tpa_ns   ts;            /* start */
        tpa_ns   dur;           /* >= 0 */
        tpa_str  name;
        unsigned track : 24;    /* index of its thread, tpa_trace_thread_c() */
        unsigned kind  : 8;     /* a tpa_kind */
        uint32_t corr;          /* correlation id (CUPTI/Kineto); 0: none */
        uint32_t group;         /* TF group_id + 1; 0: none */
} tpa_event;

#define TPA_TRACK_MAX ((1u << 24) - 1)

/* Sparse extras per event, looked up by event index. */
typedef enum tpa_aux_key {
        TPA_AUX_BYTES = 1,      /* copy size in bytes */
        TPA_AUX_STEP_NUM,       /* step number a marker carries */
        TPA_AUX_OP,             /* tpa_str: the framework op a kernel belongs to */
        TPA_AUX_FLAGS,          /* tpa_event_flag bits */
        TPA_AUX_CAT,            /* tpa_str: the Chrome 'cat', where it matters */
} tpa_aux_key;

typedef enum tpa_event_flag {
        TPA_FLAG_COMPILE   = 1 << 0, /* evidence of tracing/compilation (warm-up) */
        TPA_FLAG_UNCLOSED  = 1 << 1, /* a B never closed: ends at the trace end */
        TPA_FLAG_TOP_LEVEL = 1 << 2, /* reader knows it is a top-level host event */
        TPA_FLAG_TF_CALL   = 1 << 3, /* Python calling a tf.function (TF2 'tf_function_call') */
} tpa_event_flag;

/* An id as the input spelled it: a number, or a string when str != 0. The
 * empty string (Kineto files its "Record Window End" marker under pid "",
 * tid "") is str 0 with num TPA_ID_EMPTY_STRING, so that it is not pid 0. */
typedef struct tpa_id {
        int64_t num;
        tpa_str str;
} tpa_id;
#define TPA_ID_EMPTY_STRING INT64_MIN

static inline bool tpa_id_is_number(tpa_id id)
{
        return id.str == TPA_STR_EMPTY && id.num != TPA_ID_EMPTY_STRING;
}

typedef enum tpa_proc_role {
        TPA_PROC_UNKNOWN = 0,
        TPA_PROC_HOST,          /* CPU threads */
        TPA_PROC_DEVICE,        /* GPU/TPU streams */
        TPA_PROC_OTHER,         /* allocators, tensors, counters, ... */
} tpa_proc_role;

typedef enum tpa_track_role {
        TPA_TRACK_UNKNOWN = 0,
        TPA_TRACK_HOST,         /* a host thread */
        TPA_TRACK_STREAM,       /* a device stream (kernels, copies) */
        TPA_TRACK_STEPS,        /* a device "Steps" line */
        TPA_TRACK_ANNOTATION,   /* a duplicate view ("TensorFlow Ops", ...) */
        TPA_TRACK_OTHER,
} tpa_track_role;

typedef struct tpa_process {
        tpa_id   pid;
        tpa_str  name;          /* process_name; TPA_STR_EMPTY if never named */
        tpa_str  label;         /* process_labels, or a GPU model */
        int64_t  sort_index;
        int32_t  device;        /* device ordinal (GPU:N) or -1 */
        uint32_t input;         /* in a merged file, 1 + the index of the input it
                                 * came from (tpa_trace_input); 0: not merged */
        uint8_t  role;          /* tpa_proc_role */
} tpa_process;

typedef struct tpa_thread {
        uint32_t process;       /* index into tpa_trace_process_c() */
        tpa_id   tid;
        tpa_str  name;          /* thread_name; TPA_STR_EMPTY if never named */
        int64_t  sort_index;
        uint8_t  role;          /* tpa_track_role */
} tpa_thread;

typedef enum tpa_format {
        TPA_FORMAT_AUTO = 0,    /* sniff the first bytes */
        TPA_FORMAT_CHROME_JSON,
        TPA_FORMAT_STEPSTATS,   /* RunMetadata or StepStats, binary */
        TPA_FORMAT_STEPSTATS_TEXT, /* RunMetadata text format (pbtxt) */
        TPA_FORMAT_TFEVENTS,
        TPA_FORMAT_XSPACE,
        TPA_FORMAT__COUNT
} tpa_format;
const char *tpa_format_name(tpa_format f);  /* "chrome-json", "xspace", ... */

typedef enum tpa_dialect {
        TPA_DIALECT_GENERIC = 0, /* Chrome trace with no profiler we know */
        TPA_DIALECT_TF2,        /* TF2 trace viewer JSON, or XSpace */
        TPA_DIALECT_TF1,        /* TF1 timeline, RunMetadata */
        TPA_DIALECT_KINETO,     /* PyTorch profiler */
        TPA_DIALECT__COUNT
} tpa_dialect;
const char *tpa_dialect_name(tpa_dialect d);  /* "tf2", "kineto", ... */

/* The device runtime whose calls the trace shows, for advice that names it
 * (CUDA graphs are no help on an MTIA). */
typedef enum tpa_runtime {
        TPA_RUNTIME_UNKNOWN = 0, /* no device, or no runtime call seen */
        TPA_RUNTIME_CUDA,       /* cuda* / cu* calls */
        TPA_RUNTIME_ROCM,       /* hip* calls */
        TPA_RUNTIME_MTIA,       /* Kineto mtia_runtime */
        TPA_RUNTIME__COUNT
} tpa_runtime;
const char *tpa_runtime_name(tpa_runtime r);  /* "unknown", "cuda", "rocm", "mtia" */

/* A warning, aggregated by message: "312 events have ..., ignoring". */
typedef struct tpa_warning {
        char     msg[160];      /* one line, lower case, no count, no period */
        uint64_t count;
        uint64_t first_offset;
        tpa_str  file;          /* which input; TPA_STR_EMPTY if one input */
} tpa_warning;

/* What the readers saw: nothing read is ever dropped without a count here. */
typedef struct tpa_health {
        uint64_t bytes_in;      /* bytes read from the files (compressed) */
        uint64_t bytes_read;    /* bytes parsed (decompressed) */
        uint64_t records_read;  /* trace records seen (JSON objects, proto events) */
        uint64_t events_kept;   /* stored as tpa_event */
        uint64_t metadata;      /* M records (names, sort indexes) */
        uint64_t by_phase[128]; /* records counted but not modelled, by phase char */
        uint64_t unknown_phase; /* phases we do not know */
        uint64_t unmatched_begin; /* B with no E: closed at the trace end */
        uint64_t unmatched_end;   /* E with no B: dropped */
        uint64_t duplicates_dropped; /* TF1 /stream:all, /memcpy views */
        uint64_t empty_records; /* {} and records with no ph */
        bool     truncated;     /* the input ended early; analysed what was read */
        uint64_t truncated_at;  /* decompressed offset where it ended */
        bool     events_whole;  /* truncated after its events array ended (Chrome
                                   JSON): no event lost */
        uint64_t invalid_utf8;  /* strings kept with invalid UTF-8 replaced by U+FFFD */
        uint64_t invalid_utf8_at; /* offset of the first of them (0: not known) */
} tpa_health;

typedef struct tpa_trace tpa_trace;

/* A new empty trace in *out, for tpa_read_path() or tpa_read_memory() to
 * fill (tpa/read.h). Free with tpa_trace_free(). */
int  tpa_trace_new(tpa_trace **out, tpa_error *err);
void tpa_trace_free(tpa_trace *tr);             /* NULL is a no-op */

/* Strings, by the ids events and tables hold. */
const char *tpa_trace_str(const tpa_trace *tr, tpa_str id);   /* never NULL */
size_t      tpa_trace_str_len(const tpa_trace *tr, tpa_str id);
size_t      tpa_trace_str_count(const tpa_trace *tr);
/* Look a string up without adding it; false when absent. */
bool        tpa_trace_find_str(const tpa_trace *tr, tpa_str *out, const char *s, size_t len);

/* Processes and threads, by index (an event's track is a thread's). */
size_t             tpa_trace_process_count(const tpa_trace *tr);
size_t             tpa_trace_thread_count(const tpa_trace *tr);
const tpa_process *tpa_trace_process_c(const tpa_trace *tr, uint32_t i);
const tpa_thread  *tpa_trace_thread_c(const tpa_trace *tr, uint32_t i);

/* Events, in read order. */
size_t           tpa_trace_event_count(const tpa_trace *tr);
const tpa_event *tpa_trace_events(const tpa_trace *tr);

/* Extras, looked up by event index: false when the event has none. */
bool tpa_trace_get_aux(const tpa_trace *tr, size_t event, tpa_aux_key key, int64_t *out);
/* As tpa_trace_get_aux(), for a pass that looks up one key at growing event
 * indexes: *cursor (0 before the first look-up, one per pass) keeps where the
 * last one ended, so each costs a step or two through the extras instead of
 * a search. Any order still gives the right answer, only slower. */
bool tpa_trace_get_aux_seq(const tpa_trace *tr, size_t event, tpa_aux_key key, size_t *cursor,
                           int64_t *out);
/* tpa_trace_get_aux_seq() of events[0..n) in turn, one cursor for all, in
 * one call: out[k] the value of events[k]'s extra, or `none` when it has
 * none. For a pass that wants the extras of a run of events at once. */
void tpa_trace_get_aux_run(const tpa_trace *tr, const uint32_t *events, size_t n,
                           tpa_aux_key key, size_t *cursor, int64_t none, int64_t *out);
/* The first event from *event on that has extra `key`: its index in *event
 * and the value in *out; false when none has. A pass over the events that
 * want one key of few takes them in turn instead of asking each event. */
bool tpa_trace_next_aux(const tpa_trace *tr, tpa_aux_key key, size_t *event, int64_t *out);

/* Format and dialect of what was read (the first input decides). */
tpa_format  tpa_trace_format(const tpa_trace *tr);
tpa_dialect tpa_trace_dialect(const tpa_trace *tr);
/* The device runtime (the first input that shows one decides). */
tpa_runtime tpa_trace_runtime(const tpa_trace *tr);
/* What the trace shows of how the program runs, a bit each; any input
 * that shows one sets it. */
typedef enum tpa_trace_fact {
        /* TF runs a tf.function that Python called ("EagerLocalExecute:
         * __inference_<name>_<id>"): the step is compiled already,
         * whatever runs between the calls */
        TPA_FACT_TF_FUNCTION    = 1 << 0,
        /* PyTorch's DataLoader reads through worker processes
         * (enumerate(DataLoader)#_MultiProcessingDataLoaderIter...) */
        TPA_FACT_LOADER_WORKERS = 1 << 1,
        /* TF's tf.data pipeline prefetches (an Iterator::Prefetch stage) */
        TPA_FACT_TF_DATA_PREFETCH = 1 << 2,
        /* ... has a stage that runs in parallel (Iterator::ParallelMapV2,
         * ParallelInterleave*, ParallelBatch, MapAndBatch, ...) */
        TPA_FACT_TF_DATA_PARALLEL = 1 << 3,
        /* ... runs Python (tf.py_function, tf.numpy_function: EagerPyFunc,
         * PyFunc), one call at a time under the GIL */
        TPA_FACT_TF_PY_FUNCTION   = 1 << 4,
        /* PyTorch runs code torch.compile made (CompiledFunction): the
         * Python left is outside the compiled region */
        TPA_FACT_TORCH_COMPILED   = 1 << 5,
        /* JAX made the XSpace: its jitted functions dispatch on XLA's PjRt
         * runtime ("PjitFunction(<name>)"), no TensorFlow runs */
        TPA_FACT_JAX              = 1 << 6,
        /* TF's tf.data pipeline reads a Python generator
         * (Dataset.from_generator: an Iterator::Generator stage under a
         * FlatMap, its next() a PyFunc on tf.data's threads) */
        TPA_FACT_TF_DATA_GENERATOR = 1 << 7,
} tpa_trace_fact;
unsigned tpa_trace_facts(const tpa_trace *tr);

/* Where the trace sits in a distributed job, as the profiler recorded it
 * (Kineto's `distributedInfo`): rank and world size, -1 when unknown; and
 * in time: the wall-clock time its event times count from, in ns since
 * the epoch (Kineto's `baseTimeNanoseconds`), -1 when unknown, so that two
 * traces tell whether they ran at once. */
typedef struct tpa_dist_info {
        int64_t rank;
        int64_t world_size;
        char    backend[24];    /* "gloo", "nccl"; "" when unknown */
        int64_t wall_base_ns;
} tpa_dist_info;
#define TPA_DIST_INFO_INIT { .rank = -1, .world_size = -1, .backend = "", .wall_base_ns = -1 }
/* TPA_DIST_INFO_INIT until a reader sets it; the first input to set a
 * field decides it. */
const tpa_dist_info *tpa_trace_dist(const tpa_trace *tr);

/* A file written by `merge` holds several inputs, each process marked with
 * the input it came from: the input's name as merge was given it, and where
 * that input sat in a distributed job. */
typedef struct tpa_input_info {
        tpa_str       name;
        tpa_dist_info dist;
} tpa_input_info;
/* 0 for a trace that is no merge; else 1 + the highest index marked. */
size_t                tpa_trace_input_count(const tpa_trace *tr);
const tpa_input_info *tpa_trace_input(const tpa_trace *tr, size_t index);
/* Input `index` of a merged trace as a trace of its own in *out: its
 * processes, threads and events (in read order, with their extras), its
 * dist info; format, dialect and runtime as the whole; the whole file's
 * health and warnings, but for the events kept. So a part analyses as the
 * input did before it was merged. *out is written only on success. */
int tpa_trace_split_input(const tpa_trace *tr, size_t index, tpa_trace **out,
                          tpa_error *err);

/* Parse health: what the readers saw. */
const tpa_health *tpa_trace_health_c(const tpa_trace *tr);

/* Non-fatal problems the readers met; identical messages counted together. */
size_t             tpa_trace_warning_count(const tpa_trace *tr);
const tpa_warning *tpa_trace_warning(const tpa_trace *tr, size_t i);

/* Bytes of memory the trace holds (events, strings, tables). */
size_t tpa_trace_memory_bytes(const tpa_trace *tr);

/* Trace time span over all events: [first start, last end]. False if empty. */
bool tpa_trace_span(const tpa_trace *tr, tpa_ns *start, tpa_ns *end);

#endif
