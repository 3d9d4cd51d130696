/* SPDX-License-Identifier: MIT */
/*
 * test_proto.c - the protobuf readers on messages built here with the
 * generated protobuf-c code: XSpace (times from timestamp_ns and offset_ps,
 * display names, step_name, ref_value stats, internal events skipped, roles
 * and kinds, large lines walked ahead as small ones are read), RunMetadata / StepStats (duplicates dropped, /sync, copies and
 * their bytes, one step each), tfevents (frames, both checksums, the error
 * offset of a corrupt frame, truncation, --strict), and size caps.
 */
#include <stdio.h>
#include <stdlib.h>
/* protobuf-c's *__INIT macros cast away const from its empty string. */
#pragma GCC diagnostic ignored "-Wcast-qual"
#include <string.h>

#include <tpa/tpa.h>

#include "event.pb-c.h"
#include "model/utf8.h"
#include "step_stats.pb-c.h"
#include "tap.h"
#include "xplane.pb-c.h"

/* ---- helpers ------------------------------------------------------------ */

static const tpa_event *find_event(const tpa_trace *tr, const char *name, size_t *index)
{
        for (size_t i = 0; i < tpa_trace_event_count(tr); i++) {
                if (strcmp(tpa_trace_str(tr, tpa_trace_events(tr)[i].name), name) == 0) {
                        if (index != NULL)
                                *index = i;
                        return &tpa_trace_events(tr)[i];
                }
        }
        return NULL;
}

static size_t count_kind(const tpa_trace *tr, tpa_kind k)
{
        size_t n = 0;
        for (size_t i = 0; i < tpa_trace_event_count(tr); i++)
                n += tpa_trace_events(tr)[i].kind == k;
        return n;
}

static int64_t aux(const tpa_trace *tr, size_t i, tpa_aux_key key)
{
        int64_t v = -1;
        tpa_trace_get_aux(tr, i, key, &v);
        return v;
}

static uint8_t *pack_msg(const ProtobufCMessage *m, size_t *len)
{
        uint8_t *buf;

        *len = protobuf_c_message_get_packed_size(m);
        buf = malloc(*len + 1);
        protobuf_c_message_pack(m, buf);
        return buf;
}

/* ---- XSpace ------------------------------------------------------------- */

#define STAT_MD(var, id_, name_) \
        Tpapb__XStatMetadata var##_v = TPAPB__XSTAT_METADATA__INIT; \
        Tpapb__XStatMetadataEntry var = TPAPB__XSTAT_METADATA_ENTRY__INIT; \
        var##_v.id = id_; var##_v.name = (char *)name_; var.key = id_; var.value = &var##_v

#define EVENT_MD(var, id_, name_, display_) \
        Tpapb__XEventMetadata var##_v = TPAPB__XEVENT_METADATA__INIT; \
        Tpapb__XEventMetadataEntry var = TPAPB__XEVENT_METADATA_ENTRY__INIT; \
        var##_v.id = id_; var##_v.name = (char *)name_; var##_v.display_name = (char *)display_; \
        var.key = id_; var.value = &var##_v

static uint8_t *make_xspace(size_t *len)
{
        /* host plane */
        STAT_MD(s_step_num, 1, "step_num");
        STAT_MD(s_func, 2, "tf_function_call");
        Tpapb__XStatMetadataEntry *host_stats[] = { &s_step_num, &s_func };
        EVENT_MD(e_train, 10, "train", "");
        EVENT_MD(e_alloc, 11, "MemoryAllocation", "");
        EVENT_MD(e_launch, 12, "cudaLaunchKernel", "");
        EVENT_MD(e_next, 13, "model/IteratorGetNext:IteratorGetNext", "IteratorGetNext");
        Tpapb__XEventMetadataEntry *host_events[] = { &e_train, &e_alloc, &e_launch, &e_next };
        Tpapb__XStat st_step = TPAPB__XSTAT__INIT, st_func = TPAPB__XSTAT__INIT;
        Tpapb__XStat *train_stats[] = { &st_step, &st_func };
        Tpapb__XEvent h0 = TPAPB__XEVENT__INIT, h1 = TPAPB__XEVENT__INIT,
                      h2 = TPAPB__XEVENT__INIT, h3 = TPAPB__XEVENT__INIT;
        Tpapb__XEvent *host_ev[] = { &h0, &h1, &h2, &h3 };
        Tpapb__XLine hl = TPAPB__XLINE__INIT;
        Tpapb__XLine *host_lines[] = { &hl };
        Tpapb__XPlane host = TPAPB__XPLANE__INIT;

        /* device plane */
        STAT_MD(d_group, 1, "group_id");
        STAT_MD(d_corr, 2, "correlation_id");
        STAT_MD(d_memcpy, 3, "memcpy_details");
        STAT_MD(d_step_name, 4, "step_name");
        STAT_MD(d_str, 5, "train 7");   /* a ref_value target */
        Tpapb__XStatMetadataEntry *dev_stats[] = { &d_group, &d_corr, &d_memcpy, &d_step_name,
                                                   &d_str };
        EVENT_MD(k_gemm, 1, "volta_sgemm", "");
        EVENT_MD(k_copy, 2, "MemcpyH2D", "");
        EVENT_MD(k_step, 3, "7", "");
        EVENT_MD(k_op, 4, "model/dense/MatMul:MatMul", "MatMul");
        Tpapb__XEventMetadataEntry *dev_events[] = { &k_gemm, &k_copy, &k_step, &k_op };
        Tpapb__XStat g0 = TPAPB__XSTAT__INIT, c0 = TPAPB__XSTAT__INIT, m0 = TPAPB__XSTAT__INIT,
                     sn = TPAPB__XSTAT__INIT, g1 = TPAPB__XSTAT__INIT;
        Tpapb__XStat *gemm_stats[] = { &g0, &c0 }, *copy_stats[] = { &m0 },
                     *step_stats[] = { &sn, &g1 };
        Tpapb__XEvent d0 = TPAPB__XEVENT__INIT, d1 = TPAPB__XEVENT__INIT,
                      d2 = TPAPB__XEVENT__INIT, d3 = TPAPB__XEVENT__INIT;
        Tpapb__XEvent *stream_ev[] = { &d0 }, *copy_ev[] = { &d1 }, *steps_ev[] = { &d2 },
                      *ops_ev[] = { &d3 };
        Tpapb__XLine l_stream = TPAPB__XLINE__INIT, l_copy = TPAPB__XLINE__INIT,
                     l_steps = TPAPB__XLINE__INIT, l_ops = TPAPB__XLINE__INIT;
        Tpapb__XLine *dev_lines[] = { &l_stream, &l_copy, &l_steps, &l_ops };
        Tpapb__XPlane dev = TPAPB__XPLANE__INIT;
        Tpapb__XPlane meta = TPAPB__XPLANE__INIT;
        Tpapb__XPlane *planes[] = { &host, &dev, &meta };
        Tpapb__XSpace xs = TPAPB__XSPACE__INIT;

        st_step.metadata_id = 1;
        st_step.value_case = TPAPB__XSTAT__VALUE_INT64_VALUE;
        st_step.int64_value = 7;
        st_func.metadata_id = 2;
        st_func.value_case = TPAPB__XSTAT__VALUE_STR_VALUE;
        st_func.str_value = (char *)"traced-nonXla";
        e_train_v.n_stats = 2;
        e_train_v.stats = train_stats;
        /* train 7: 1000 ns + 1500 ps = 1001.5 ns -> 1002 (round half up) */
        h0.metadata_id = 10;
        h0.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        h0.offset_ps = 1500;
        h0.duration_ps = 100000499;             /* 100000.499 ns -> 100000 */
        h1.metadata_id = 11;                    /* internal: skipped */
        h1.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        h1.offset_ps = 2000;
        h2.metadata_id = 12;
        h2.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        h2.offset_ps = 3000000;
        h2.duration_ps = 2000000;
        h3.metadata_id = 13;
        h3.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        h3.offset_ps = 500000;
        h3.duration_ps = 1000000;
        hl.id = 4242;
        hl.name = (char *)"python3";
        hl.timestamp_ns = 1000;
        hl.n_events = 4;
        hl.events = host_ev;
        host.id = 0;
        host.name = (char *)"/host:CPU";
        host.n_lines = 1;
        host.lines = host_lines;
        host.n_event_metadata = 4;
        host.event_metadata = host_events;
        host.n_stat_metadata = 2;
        host.stat_metadata = host_stats;

        g0.metadata_id = 1;
        g0.value_case = TPAPB__XSTAT__VALUE_INT64_VALUE;
        g0.int64_value = 7;
        c0.metadata_id = 2;
        c0.value_case = TPAPB__XSTAT__VALUE_UINT64_VALUE;
        c0.uint64_value = 99;
        d0.metadata_id = 1;
        d0.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        d0.offset_ps = 10000000;
        d0.duration_ps = 50000000;
        d0.n_stats = 2;
        d0.stats = gemm_stats;
        m0.metadata_id = 3;
        m0.value_case = TPAPB__XSTAT__VALUE_STR_VALUE;
        m0.str_value = (char *)"size:4096 dest:0 async:1";
        d1.metadata_id = 2;
        d1.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        d1.offset_ps = 4000000;
        d1.duration_ps = 3000000;
        d1.n_stats = 1;
        d1.stats = copy_stats;
        sn.metadata_id = 4;
        sn.value_case = TPAPB__XSTAT__VALUE_REF_VALUE;
        sn.ref_value = 5;                       /* "train 7" */
        g1 = g0;
        d2.metadata_id = 3;
        d2.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        d2.offset_ps = 0;
        d2.duration_ps = 90000000;
        d2.n_stats = 2;
        d2.stats = step_stats;
        d3.metadata_id = 4;
        d3.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
        d3.offset_ps = 10000000;
        d3.duration_ps = 50000000;
        l_stream.id = 7;
        l_stream.name = (char *)"Stream #7(Compute)";
        l_stream.timestamp_ns = 2000;
        l_stream.n_events = 1;
        l_stream.events = stream_ev;
        l_copy.id = 8;
        l_copy.name = (char *)"Stream #8(MemcpyH2D)";
        l_copy.timestamp_ns = 2000;
        l_copy.n_events = 1;
        l_copy.events = copy_ev;
        l_steps.id = -559038737;                /* 0xdeadbeef */
        l_steps.name = (char *)"Steps";
        l_steps.timestamp_ns = 2000;
        l_steps.n_events = 1;
        l_steps.events = steps_ev;
        l_ops.id = 5;
        l_ops.display_id = -559038734;
        l_ops.name = (char *)"ops";
        l_ops.display_name = (char *)"TensorFlow Ops";
        l_ops.timestamp_ns = 2000;
        l_ops.n_events = 1;
        l_ops.events = ops_ev;
        dev.id = 0;
        dev.name = (char *)"/device:GPU:0";
        dev.n_lines = 4;
        dev.lines = dev_lines;
        dev.n_event_metadata = 4;
        dev.event_metadata = dev_events;
        dev.n_stat_metadata = 5;
        dev.stat_metadata = dev_stats;
        meta.id = 99;
        meta.name = (char *)"/host:metadata";   /* no events: left out */

        xs.n_planes = 3;
        xs.planes = planes;
        return pack_msg(&xs.base, len);
}

