/* SPDX-License-Identifier: MIT */
/*
 * classify.h - (library-internal) the dialect tables for Chrome trace JSON
 * (doc/design.md section 4): which profiler wrote a trace (TF2 trace viewer,
 * TF1 Timeline, Kineto, generic Chrome), process and thread roles, device
 * ordinals, and each event's kind. The reader calls the name helpers while
 * it parses and tpa_classify__chrome() once the whole input is read, since
 * names (M records) may come after the events they name.
 */
#ifndef TPA_PARSE_CLASSIFY_H
#define TPA_PARSE_CLASSIFY_H

#include <tpa/trace.h>

/* What the reader saw outside the events. */
typedef struct tpa_classify_hints {
        bool kineto_keys;       /* schemaVersion, deviceProperties, traceName, ... */
        bool tf2_keys;          /* metadata: {"highres-ticks": ...} */
} tpa_classify_hints;

/* Decide the dialect and classify events [first, count) of `tr`: process
 * roles and device ordinals, thread roles, event kinds, step numbers of
 * TF2 "Steps" events. `cats` holds each event's 'cat' (TPA_STR_EMPTY when
 * none), indexed from `first`. TF1 duplicate views still present become
 * annotations and are counted in health.duplicates_dropped. */
int tpa_classify__chrome(tpa_trace *tr, size_t first, const tpa_str *cats,
                         const tpa_classify_hints *hints, tpa_error *err);

/* tpa_classify__chrome() classifies the events in two parts (on two
 * threads, with two CPUs) from this many events on, by default
 * TPA_CLASSIFY_PARTS_FROM; for tests: 1 makes every trace two parts,
 * SIZE_MAX none. Not thread-safe. */
#define TPA_CLASSIFY_PARTS_FROM ((size_t)1 << 16)
void tpa_classify__parts_from(size_t events);

/* True when a TF1 Timeline process name is a duplicate view of the
 * per-stream processes: "/device:GPU:0/stream:all Compute", ".../memcpy
 * Compute" (and their "Tensors" twins). */
bool tpa_classify__is_tf1_duplicate(const char *name, size_t len);

/* The step number a marker's name carries: "ProfilerStep#12", "train 12",
 * "EagerKernelExecute 0". False when the name carries none. */
bool tpa_classify__step_from_name(const char *name, size_t len, int64_t *out);

/* The op a TF2 kernel belongs to, from its 'annotation' or 'tf_op' arg:
 * the text before the first ':' or '#' ("model/conv1/Conv2D:Conv2D" gives
 * "model/conv1/Conv2D"). Returns its length. */
size_t tpa_classify__op_prefix(const char *s, size_t len);

/* True when a TF2 'tf_function_call' value says the function was traced
 * ("traced-nonXla", "traced-xla"; not "notTraced-..."). */
bool tpa_classify__is_traced_call(const char *s, size_t len);

/* Compilation evidence in an event name: "__inference_...", "XlaCompile",
 * "torch.compile", "Torch-Compiled Region", "CompiledFunction", ... */
bool tpa_classify__is_compile_name(const char *s, size_t len);

#endif