static void test_proto__xspace(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        const tpa_event *e;
        size_t len, i;
        uint8_t *buf = make_xspace(&len);
        int rc;

        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, buf, len, "x.xplane.pb", NULL, &err);
        if (!ok(rc == 0, "xspace reads (%s)", err.msg))
                goto out;
        ok(tpa_trace_format(tr) == TPA_FORMAT_XSPACE && tpa_trace_dialect(tr) == TPA_DIALECT_TF2,
           "format xspace, dialect tf2");
        tap_eq((int64_t)tpa_trace_event_count(tr), 7, "7 events: the internal one skipped");
        tap_eq((int64_t)tpa_trace__health(tr)->records_read, 8, "8 records read");
        tap_eq((int64_t)tpa_trace_process_count(tr), 2, "2 processes: empty planes left out");

        e = find_event(tr, "train", &i);
        if (ok(e != NULL, "host marker 'train'")) {
                tap_eq(e->ts, 1002, "ts = 1000 ns + 1500 ps, rounded half up");
                tap_eq(e->dur, 100000, "dur = 100000.499 ns rounded");
                tap_eq(aux(tr, i, TPA_AUX_STEP_NUM), 7, "step_num stat");
                tap_eq(aux(tr, i, TPA_AUX_FLAGS) & TPA_FLAG_COMPILE, TPA_FLAG_COMPILE,
                       "tf_function_call traced: compile flag");
                tap_eq(aux(tr, i, TPA_AUX_FLAGS) & TPA_FLAG_TF_CALL, TPA_FLAG_TF_CALL,
                       "tf_function_call: a tf.function's call");
                tap_eq(e->kind, TPA_KIND_STEP, "host train marker is a step");
        }
        ok(find_event(tr, "MemoryAllocation", NULL) == NULL, "MemoryAllocation skipped");
        e = find_event(tr, "IteratorGetNext", NULL);
        ok(e != NULL && e->kind == TPA_KIND_INPUT, "display_name used; IteratorGetNext is input");
        e = find_event(tr, "cudaLaunchKernel", NULL);
        ok(e != NULL && e->kind == TPA_KIND_LAUNCH && e->ts == 4000 && e->dur == 2000,
           "cudaLaunchKernel is launch at 4000 ns");
        e = find_event(tr, "volta_sgemm", NULL);
        if (ok(e != NULL, "kernel")) {
                tap_eq(e->kind, TPA_KIND_KERNEL, "stream event is a kernel");
                tap_eq(e->corr, 99, "correlation_id");
                tap_eq(e->group, 8, "group_id 7 stored as 8");
                tap_eq(e->ts, 12000, "ts = 2000 ns + 10 us");
                tap_eq(tpa_trace_process_c(tr, tpa_trace_thread_c(tr, e->track)->process)->role,
                       TPA_PROC_DEVICE, "device plane is a device");
                tap_eq(tpa_trace_process_c(tr, tpa_trace_thread_c(tr, e->track)->process)->device,
                       0, "device ordinal 0");
        }
        e = find_event(tr, "MemcpyH2D", &i);
        ok(e != NULL && e->kind == TPA_KIND_COPY_H2D && aux(tr, i, TPA_AUX_BYTES) == 4096,
           "MemcpyH2D: copy_h2d of 4096 bytes from memcpy_details");
        e = find_event(tr, "train 7", &i);
        ok(e != NULL && e->kind == TPA_KIND_STEP && aux(tr, i, TPA_AUX_STEP_NUM) == 7 &&
           tpa_trace_thread_c(tr, e->track)->role == TPA_TRACK_STEPS,
           "Steps line event renamed by step_name (a ref_value): step 7 on the Steps track");
        e = find_event(tr, "MatMul", &i);
        ok(e != NULL && e->kind == TPA_KIND_ANNOTATION &&
           strcmp(tpa_trace_str(tr, tpa_trace_thread_c(tr, e->track)->name), "TensorFlow Ops")
           == 0 && tpa_trace_thread_c(tr, e->track)->tid.num == 3735928562,
           "line display_name and display_id; TensorFlow Ops is an annotation");
out:
        tpa_trace_free(tr);
        free(buf);
}

static void test_proto__xspace_errors(void)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        size_t len;
        uint8_t *buf = make_xspace(&len);
        int rc;

        tpa_trace_new(&tr, &err);
        ro.format = TPA_FORMAT_XSPACE;
        rc = tpa_read_memory(tr, buf, len / 2, "cut.xplane.pb", &ro, &err);
        tap_eq(rc, 0, "a cut XSpace reads up to the cut (%s)", err.msg);
        ok(tpa_trace__health(tr)->truncated && tpa_trace__health(tr)->truncated_at == len / 2,
           "... and says where it ends");
        tpa_trace_free(tr);
        tpa_trace_new(&tr, &err);
        ro.strict = true;
        rc = tpa_read_memory(tr, buf, len / 2, "cut.xplane.pb", &ro, &err);
        tap_eq(rc, TPA_EFORMAT, "a cut XSpace is bad input with strict (%s)", err.msg);
        ro.strict = false;
        tpa_trace_free(tr);

        tpa_trace_new(&tr, &err);
        ro.max_message = 100;
        rc = tpa_read_memory(tr, buf, len, "big.xplane.pb", &ro, &err);
        tap_eq(rc, TPA_ELIMIT, "an XSpace above max_message is refused (%s)", err.msg);
        tpa_trace_free(tr);
        free(buf);
}

/* ---- XSpace, byte by byte ----------------------------------------------- */

/* The reader walks the wire itself; these inputs are ones protobuf-c's
 * generated packer never makes, and the reader must make of them what
 * unpacking them whole did. */
struct wire {
        uint8_t b[512];
        size_t  n;
};

static void put_varint(struct wire *w, uint64_t v)
{
        for (; v >= 0x80; v >>= 7)
                w->b[w->n++] = (uint8_t)(v | 0x80);
        w->b[w->n++] = (uint8_t)v;
}

static void put_int(struct wire *w, unsigned num, uint64_t v)
{
        put_varint(w, (uint64_t)num << 3);
        put_varint(w, v);
}

static void put_bytes(struct wire *w, unsigned num, const void *p, size_t n)
{
        put_varint(w, (uint64_t)num << 3 | 2);
        put_varint(w, n);
        memcpy(w->b + w->n, p, n);
        w->n += n;
}

static void put_msg(struct wire *w, unsigned num, const struct wire *m)
{
        put_bytes(w, num, m->b, m->n);
}

static void put_entry(struct wire *w, unsigned num, int64_t key, unsigned name_field,
                      const char *name)
{
        struct wire e = { .n = 0 }, v = { .n = 0 };

        put_int(&v, 1, (uint64_t)key);
        put_bytes(&v, name_field, name, strlen(name));
        put_int(&e, 1, (uint64_t)key);
        put_msg(&e, 2, &v);
        put_msg(w, num, &e);
}

/* A device plane whose maps come before its lines, sparse metadata ids, a
 * line name with a NUL, a scalar given twice, a 5-byte tag, both members
 * of a oneof, unknown fields; and, when `bad`, an XStat whose str_value is
 * a varint. */
static void make_odd_xspace(struct wire *xs, bool bad)
{
        static const uint8_t long_tag_id[] = { 0x88, 0x80, 0x80, 0x80, 0x00, 0x07 };
        struct wire pl = { .n = 0 }, ln = { .n = 0 }, e1 = { .n = 0 }, e2 = { .n = 0 },
                    s1 = { .n = 0 }, s2 = { .n = 0 };

        put_int(&s1, 1, 1000000);               /* correlation_id */
        put_bytes(&s1, 5, "12", 2);
        put_int(&s1, 3, 34);                    /* the oneof's last member wins */
        put_int(&e1, 1, 5);
        put_int(&e1, 2, 3000);                  /* offset_ps, then */
        put_int(&e1, 5, 1);                     /* num_occurrences: no offset */
        put_int(&e1, 3, 1000000);
        put_msg(&e1, 4, &s1);
        put_int(&s2, 1, 7);                     /* group_id */
        put_int(&s2, 3, 3);
        if (bad)
                put_int(&s2, 5, 1);
        put_int(&e2, 1, 900000);
        put_int(&e2, 2, 5000000);
        put_varint(&e2, 15u << 3 | 1);          /* unknown fixed64 */
        memcpy(e2.b + e2.n, "12345678", 8);
        e2.n += 8;
        put_msg(&e2, 4, &s2);
        memcpy(ln.b, long_tag_id, sizeof(long_tag_id));         /* id 7 */
        ln.n = sizeof(long_tag_id);
        put_bytes(&ln, 2, "stream\0junk", 11);
        put_int(&ln, 3, 1000);
        put_msg(&ln, 4, &e1);
        put_msg(&ln, 4, &e2);
        put_int(&ln, 3, 2000);                  /* the last timestamp_ns wins */
        put_bytes(&pl, 2, "/device:GPU:0", 13);
        put_entry(&pl, 5, 1000000, 2, "correlation_id");
        put_entry(&pl, 5, 7, 2, "group_id");
        put_entry(&pl, 4, 900000, 2, "kernel_b");
        put_entry(&pl, 4, 5, 2, "volta_sgemm");
        put_msg(&pl, 3, &ln);
        xs->n = 0;
        put_int(xs, 9, 1);                      /* unknown */
        put_msg(xs, 1, &pl);
        put_bytes(xs, 2, "an error", 8);
}

static void test_proto__xspace_wire(void)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        struct wire xs;
        const tpa_event *e;
        tpa_trace *tr;
        Tpapb__XSpace *un;
        size_t i;
        int rc;

        ro.format = TPA_FORMAT_XSPACE;
        make_odd_xspace(&xs, false);
        un = tpapb__xspace__unpack(NULL, xs.n, xs.b);
        ok(un != NULL, "wire: protobuf-c reads the odd XSpace");
        tpapb__xspace__free_unpacked(un, NULL);
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, xs.b, xs.n, "odd.xplane.pb", &ro, &err);
        if (ok(rc == 0, "wire: the odd XSpace reads (%s)", err.msg)) {
                tap_eq((int64_t)tpa_trace_event_count(tr), 2, "wire: 2 events");
                e = find_event(tr, "volta_sgemm", &i);
                if (ok(e != NULL, "wire: event metadata by a small id")) {
                        tap_eq(e->ts, 2000, "wire: last timestamp_ns; num_occurrences, no offset");
                        tap_eq(e->dur, 1000, "wire: duration");
                        tap_eq(e->corr, 34, "wire: a sparse stat id; the oneof's last member");
                        tap_streq(tpa_trace_str(tr, tpa_trace_thread_c(tr, e->track)->name),
                                "stream", "wire: a line name ends at its NUL");
                        tap_eq(tpa_trace_thread_c(tr, e->track)->tid.num, 7,
                               "wire: a 5-byte tag for the line id");
                }
                e = find_event(tr, "kernel_b", NULL);
                ok(e != NULL && e->ts == 7000 && e->group == 4,
                   "wire: event metadata by a sparse id, unknown field skipped");
        }
        tpa_trace_free(tr);

        make_odd_xspace(&xs, true);
        un = tpapb__xspace__unpack(NULL, xs.n, xs.b);
        ok(un == NULL, "wire: protobuf-c refuses a str_value sent as a varint");
        tpapb__xspace__free_unpacked(un, NULL);
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, xs.b, xs.n, "bad.xplane.pb", &ro, &err);
        tap_eq(rc, TPA_EFORMAT, "wire: so does the reader (%s)", err.msg);
        /* the bad field: the last "\x28\x01" (field 5, a varint) */
        for (i = xs.n - 2; i > 0 && memcmp(xs.b + i, "\x28\x01", 2) != 0; i--)
                ;
        ok(err.has_offset && err.offset == i, "wire: at the bad field's tag (%llu, want %zu)",
           (unsigned long long)err.offset, i);
        tpa_trace_free(tr);
}

/* ---- RunMetadata -------------------------------------------------------- */

static Tpapb__NodeExecStats node(const char *name, const char *label, int64_t start_us,
                                 int64_t dur_us, uint32_t tid)
{
        Tpapb__NodeExecStats n = TPAPB__NODE_EXEC_STATS__INIT;

        n.node_name = (char *)name;
        n.timeline_label = (char *)label;
        n.all_start_micros = start_us;
        n.all_end_rel_micros = dur_us;
        n.thread_id = tid;
        return n;
}

static uint8_t *make_run_metadata(size_t *len, bool bare, int64_t t0)
{
        Tpapb__NodeExecStats c0 = node("dense/MatMul", "dense/MatMul = MatMul(x, w)", t0, 30, 11);
        Tpapb__NodeExecStats c1 = node("IteratorGetNext", "IteratorGetNext = "
                                       "IteratorGetNext(it)", t0 + 40, 20, 12);
        Tpapb__NodeExecStats a0 = node("dense/MatMul:MatMul", "sgemm", t0 + 5, 10, 0);
        Tpapb__NodeExecStats k0 = node("dense/MatMul:MatMul", "sgemm", t0 + 5, 10, 0);
        Tpapb__NodeExecStats m0 = node("edge_1_x:MEMCPYHtoD", "MEMCPYHtoD 4096 bytes", t0 + 1,
                                       3, 0);
        Tpapb__NodeExecStats m1 = node("edge_1_x:MEMCPYHtoD", "MEMCPYHtoD 4096 bytes", t0 + 1,
                                       3, 0);
        Tpapb__NodeExecStats s0 = node("cuStreamSynchronize", "ThreadId 11", t0 + 16, 4, 11);
        Tpapb__NodeExecStats *cpu_n[] = { &c0, &c1 }, *all_n[] = { &a0 }, *k_n[] = { &k0 },
                             *mall_n[] = { &m0 }, *m_n[] = { &m1 }, *s_n[] = { &s0 };
        Tpapb__DeviceStepStats cpu = TPAPB__DEVICE_STEP_STATS__INIT,
                               all = TPAPB__DEVICE_STEP_STATS__INIT,
                               k = TPAPB__DEVICE_STEP_STATS__INIT,
                               mall = TPAPB__DEVICE_STEP_STATS__INIT,
                               m = TPAPB__DEVICE_STEP_STATS__INIT,
                               s = TPAPB__DEVICE_STEP_STATS__INIT;
        Tpapb__ThreadNamesEntry tn = TPAPB__THREAD_NAMES_ENTRY__INIT;
        Tpapb__ThreadNamesEntry *tns[] = { &tn };
        Tpapb__DeviceStepStats *devs[] = { &cpu, &all, &k, &mall, &m, &s };
        Tpapb__StepStats ss = TPAPB__STEP_STATS__INIT;
        Tpapb__RunMetadata rm = TPAPB__RUN_METADATA__INIT;

        cpu.device = (char *)"/job:localhost/replica:0/task:0/device:CPU:0";
        cpu.n_node_stats = 2;
        cpu.node_stats = cpu_n;
        tn.key = 11;
        tn.value = (char *)"tf_Compute";
        cpu.n_thread_names = 1;
        cpu.thread_names = tns;
        all.device = (char *)"/device:GPU:0/stream:all";
        all.n_node_stats = 1;
        all.node_stats = all_n;
        k.device = (char *)"/device:GPU:0/stream:7";
        k.n_node_stats = 1;
        k.node_stats = k_n;
        mall.device = (char *)"/device:GPU:0/memcpy";
        mall.n_node_stats = 1;
        mall.node_stats = mall_n;
        m.device = (char *)"/device:GPU:0/stream:8";
        m.n_node_stats = 1;
        m.node_stats = m_n;
        s.device = (char *)"/device:GPU:0/sync";
        s.n_node_stats = 1;
        s.node_stats = s_n;
        ss.n_dev_stats = 6;
        ss.dev_stats = devs;
        rm.step_stats = &ss;
        return bare ? pack_msg(&ss.base, len) : pack_msg(&rm.base, len);
}

static void check_run_metadata(const tpa_trace *tr, const char *what)
{
        const tpa_event *e;
        size_t i;

        tap_eq((int64_t)tpa_trace_event_count(tr), 6, "%s: 5 node stats kept + 1 step", what);
        tap_eq((int64_t)tpa_trace_health_c(tr)->duplicates_dropped, 2,
               "%s: stream:all and memcpy dropped as duplicates", what);
        ok(tpa_trace_dialect(tr) == TPA_DIALECT_TF1, "%s: dialect tf1", what);
        e = find_event(tr, "MatMul", &i);
        ok(e != NULL && e->kind == TPA_KIND_HOST_OP && e->ts == 1000000000 && e->dur == 30000,
           "%s: CPU op 'MatMul' (op type from the label) is a host op, us to ns", what);
        ok(e != NULL && strcmp(tpa_trace_str(tr, tpa_trace_thread_c(tr, e->track)->name),
                               "tf_Compute") == 0, "%s: thread name from thread_names", what);
        e = find_event(tr, "IteratorGetNext", NULL);
        ok(e != NULL && e->kind == TPA_KIND_INPUT, "%s: IteratorGetNext is input", what);
        ok(count_kind(tr, TPA_KIND_KERNEL) == 1, "%s: one kernel (stream:7)", what);
        e = find_event(tr, "MEMCPYHtoD", &i);
        ok(e != NULL && e->kind == TPA_KIND_COPY_H2D && aux(tr, i, TPA_AUX_BYTES) == 4096,
           "%s: MEMCPYHtoD is copy_h2d of 4096 bytes (from the label)", what);
        e = find_event(tr, "cuStreamSynchronize", NULL);
        ok(e != NULL && e->kind == TPA_KIND_SYNC, "%s: /sync is sync", what);
        e = find_event(tr, "train 0", &i);
        ok(e != NULL && e->kind == TPA_KIND_STEP && e->ts == 1000000000 && e->dur == 60000 &&
           aux(tr, i, TPA_AUX_STEP_NUM) == 0, "%s: one step 'train 0' spanning the step",
           what);
}

static void test_proto__run_metadata(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        size_t len, len2;
        uint8_t *buf = make_run_metadata(&len, false, 1000000);
        uint8_t *buf2 = make_run_metadata(&len2, false, 2000000);
        const tpa_event *e;
        size_t i;

        tpa_trace_new(&tr, &err);
        if (ok(tpa_read_memory(tr, buf, len, "a.pb", NULL, &err) == 0, "RunMetadata reads (%s)",
               err.msg)) {
                ok(tpa_trace_format(tr) == TPA_FORMAT_STEPSTATS, "format run-metadata");
                check_run_metadata(tr, "RunMetadata");
        }
        ok(tpa_read_memory(tr, buf2, len2, "b.pb", NULL, &err) == 0, "a second one reads");
        e = find_event(tr, "train 1", &i);
        ok(e != NULL && aux(tr, i, TPA_AUX_STEP_NUM) == 1 && e->ts == 2000000000,
           "a second RunMetadata is step 1");
        tap_eq((int64_t)count_kind(tr, TPA_KIND_STEP), 2, "two steps");
        tpa_trace_free(tr);
        free(buf);
        free(buf2);

        buf = make_run_metadata(&len, false, INT64_MAX / 2);
        tpa_trace_new(&tr, &err);
        tap_eq(tpa_read_memory(tr, buf, len, "huge.pb", NULL, &err), TPA_EFORMAT,
               "a start time that overflows ns is bad input (%s)", err.msg);
        tpa_trace_free(tr);
        free(buf);

        buf = make_run_metadata(&len, true, 1000000);
        tpa_trace_new(&tr, &err);
        if (ok(tpa_read_memory(tr, buf, len, "ss.pb", NULL, &err) == 0, "bare StepStats reads "
               "(%s)", err.msg))
                check_run_metadata(tr, "StepStats");
        tpa_trace_free(tr);
        free(buf);
}

/* ---- invalid UTF-8 ------------------------------------------------------- */

/* Names in protobuf strings are repaired as the Chrome reader's are
 * (model/utf8.h): U+FFFD, counted, one warning. */
static void test_proto__invalid_utf8(void)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        uint8_t *buf;
        size_t len;

        /* StepStats: a node name, a thread name */
        {
                Tpapb__NodeExecStats c0 = node("bad\xff/MatMul", "bad\xff/MatMul = MatMul(x)",
                                               1000, 30, 11);
                Tpapb__NodeExecStats *cpu_n[] = { &c0 };
                Tpapb__ThreadNamesEntry tn = TPAPB__THREAD_NAMES_ENTRY__INIT;
                Tpapb__ThreadNamesEntry *tns[] = { &tn };
                Tpapb__DeviceStepStats cpu = TPAPB__DEVICE_STEP_STATS__INIT;
                Tpapb__DeviceStepStats *devs[] = { &cpu };
                Tpapb__StepStats ss = TPAPB__STEP_STATS__INIT;
                Tpapb__RunMetadata rm = TPAPB__RUN_METADATA__INIT;

                cpu.device = (char *)"/job:localhost/replica:0/task:0/device:CPU:0";
                cpu.n_node_stats = 1;
                cpu.node_stats = cpu_n;
                tn.key = 11;
                tn.value = (char *)"tf_\xc3";
                cpu.n_thread_names = 1;
                cpu.thread_names = tns;
                ss.n_dev_stats = 1;
                ss.dev_stats = devs;
                rm.step_stats = &ss;
                buf = pack_msg(&rm.base, &len);
                tpa_trace_new(&tr, &err);
                if (ok(tpa_read_memory(tr, buf, len, "u.pb", NULL, &err) == 0,
                       "invalid UTF-8: RunMetadata reads (%s)", err.msg)) {
                        size_t i = 0;
                        const tpa_event *e = find_event(tr, "MatMul", &i);
                        int64_t op = e != NULL ? aux(tr, i, TPA_AUX_OP) : -1;
                        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8, 2,
                               "invalid UTF-8: RunMetadata: 2 strings repaired");
                        ok(op >= 0 && strcmp(tpa_trace_str(tr, (tpa_str)op),
                                               "bad\xef\xbf\xbd/MatMul") == 0,
                           "invalid UTF-8: RunMetadata: the op has U+FFFD");
                        ok(e != NULL && strcmp(tpa_trace_str(tr, tpa_trace_thread_c(
                                       tr, e->track)->name), "tf_\xef\xbf\xbd") == 0,
                           "invalid UTF-8: RunMetadata: the thread name has U+FFFD");
                        ok(tpa_trace_warning_count(tr) == 1 &&
                           strstr(tpa_trace_warning(tr, 0)->msg, "invalid UTF-8") != NULL,
                           "invalid UTF-8: RunMetadata: one warning");
                }
                tpa_trace_free(tr);
                free(buf);
        }
        /* XSpace: a plane, a line and an event name */
        {
                Tpapb__XEventMetadata em = TPAPB__XEVENT_METADATA__INIT;
                Tpapb__XEventMetadataEntry eme = TPAPB__XEVENT_METADATA_ENTRY__INIT;
                Tpapb__XEventMetadataEntry *emes[] = { &eme };
                Tpapb__XEvent ev = TPAPB__XEVENT__INIT;
                Tpapb__XEvent *evs[] = { &ev };
                Tpapb__XLine line = TPAPB__XLINE__INIT;
                Tpapb__XLine *lines[] = { &line };
                Tpapb__XPlane pl = TPAPB__XPLANE__INIT;
                Tpapb__XPlane *pls[] = { &pl };
                Tpapb__XSpace xs = TPAPB__XSPACE__INIT;
                size_t bad = 0;

                em.id = 1;
                em.name = (char *)"sgemm\xed\xa0\x80";
                eme.key = 1;
                eme.value = &em;
                ev.metadata_id = 1;
                ev.data_case = TPAPB__XEVENT__DATA_OFFSET_PS;
                ev.offset_ps = 1000000;
                ev.duration_ps = 5000000;
                line.id = 7;
                line.name = (char *)"Stream #7\xff";
                line.timestamp_ns = 2000;
                line.n_events = 1;
                line.events = evs;
                pl.id = 1;
                pl.name = (char *)"/device:GPU:0\xc0";
                pl.n_lines = 1;
                pl.lines = lines;
                pl.n_event_metadata = 1;
                pl.event_metadata = emes;
                xs.n_planes = 1;
                xs.planes = pls;
                buf = pack_msg(&xs.base, &len);
                tpa_trace_new(&tr, &err);
                if (ok(tpa_read_memory(tr, buf, len, "u.xplane.pb", NULL, &err) == 0,
                       "invalid UTF-8: XSpace reads (%s)", err.msg)) {
                        tap_eq((int64_t)tpa_trace_health_c(tr)->invalid_utf8, 3,
                               "invalid UTF-8: XSpace: 3 strings repaired");
                        for (size_t i = 0; i < tpa_trace_str_count(tr); i++) {
                                const char *s = tpa_trace_str(tr, (tpa_str)i);
                                bad += tpa_utf8__valid_prefix(s, strlen(s)) != strlen(s);
                        }
                        tap_eq((int64_t)bad, 0, "invalid UTF-8: XSpace: every string is valid");
                        ok(find_event(tr, "sgemm\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", NULL) !=
                           NULL, "invalid UTF-8: XSpace: a surrogate is 3 U+FFFD");
                }
                tpa_trace_free(tr);
                free(buf);
        }
}

/* ---- tfevents ----------------------------------------------------------- */

static uint32_t crc32c(const uint8_t *p, size_t n)
{
        uint32_t c = 0xffffffffu;
        for (size_t i = 0; i < n; i++) {
                c ^= p[i];
                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
        }
        return ~c;
}

static uint32_t masked(const uint8_t *p, size_t n)
{
        uint32_t c = crc32c(p, n);
        return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static size_t put_frame(uint8_t *out, const uint8_t *data, size_t len)
{
        uint32_t c;

        for (int i = 0; i < 8; i++)
                out[i] = (uint8_t)((uint64_t)len >> (8 * i));
        c = masked(out, 8);
        memcpy(out + 8, (uint8_t[]){ (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16),
                                     (uint8_t)(c >> 24) }, 4);
        memcpy(out + 12, data, len);
        c = masked(data, len);
        memcpy(out + 12 + len, (uint8_t[]){ (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16),
                                            (uint8_t)(c >> 24) }, 4);
        return 16 + len;
}

/* file_version, then two tagged_run_metadata records; *second is the offset
 * of the second frame. */
static uint8_t *make_tfevents(size_t *len, size_t *second)
{
        Tpapb__Event v = TPAPB__EVENT__INIT, r = TPAPB__EVENT__INIT;
        Tpapb__TaggedRunMetadata t = TPAPB__TAGGED_RUN_METADATA__INIT;
        size_t vl, rl, ml, n = 0;
        uint8_t *m = make_run_metadata(&ml, false, 1000000), *vb, *rb, *out;

        v.wall_time = 1.5;
        v.what_case = TPAPB__EVENT__WHAT_FILE_VERSION;
        v.file_version = (char *)"brain.Event:2";
        t.tag = (char *)"step5";
        t.run_metadata.data = m;
        t.run_metadata.len = ml;
        r.step = 5;
        r.what_case = TPAPB__EVENT__WHAT_TAGGED_RUN_METADATA;
        r.tagged_run_metadata = &t;
        vb = pack_msg(&v.base, &vl);
        rb = pack_msg(&r.base, &rl);
        out = malloc(48 + vl + 2 * rl);
        n += put_frame(out + n, vb, vl);
        *second = n;
        n += put_frame(out + n, rb, rl);
        r.step = 6;
        free(rb);
        rb = pack_msg(&r.base, &rl);
        n += put_frame(out + n, rb, rl);
        *len = n;
        free(vb);
        free(rb);
        free(m);
        return out;
}

static void test_proto__tfevents(void)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        size_t len, second, i;
        uint8_t *buf = make_tfevents(&len, &second);
        const tpa_event *e;
        int rc;

        ok(tpa_read_sniff(buf, len) == TPA_FORMAT_TFEVENTS, "sniffed as tfevents");
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, buf, len, "events.out.tfevents.1", NULL, &err);
        if (ok(rc == 0, "tfevents reads (%s)", err.msg)) {
                ok(tpa_trace_format(tr) == TPA_FORMAT_TFEVENTS, "format tfevents");
                tap_eq((int64_t)count_kind(tr, TPA_KIND_STEP), 2, "two tagged records: two steps");
                e = find_event(tr, "train 5: step5", &i);
                ok(e != NULL && aux(tr, i, TPA_AUX_STEP_NUM) == 5,
                   "step named by the tag, numbered by Event.step");
                ok(find_event(tr, "train 6: step5", NULL) != NULL, "second step is 6");
                tap_eq((int64_t)tpa_trace__health(tr)->records_read, 3 + 2 * 7,
                       "3 records + 2 x 7 node stats read");
        }
        tpa_trace_free(tr);

        /* corrupt one byte of the second frame's data */
        buf[second + 20] ^= 0x40;
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, buf, len, "bad", NULL, &err);
        tap_eq(rc, TPA_EFORMAT, "corrupt data is bad input (%s)", err.msg);
        tap_eq((int64_t)err.offset, (int64_t)second + 12, "offset of the corrupt record's data");
        tpa_trace_free(tr);
        buf[second + 20] ^= 0x40;

        /* corrupt the second frame's length */
        buf[second + 1] ^= 0x01;
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, buf, len, "bad", NULL, &err);
        tap_eq(rc, TPA_EFORMAT, "corrupt length is bad input (%s)", err.msg);
        tap_eq((int64_t)err.offset, (int64_t)second, "offset of the corrupt frame");
        tpa_trace_free(tr);
        buf[second + 1] ^= 0x01;

        /* cut inside the last frame: a warning, or an error when strict */
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, buf, len - 5, "cut", NULL, &err);
        ok(rc == 0 && tpa_trace__health(tr)->truncated && count_kind(tr, TPA_KIND_STEP) == 1,
           "cut file: the records before the cut are read, truncated is set");
        tpa_trace_free(tr);
        tpa_trace_new(&tr, &err);
        ro.strict = true;
        rc = tpa_read_memory(tr, buf, len - 5, "cut", &ro, &err);
        tap_eq(rc, TPA_EFORMAT, "cut file with strict: an error (%s)", err.msg);
        tpa_trace_free(tr);
        free(buf);
}

/* ---- RunMetadata text format ------------------------------------------- */

static void test_proto__text(void)
{
        static const char good[] =
                "# str(run_metadata)\n"
                "step_stats {\n"
                "  dev_stats {\n"
                "    device: \"/job:localhost/replica:0/task:0/device:CPU:0\"\n"
                "    node_stats {\n"
                "      node_name: \"a\\\"b\" \"\\x41\\101\"  # adjacent strings, escapes\n"
                "      all_start_micros: 1000 all_end_rel_micros: 7\n"
                "      memory { allocator_name: \"cpu\" total_bytes: 5 }\n"
                "      output < slot: 0 tensor_description { dtype: DT_FLOAT } >\n"
                "      timeline_label: 'a = MatMul(x, y)'; thread_id: 3,\n"
                "      referenced_tensor [ ] \n"
                "    }\n"
                "    thread_names { key: 3 value: \"tf_Compute\" }\n"
                "  }\n"
                "}\n"
                "cost_graph { node { name: \"x\" id: 1 } }\n";
        static const char listed[] =
                "step_stats { dev_stats: [ { device: \"/job:localhost/replica:0/task:0/cpu:0\"\n"
                "  node_stats: [ { node_name: \"a\" all_start_micros: 10 all_end_rel_micros: 2\n"
                "                  timeline_label: \"a = Add(x, y)\" },\n"
                "                < node_name: \"m\" all_start_micros: 20 all_end_rel_micros: 3\n"
                "                  timeline_label: \"m = Mul(a, y)\" > ] } ] }\n";
        static const char bad[] = "step_stats {\n  dev_stats {\n    device \"/cpu:0\"\n";
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;
        const tpa_event *e;
        size_t i;
        int rc;

        ok(tpa_read_sniff(good, sizeof(good) - 1) == TPA_FORMAT_STEPSTATS_TEXT,
           "sniffed as text format");
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, good, sizeof(good) - 1, "rm.pbtxt", NULL, &err);
        if (ok(rc == 0, "text RunMetadata reads (%s)", err.msg)) {
                ok(tpa_trace_format(tr) == TPA_FORMAT_STEPSTATS_TEXT, "format run-metadata-text");
                tap_eq((int64_t)tpa_trace_event_count(tr), 2, "one node and its step");
                e = find_event(tr, "MatMul", &i);
                ok(e != NULL && e->ts == 1000000 && e->dur == 7000 && e->kind == TPA_KIND_HOST_OP,
                   "node: op type from the label, us to ns, host op");
                ok(e != NULL && strcmp(tpa_trace_str(tr, (tpa_str)aux(tr, i, TPA_AUX_OP)),
                                       "a\"bAA") == 0,
                   "node name: escapes and adjacent strings joined");
                ok(e != NULL && strcmp(tpa_trace_str(tr, tpa_trace_thread_c(tr, e->track)->name),
                                       "tf_Compute") == 0, "thread_names map");
        }
        tpa_trace_free(tr);
        /* repeated messages in list syntax read as repeated fields */
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, listed, sizeof(listed) - 1, "list.pbtxt", NULL, &err);
        if (ok(rc == 0, "list syntax reads (%s)", err.msg)) {
                tap_eq((int64_t)tpa_trace_event_count(tr), 3, "list syntax: two nodes and a step");
                ok(find_event(tr, "Add", &i) != NULL && find_event(tr, "Mul", &i) != NULL,
                   "list syntax: both nodes");
        }
        tpa_trace_free(tr);
        tpa_trace_new(&tr, &err);
        rc = tpa_read_memory(tr, bad, sizeof(bad) - 1, "bad.pbtxt", NULL, &err);
        tap_eq(rc, TPA_EFORMAT, "a field with no ':' is bad input (%s)", err.msg);
        tap_eq((int64_t)err.offset, 38, "at the value after the field name");
        tpa_trace_free(tr);
}

/* ---- convert: written as Chrome JSON, read back the same ---------------- */

static bool same_events(const tpa_trace *a, const tpa_trace *b, const char *what)
{
        size_t n = tpa_trace_event_count(a);
        static const tpa_aux_key keys[] = { TPA_AUX_BYTES, TPA_AUX_STEP_NUM, TPA_AUX_FLAGS };

        if (!tap_eq((int64_t)tpa_trace_event_count(b), (int64_t)n, "%s: event count", what))
                return false;
        for (size_t i = 0; i < n; i++) {
                const tpa_event *x = &tpa_trace_events(a)[i], *y = &tpa_trace_events(b)[i];
                int64_t op_a = 0, op_b = 0;
                bool same = x->ts == y->ts && x->dur == y->dur && x->kind == y->kind &&
                            x->corr == y->corr && x->group == y->group &&
                            strcmp(tpa_trace_str(a, x->name), tpa_trace_str(b, y->name)) == 0 &&
                            strcmp(tpa_trace_str(a, tpa_trace_thread_c(a, x->track)->name),
                                   tpa_trace_str(b, tpa_trace_thread_c(b, y->track)->name)) == 0;
                for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
                        same = same && aux(a, i, keys[k]) == aux(b, i, keys[k]);
                tpa_trace_get_aux(a, i, TPA_AUX_OP, &op_a);
                tpa_trace_get_aux(b, i, TPA_AUX_OP, &op_b);
                same = same && strcmp(tpa_trace_str(a, (tpa_str)op_a),
                                      tpa_trace_str(b, (tpa_str)op_b)) == 0;
                if (!same)
                        return ok(false, "%s: event %zu ('%s' %s %lld+%lld) read back as "
                                  "'%s' %s %lld+%lld", what, i, tpa_trace_str(a, x->name),
                                  tpa_kind_name(x->kind), (long long)x->ts, (long long)x->dur,
                                  tpa_trace_str(b, y->name), tpa_kind_name(y->kind),
                                  (long long)y->ts, (long long)y->dur);
        }
        return ok(true, "%s: every event reads back the same (ts, dur, kind, name, track, "
                  "corr, group, bytes, step, op, flags)", what);
}

static void roundtrip(const uint8_t *buf, size_t len, const char *what, const char *out)
{
        tpa_error err = TPA_ERROR_INIT;
        tpa_chrome_writer *w;
        tpa_trace *a, *b;

        tpa_trace_new(&a, &err);
        tpa_trace_new(&b, &err);
        if (ok(tpa_read_memory(a, buf, len, what, NULL, &err) == 0 &&
               tpa_chrome_writer_open(&w, out, &err) == 0 &&
               tpa_chrome_writer_add(w, a, NULL, &err) == 0 &&
               tpa_chrome_writer_close(w, &err) == 0, "%s: converted to %s (%s)", what, out,
               err.msg) &&
            ok(tpa_read_path(b, out, NULL, &err) == 0, "%s: %s reads (%s)", what, out,
               err.msg)) {
                ok(tpa_trace_format(b) == TPA_FORMAT_CHROME_JSON &&
                   tpa_trace_dialect(b) == tpa_trace_dialect(a), "%s: same dialect (%s)", what,
                   tpa_dialect_name(tpa_trace_dialect(b)));
                same_events(a, b, what);
        }
        tpa_trace_free(a);
        tpa_trace_free(b);
        remove(out);
}

static void test_proto__convert_roundtrip(void)
{
        size_t len, second;
        uint8_t *buf;
        char out[64];

        buf = make_xspace(&len);
        snprintf(out, sizeof(out), "test_proto_%d.json", 1);
        roundtrip(buf, len, "xspace", out);
        free(buf);
        buf = make_run_metadata(&len, false, 1000000);
        snprintf(out, sizeof(out), "test_proto_%d.json.gz", 2);
        roundtrip(buf, len, "run metadata", out);
        free(buf);
        buf = make_tfevents(&len, &second);
        snprintf(out, sizeof(out), "test_proto_%d.json", 3);
        roundtrip(buf, len, "tfevents", out);
        free(buf);
}

/* ---- the real fixtures (tools/make_fixtures_tf.py) ------------------------ */

/* Both files of a TF2 session give the same analysis: steps, step times,
 * bucket fractions (issue 4 asks for 1 point; they are equal). */
static void same_analysis(const char *a_name, const char *b_name)
{
        tpa_analysis_options o = TPA_ANALYSIS_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *a, *b;
        tpa_analysis *x = NULL, *y = NULL;
        double worst = 0;
        tpa_ns worst_ns = 0;
        char ap[4096];

        snprintf(ap, sizeof(ap), "%s", tap_testdata(a_name));
        tpa_trace_new(&a, &err);
        tpa_trace_new(&b, &err);
        if (!ok(tpa_read_path(a, ap, NULL, &err) == 0 &&
                tpa_read_path(b, tap_testdata(b_name), NULL, &err) == 0 &&
                tpa_analyze(&x, a, &o, &err) == 0 && tpa_analyze(&y, b, &o, &err) == 0,
                "%s and %s read and analyze (%s)", a_name, b_name, err.msg))
                goto out;
        if (!tap_eq((int64_t)x->step_count, (int64_t)y->step_count, "%s: same step count",
                    a_name) || !ok(x->step_count > 0, "%s: has steps", a_name))
                goto out;
        for (size_t s = 0; s < x->step_count; s++) {
                tpa_ns d = x->steps[s].step_time - y->steps[s].step_time;
                worst_ns = d < 0 ? (-d > worst_ns ? -d : worst_ns) : (d > worst_ns ? d : worst_ns);
                for (int k = 0; k < TPA_BUCKET__COUNT; k++) {
                        double f = x->steps[s].frac[k] - y->steps[s].frac[k];
                        f = f < 0 ? -f : f;
                        worst = f > worst ? f : worst;
                }
        }
        ok(worst <= 0.01, "%s: bucket fractions within 1 point of %s (worst %.4f)", a_name,
           b_name, worst);
        ok(worst_ns <= 1000, "%s: step times within 1 us (worst %lld ns)", a_name,
           (long long)worst_ns);
out:
        tpa_analysis_free(x);
        tpa_analysis_free(y);
        tpa_trace_free(a);
        tpa_trace_free(b);
}

static void test_proto__fixtures(void)
{
        static const char *const tf2[] = { "tf2_compute_bound", "tf2_input_bound",
                                           "tf2_host_bound" };
        char x[64], j[64];
        FILE *f;
        tpa_error err = TPA_ERROR_INIT;
        tpa_trace *tr;

        for (size_t i = 0; i < sizeof(tf2) / sizeof(tf2[0]); i++) {
                snprintf(x, sizeof(x), "%s.xplane.pb", tf2[i]);
                snprintf(j, sizeof(j), "%s.trace.json.gz", tf2[i]);
                if ((f = fopen(tap_testdata(x), "rb")) == NULL) {
                        tap_skip("TF2 fixtures absent");
                        continue;
                }
                fclose(f);
                same_analysis(x, j);
        }
        /* tfevents: 3 steps, numbered by global_step, tags kept */
        if ((f = fopen(tap_testdata("tf1_steps.tfevents"), "rb")) != NULL) {
                fclose(f);
                tpa_trace_new(&tr, &err);
                if (ok(tpa_read_path(tr, tap_testdata("tf1_steps.tfevents"), NULL, &err) == 0,
                       "tf1_steps.tfevents reads (%s)", err.msg)) {
                        tap_eq((int64_t)count_kind(tr, TPA_KIND_STEP), 3, "three steps");
                        ok(count_kind(tr, TPA_KIND_HOST_OP) > 0, "with host ops");
                }
                tpa_trace_free(tr);
        }
}

/* Binary RunMetadata and XSpace cut anywhere past their first bytes read
 * the messages before the cut: never an error (a warning and the health
 * say where it ends), never more events than a longer cut, an error only
 * with strict. About 150 cut points in each fixture. */
static void test_proto__every_cut(void)
{
        static const char *const files[] = { "tf1_step1.runmeta.pb", "tf2_input_bound.xplane.pb" };

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                tpa_read_options ro = TPA_READ_OPTIONS_INIT;
                size_t len = 0, step, bad = 0, fewer = 0, lax = 0, prev = 0;
                uint8_t *data = NULL;
                FILE *f = fopen(tap_testdata(files[i]), "rb");

                if (f != NULL && (data = malloc(1u << 20)) != NULL)
                        len = fread(data, 1, 1u << 20, f);
                if (f != NULL)
                        fclose(f);
                if (!ok(data != NULL, "test_proto__every_cut: read %s", files[i])) {
                        free(data);
                        continue;
                }
                step = len / 150 + 1;
                for (size_t n = 8; n < len; n += step) {
                        tpa_error err = TPA_ERROR_INIT;
                        tpa_trace *tr;
                        size_t events;

                        tpa_trace_new(&tr, &err);
                        ro.strict = false;
                        if (tpa_read_memory(tr, data, n, files[i], &ro, &err) != 0 ||
                            !tpa_trace__health(tr)->truncated)
                                if (bad++ == 0)
                                        printf("# %s cut at %zu: %s\n", files[i], n, err.msg);
                        events = tpa_trace_event_count(tr);
                        fewer += events < prev;
                        prev = events;
                        tpa_trace_free(tr);
                        tpa_trace_new(&tr, &err);
                        ro.strict = true;
                        lax += tpa_read_memory(tr, data, n, files[i], &ro, &err) != TPA_EFORMAT;
                        tpa_trace_free(tr);
                }
                tap_eq((int64_t)bad, 0, "%s: every cut reads, truncated", files[i]);
                tap_eq((int64_t)fewer, 0, "%s: a longer cut never has fewer events", files[i]);
                tap_eq((int64_t)lax, 0, "%s: every cut is an error with strict", files[i]);
                free(data);
        }
}

/* ---- XSpace, large lines ------------------------------------------------ */

/* A growing buffer for wire bytes (struct wire holds small messages). */
struct dwire {
        uint8_t *b;
        size_t   n, cap;
};

static void dput(struct dwire *w, const void *p, size_t n)
{
        if (w->n + n > w->cap) {
                while (w->n + n > w->cap)
                        w->cap = w->cap != 0 ? w->cap * 2 : 4096;
                w->b = realloc(w->b, w->cap);
        }
        memcpy(w->b + w->n, p, n);
        w->n += n;
}

static void dput_varint(struct dwire *w, uint64_t v)
{
        uint8_t b[10];
        size_t k = 0;

        for (; v >= 0x80; v >>= 7)
                b[k++] = (uint8_t)(v | 0x80);
        b[k++] = (uint8_t)v;
        dput(w, b, k);
}

static void dput_int(struct dwire *w, unsigned num, uint64_t v)
{
        dput_varint(w, (uint64_t)num << 3);
        dput_varint(w, v);
}

static void dput_msg(struct dwire *w, unsigned num, const struct dwire *m)
{
        dput_varint(w, (uint64_t)num << 3 | 2);
        dput_varint(w, m->n);
        dput(w, m->b, m->n);
}

/* One plane: event metadata 1..3, then `lines` lines of `events` events
 * each (display_id and display_name after the events, as TF writes
 * them); at[] gets where each line's first event starts in the plane's
 * bytes, line_tag[] where its display_id's tag is. */
static void make_plane(struct dwire *plane, const char *name, int id, size_t lines,
                       size_t events, size_t *at, size_t *line_tag)
{
        static const char *const names[] = { "", "volta_sgemm", "MemcpyH2D", "Iterator::Map" };
        struct dwire md = { 0 }, line = { 0 }, ev = { 0 };

        dput_int(plane, 1, (uint64_t)id);
        dput_varint(plane, 2 << 3 | 2);
        dput_varint(plane, strlen(name));
        dput(plane, name, strlen(name));
        for (int k = 1; k <= 3; k++) {
                struct dwire v = { 0 };
                md.n = 0;
                dput_int(&v, 1, (uint64_t)k);
                dput_varint(&v, 2 << 3 | 2);
                dput_varint(&v, strlen(names[k]));
                dput(&v, names[k], strlen(names[k]));
                dput_int(&md, 1, (uint64_t)k);
                dput_msg(&md, 2, &v);
                dput_msg(plane, 4, &md);
                free(v.b);
        }
        for (size_t l = 0; l < lines; l++) {
                line.n = 0;
                dput_int(&line, 1, l + 1);
                dput_int(&line, 3, 1000000 + l);
                for (size_t e = 0; e < events; e++) {
                        ev.n = 0;
                        dput_int(&ev, 1, 1 + (e % 3));
                        dput_int(&ev, 2, e * 2000 + 499);
                        dput_int(&ev, 3, 1500 + e % 7);
                        if (e == 0)
                                at[l] = line.n;
                        dput_msg(&line, 4, &ev);
                }
                line_tag[l] = line.n;
                dput_int(&line, 10, 100 + l);
                dput_msg(plane, 3, &line);
                /* the line's bytes start after its tag and length */
                at[l] += plane->n - line.n;
                line_tag[l] += plane->n - line.n;
        }
        free(md.b);
        free(line.b);
        free(ev.b);
}

struct outcome {
        int    rc;
        char   msg[200];
        uint64_t offset;
        size_t n;
        uint64_t sum;           /* over the events: ts, dur, name, track */
};

static struct outcome read_outcome(const uint8_t *data, size_t len)
{
        tpa_read_options ro = TPA_READ_OPTIONS_INIT;
        tpa_error err = TPA_ERROR_INIT;
        struct outcome o = { 0 };
        tpa_trace *tr;

        tpa_trace_new(&tr, &err);
        ro.format = TPA_FORMAT_XSPACE;
        o.rc = tpa_read_memory(tr, data, len, "big.xplane.pb", &ro, &err);
        snprintf(o.msg, sizeof(o.msg), "%s", o.rc < 0 ? err.msg : "");
        o.offset = o.rc < 0 ? err.offset : 0;
        o.n = tpa_trace_event_count(tr);
        for (size_t i = 0; i < o.n; i++) {
                const tpa_event *e = &tpa_trace_events(tr)[i];
                const char *t = tpa_trace_str(tr, tpa_trace_thread_c(tr, e->track)->name);
                int64_t step = -1, op = -1;
                tpa_trace_get_aux(tr, i, TPA_AUX_STEP_NUM, &step);
                tpa_trace_get_aux(tr, i, TPA_AUX_OP, &op);
                o.sum = o.sum * 31 + (uint64_t)e->ts * 7 + (uint64_t)e->dur * 3 + e->name +
                        e->track + (uint64_t)strlen(t) + (uint64_t)step * 5 + (uint64_t)op;
        }
        tpa_trace_free(tr);
        return o;
}

/* Large lines are walked ahead on a second thread when the input is
 * large: the same events, and the same error at the same offset, as when
 * it is small and they are not. The large input is the small one with a
 * hostname of 1 MiB after its planes, so every offset in the planes is
 * the same. Lines big and small, a bad event in a big line (met by the
 * reader), a bad field in a big line (met by the walk). */
static void test_proto__xspace_large_lines(void)
{
        size_t at_a[3], tag_a[3], at_b[40], tag_b[40];
        struct dwire pa = { 0 }, pb = { 0 }, xs = { 0 };
        size_t a_base, b_base, pad = 1u << 20, same = 0, cases = 0;
        uint8_t *big;
        char *host = malloc(pad);

        make_plane(&pa, "/device:GPU:0", 1, 3, 3000, at_a, tag_a);     /* ~40 KiB lines */
        make_plane(&pb, "/host:CPU", 2, 40, 20, at_b, tag_b);          /* small lines */
        dput_msg(&xs, 1, &pa);
        a_base = xs.n - pa.n;
        dput_msg(&xs, 1, &pb);
        b_base = xs.n - pb.n;
        memset(host, 'h', pad);
        big = malloc(xs.n + pad + 8);
        for (int k = 0; k < 5; k++) {
                struct outcome small, large;
                struct dwire copy = { 0 };
                const char *what[] = { "whole", "a bad event in a big line",
                                       "a bad field in a big line", "a bad event in a small line",
                                       "a bad event in the last big line" };
                dput(&copy, xs.b, xs.n);
                if (k == 1)     /* the tag of an event's metadata id: wire type 3 */
                        copy.b[a_base + at_a[1] + 2 + 100 * 0] |= 3;
                if (k == 2)     /* the display_id tag after the events */
                        copy.b[a_base + tag_a[1]] |= 3;
                if (k == 3)
                        copy.b[b_base + at_b[7] + 2] |= 3;
                if (k == 4)
                        copy.b[a_base + at_a[2] + 2] |= 3;
                small = read_outcome(copy.b, copy.n);
                memcpy(big, copy.b, copy.n);
                {
                        struct dwire tail = { 0 };
                        dput_varint(&tail, 4 << 3 | 2);
                        dput_varint(&tail, pad);
                        memcpy(big + copy.n, tail.b, tail.n);
                        memcpy(big + copy.n + tail.n, host, pad);
                        large = read_outcome(big, copy.n + tail.n + pad);
                        free(tail.b);
                }
                cases++;
                if (tap_eq(large.rc, small.rc, "xspace large lines, %s: same status", what[k]) &&
                    tap_streq(large.msg, small.msg, "xspace large lines, %s: same message",
                              what[k]) &&
                    tap_eq((int64_t)large.offset, (int64_t)small.offset,
                           "xspace large lines, %s: same offset", what[k]) &&
                    tap_eq((int64_t)large.n, (int64_t)small.n,
                           "xspace large lines, %s: same events", what[k]) &&
                    ok(large.sum == small.sum, "xspace large lines, %s: same times, names, "
                       "threads", what[k]))
                        same++;
                if (k == 0)
                        tap_eq((int64_t)small.n, 3 * 3000 + 40 * 20,
                               "xspace large lines: every event read");
                else
                        ok(small.rc < 0, "xspace large lines, %s: an error (%s)", what[k],
                           small.msg);
                free(copy.b);
        }
        free(big);
        free(host);
        free(pa.b);
        free(pb.b);
        free(xs.b);
}

/* What make_stats_plane() does to one event. */
enum odd { ODD_NONE, ODD_TIME, ODD_INTERNAL_TIME, ODD_LONG_STAT, ODD_BAD_STAT };

/* A plane whose events have stats: stat metadata sid+1 "step_num" and
 * sid+3 "tf_op" (read), sid+2 "flops" (not); event metadata 1..3, of
 * which 2 is internal (MemoryAllocation). `lines` lines of `events`
 * events, each with a flops stat, every third a step_num, every fifth a
 * tf_op; every seventh is internal. Event `oe` of line `ol` is `odd`:
 * a time out of range, a stat of 20 KiB (longer than a chunk takes),
 * or a stat whose value has a wire type its field does not. */
static void make_stats_plane(struct dwire *plane, const char *name, int id, unsigned sid,
                             size_t lines, size_t events, size_t ol, size_t oe, enum odd odd)
{
        static const char *const evn[] = { "", "volta_sgemm", "MemoryAllocation", "Iterator::Map" };
        static const char *const stn[] = { "", "step_num", "flops", "tf_op" };
        struct dwire line = { 0 }, ev = { 0 }, st = { 0 };
        static char big[20 << 10];

        memset(big, 'x', sizeof(big));
        dput_int(plane, 1, (uint64_t)id);
        dput_varint(plane, 2 << 3 | 2);
        dput_varint(plane, strlen(name));
        dput(plane, name, strlen(name));
        for (unsigned k = 1; k <= 3; k++) {
                struct dwire v = { 0 }, md = { 0 };
                dput_int(&v, 1, k);
                dput_varint(&v, 2 << 3 | 2);
                dput_varint(&v, strlen(evn[k]));
                dput(&v, evn[k], strlen(evn[k]));
                dput_int(&md, 1, k);
                dput_msg(&md, 2, &v);
                dput_msg(plane, 4, &md);
                v.n = md.n = 0;
                dput_int(&v, 1, sid + k);
                dput_varint(&v, 2 << 3 | 2);
                dput_varint(&v, strlen(stn[k]));
                dput(&v, stn[k], strlen(stn[k]));
                dput_int(&md, 1, sid + k);
                dput_msg(&md, 2, &v);
                dput_msg(plane, 5, &md);
                free(v.b);
                free(md.b);
        }
        for (size_t l = 0; l < lines; l++) {
                line.n = 0;
                dput_int(&line, 1, l + 1);
                dput_int(&line, 3, 2000000 + l);
                for (size_t e = 0; e < events; e++) {
                        bool is_odd = l == ol && e == oe;
                        ev.n = 0;
                        dput_int(&ev, 1, e % 7 == 0 ? 2 : 1 + 2 * (e % 2));
                        dput_int(&ev, 2, is_odd && (odd == ODD_TIME || odd == ODD_INTERNAL_TIME)
                                         ? UINT64_C(1) << 62 : e * 3000 + 777);
                        dput_int(&ev, 3, 2500 + e % 11);
                        st.n = 0;
                        dput_int(&st, 1, sid + 2);
                        dput_int(&st, 3, e * 1000);
                        dput_msg(&ev, 4, &st);
                        if (e % 3 == 0) {
                                st.n = 0;
                                dput_int(&st, 1, sid + 1);
                                dput_int(&st, 4, e / 3 + 1);
                                dput_msg(&ev, 4, &st);
                        }
                        if (e % 5 == 0) {
                                st.n = 0;
                                dput_int(&st, 1, sid + 3);
                                dput_varint(&st, 5 << 3 | 2);
                                dput_varint(&st, 8);
                                dput(&st, e % 2 ? "MatMul:x" : "Conv2D:y", 8);
                                dput_msg(&ev, 4, &st);
                        }
                        if (is_odd && odd == ODD_LONG_STAT) {
                                st.n = 0;
                                dput_int(&st, 1, sid + 2);
                                dput_varint(&st, 5 << 3 | 2);
                                dput_varint(&st, sizeof(big));
                                dput(&st, big, sizeof(big));
                                dput_msg(&ev, 4, &st);
                        }
                        if (is_odd && odd == ODD_BAD_STAT) {
                                st.n = 0;
                                dput_int(&st, 1, sid + 1);
                                dput_varint(&st, 4 << 3 | 5);   /* int64 as fixed32 */
                                dput(&st, "\1\0\0\0", 4);
                                dput_msg(&ev, 4, &st);
                        }
                        dput_msg(&line, 4, &ev);
                }
                dput_int(&line, 10, 200 + l);
                dput_msg(plane, 3, &line);
        }
        free(line.b);
        free(ev.b);
        free(st.b);
}

/* Large lines are decoded in chunks on two threads: events with stats
 * the reader reads and stats it does not, in two planes whose stat ids
 * differ, read the same as when the input is too small for the thread;
 * so is an event with a time out of range (an error at its offset), an
 * internal one with such a time (skipped), one longer than a chunk takes,
 * and one with a bad stat, each in a chunk after the first. */
static void test_proto__xspace_chunks(void)
{
        static const struct {
                enum odd   odd;
                size_t     plane, line, event;
                bool       fails;
                const char *what;
        } cases[] = {
                { ODD_NONE, 0, 0, 0, false, "whole" },
                { ODD_TIME, 0, 1, 2101, true, "a time out of range" },
                { ODD_INTERNAL_TIME, 0, 0, 1498, false, "an internal event's time out of range" },
                { ODD_LONG_STAT, 0, 2, 1100, false, "an event of 20 KiB" },
                { ODD_BAD_STAT, 1, 1, 2400, true, "a bad stat" },
        };
        size_t pad = 1u << 20;
        char *host = malloc(pad);

        memset(host, 'h', pad);
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                struct dwire pa = { 0 }, pb = { 0 }, xs = { 0 }, tail = { 0 };
                struct outcome small, large;
                const char *what = cases[k].what;

                make_stats_plane(&pa, "/host:CPU", 1, 0, 3, 3000, cases[k].plane == 0 ?
                                 cases[k].line : SIZE_MAX, cases[k].event, cases[k].odd);
                make_stats_plane(&pb, "/device:GPU:0", 2, 10, 2, 2500, cases[k].plane == 1 ?
                                 cases[k].line : SIZE_MAX, cases[k].event, cases[k].odd);
                dput_msg(&xs, 1, &pa);
                dput_msg(&xs, 1, &pb);
                small = read_outcome(xs.b, xs.n);
                dput_varint(&tail, 4 << 3 | 2);
                dput_varint(&tail, pad);
                dput(&xs, tail.b, tail.n);
                dput(&xs, host, pad);
                large = read_outcome(xs.b, xs.n);
                tap_eq(large.rc, small.rc, "xspace chunks, %s: same status", what);
                tap_streq(large.msg, small.msg, "xspace chunks, %s: same message", what);
                tap_eq((int64_t)large.offset, (int64_t)small.offset,
                       "xspace chunks, %s: same offset", what);
                tap_eq((int64_t)large.n, (int64_t)small.n, "xspace chunks, %s: same events",
                       what);
                ok(large.sum == small.sum, "xspace chunks, %s: same times, names, threads, "
                   "steps and ops", what);
                ok(cases[k].fails ? small.rc < 0 : small.rc == 0, "xspace chunks, %s: %s (%s)",
                   what, cases[k].fails ? "an error" : "read", small.msg);
                if (k == 0)     /* every seventh event is internal */
                        tap_eq((int64_t)small.n, 3 * (3000 - 429) + 2 * (2500 - 358),
                               "xspace chunks: every event read");
                free(pa.b);
                free(pb.b);
                free(xs.b);
                free(tail.b);
        }
        free(host);
}

int main(void)
{
        test_proto__xspace();
        test_proto__xspace_errors();
        test_proto__xspace_wire();
        test_proto__xspace_large_lines();
        test_proto__xspace_chunks();
        test_proto__run_metadata();
        test_proto__invalid_utf8();
        test_proto__tfevents();
        test_proto__text();
        test_proto__convert_roundtrip();
        test_proto__fixtures();
        test_proto__every_cut();
        return tap_done();
}
